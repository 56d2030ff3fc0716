/**
 * Listeners by key: a key's listeners hear its notifications only, with their arguments; those told
 * are the ones subscribed when the notification starts; an unsubscribe is final, and a key nobody
 * listens to any more is let go.
 */
import { describe, expect, it, vi } from 'vitest'
import { createListeners } from '../../src/storage/listeners'

describe('createListeners', () => {
  it('tells the listeners of one key, with the arguments given, and no other key', () => {
    const listeners = createListeners<string, [key: string]>()
    const a = vi.fn()
    const b = vi.fn()
    listeners.subscribe('drafts', a)
    listeners.subscribe('outbox', b)
    listeners.notify('drafts', 'ses_1')
    expect(a).toHaveBeenCalledExactlyOnceWith('ses_1')
    expect(b).not.toHaveBeenCalled()
    listeners.notify('nobody', 'ses_1')
  })

  it('stops telling a listener once it unsubscribes, and the same function subscribed twice is told once', () => {
    const listeners = createListeners<string>()
    const listener = vi.fn()
    listeners.subscribe('s', listener)
    const unsubscribe = listeners.subscribe('s', listener)
    listeners.notify('s')
    expect(listener).toHaveBeenCalledTimes(1)
    unsubscribe()
    listeners.notify('s')
    expect(listener).toHaveBeenCalledTimes(1)
  })

  it('tells the listeners subscribed when the notification started, even one unsubscribed meanwhile', () => {
    const listeners = createListeners<string>()
    const late = vi.fn()
    let unsubscribeSecond = () => {}
    listeners.subscribe('s', () => {
      unsubscribeSecond()
      listeners.subscribe('s', late)
    })
    const second = vi.fn()
    unsubscribeSecond = listeners.subscribe('s', second)
    listeners.notify('s')
    expect(second).toHaveBeenCalledTimes(1)
    expect(late).not.toHaveBeenCalled()
  })

  it('counts the keys someone listens to, and lets a key go with its last listener', () => {
    const listeners = createListeners<number>()
    expect(listeners.size).toBe(0)
    const first = listeners.subscribe(1, () => {})
    const second = listeners.subscribe(1, () => {})
    listeners.subscribe(2, () => {})
    expect(listeners.size).toBe(2)
    first()
    expect(listeners.size).toBe(2)
    second()
    expect(listeners.size).toBe(1)
    // A stale unsubscribe of a key's earlier listeners leaves its new ones alone.
    const fresh = vi.fn()
    listeners.subscribe(1, fresh)
    second()
    listeners.notify(1)
    expect(fresh).toHaveBeenCalledTimes(1)
    expect(listeners.size).toBe(2)
  })
})
