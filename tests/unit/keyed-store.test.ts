/**
 * The keyed store over Web Storage: values go in as JSON under `rebound.<namespace>.<key>` and
 * come back through their schema; what no longer matches reads as absent; a backend that throws
 * (or none at all) leaves the value in memory for the page; listeners hear their namespace only.
 */
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createKeyedStore, KEY_PREFIX, storageKey, type StorageBackend } from '../../src/storage/keyed-store'

/** A Web Storage stand-in whose writes can be made to throw, with every call counted. */
function memoryBackend() {
  const items = new Map<string, string>()
  let failing = false
  const backend = {
    items,
    getItem: vi.fn((key: string) => items.get(key) ?? null),
    setItem: vi.fn((key: string, value: string) => {
      if (failing) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
      items.set(key, value)
    }),
    removeItem: vi.fn((key: string) => {
      if (failing) throw new DOMException('Blocked.', 'SecurityError')
      items.delete(key)
    }),
    fail(on: boolean) {
      failing = on
    },
  }
  return backend satisfies StorageBackend & { items: Map<string, string> }
}

const point = z.object({ x: z.number(), y: z.number() })

describe('createKeyedStore', () => {
  it('round-trips a value through JSON and its schema', () => {
    const backend = memoryBackend()
    const store = createKeyedStore(backend)
    const slot = store.slot('points', 'a', point)
    expect(slot.read()).toBeUndefined()
    slot.write({ x: 1, y: 2 })
    expect(slot.read()).toEqual({ x: 1, y: 2 })
    expect(JSON.parse(backend.items.get('rebound.points.a')!)).toEqual({ x: 1, y: 2 })
    // Another store over the same backend (a reload) reads the same value.
    expect(createKeyedStore(backend).slot('points', 'a', point).read()).toEqual({ x: 1, y: 2 })
  })

  it('writes under rebound.<namespace>.<key>', () => {
    const backend = memoryBackend()
    const store = createKeyedStore(backend)
    store.slot('live-run', 'run_7', z.string()).write('hi')
    expect(KEY_PREFIX).toBe('rebound.')
    expect(storageKey('live-run', 'run_7')).toBe('rebound.live-run.run_7')
    expect([...backend.items.keys()]).toEqual(['rebound.live-run.run_7'])
    expect(backend.setItem).toHaveBeenCalledWith('rebound.live-run.run_7', '"hi"')
  })

  it('reads a value that no longer matches its schema as undefined', () => {
    const backend = memoryBackend()
    const store = createKeyedStore(backend)
    store.slot('points', 'a', z.object({ x: z.string() })).write({ x: 'one' })
    expect(store.slot('points', 'a', point).read()).toBeUndefined()
    // The same entry still reads through the schema it matches: nothing was deleted.
    expect(store.slot('points', 'a', z.object({ x: z.string() })).read()).toEqual({ x: 'one' })
  })

  it('reads text that is not JSON as undefined', () => {
    const backend = memoryBackend()
    backend.items.set('rebound.points.a', '{not json')
    expect(createKeyedStore(backend).slot('points', 'a', point).read()).toBeUndefined()
  })

  it('removes the entry when written undefined', () => {
    const backend = memoryBackend()
    const store = createKeyedStore(backend)
    const slot = store.slot('points', 'a', point)
    slot.write({ x: 1, y: 2 })
    slot.write(undefined)
    expect(slot.read()).toBeUndefined()
    expect(backend.items.has('rebound.points.a')).toBe(false)
    expect(backend.removeItem).toHaveBeenCalledWith('rebound.points.a')
  })

  it('reads as absent when getItem throws', () => {
    const backend = memoryBackend()
    backend.items.set('rebound.points.a', JSON.stringify({ x: 1, y: 2 }))
    backend.getItem.mockImplementation(() => {
      throw new DOMException('Blocked.', 'SecurityError')
    })
    expect(createKeyedStore(backend).slot('points', 'a', point).read()).toBeUndefined()
  })

  describe('when setItem throws', () => {
    it('keeps the value in memory, where it still reads', () => {
      const backend = memoryBackend()
      const store = createKeyedStore(backend)
      const slot = store.slot('points', 'a', point)
      backend.fail(true)
      expect(() => slot.write({ x: 3, y: 4 })).not.toThrow()
      expect(backend.setItem).toHaveBeenCalledTimes(1)
      expect(backend.items.has('rebound.points.a')).toBe(false)
      expect(slot.read()).toEqual({ x: 3, y: 4 })
      // A second handle on the same key, from the same store, sees the memory copy too.
      expect(store.slot('points', 'a', point).read()).toEqual({ x: 3, y: 4 })
    })

    it('lets the memory copy win over an older value in the backend', () => {
      const backend = memoryBackend()
      const store = createKeyedStore(backend)
      const slot = store.slot('points', 'a', point)
      slot.write({ x: 1, y: 1 })
      backend.fail(true)
      slot.write({ x: 2, y: 2 })
      expect(backend.items.get('rebound.points.a')).toBe(JSON.stringify({ x: 1, y: 1 }))
      expect(slot.read()).toEqual({ x: 2, y: 2 })
      // A removal that fails is remembered as a removal, not as the old value.
      slot.write(undefined)
      expect(slot.read()).toBeUndefined()
    })

    it('clears the memory copy once a later write succeeds', () => {
      const backend = memoryBackend()
      const store = createKeyedStore(backend)
      const slot = store.slot('points', 'a', point)
      backend.fail(true)
      slot.write({ x: 5, y: 5 })
      backend.fail(false)
      slot.write({ x: 6, y: 6 })
      expect(backend.items.get('rebound.points.a')).toBe(JSON.stringify({ x: 6, y: 6 }))
      // The backend is read again: a change made there (another store, a reload) now shows.
      backend.items.set('rebound.points.a', JSON.stringify({ x: 7, y: 7 }))
      expect(slot.read()).toEqual({ x: 7, y: 7 })
    })
  })

  it('works in memory alone with no backend at all', () => {
    const store = createKeyedStore(undefined)
    const slot = store.slot('points', 'a', point)
    expect(slot.read()).toBeUndefined()
    slot.write({ x: 1, y: 2 })
    expect(slot.read()).toEqual({ x: 1, y: 2 })
    expect(store.slot('points', 'b', point).read()).toBeUndefined()
    slot.write(undefined)
    expect(slot.read()).toBeUndefined()
    // Each store has its own memory.
    store.slot('points', 'c', point).write({ x: 0, y: 0 })
    expect(createKeyedStore(undefined).slot('points', 'c', point).read()).toBeUndefined()
  })

  it('tells the listeners of a namespace, and only them, after each write', () => {
    const store = createKeyedStore(memoryBackend())
    const drafts = vi.fn()
    const runs = vi.fn()
    const unsubscribe = store.subscribe('draft', drafts)
    store.subscribe('live-run', runs)

    store.slot('draft', 's1', z.string()).write('hello')
    expect(drafts).toHaveBeenCalledTimes(1)
    expect(runs).not.toHaveBeenCalled()

    store.slot('draft', 's2', z.string()).write(undefined)
    expect(drafts).toHaveBeenCalledTimes(2)

    store.slot('live-run', 'r1', z.string()).write('x')
    expect(runs).toHaveBeenCalledTimes(1)
    expect(drafts).toHaveBeenCalledTimes(2)

    unsubscribe()
    store.slot('draft', 's1', z.string()).write('again')
    expect(drafts).toHaveBeenCalledTimes(2)
  })

  it('tells listeners of a write that only reached memory, with the new value readable', () => {
    const backend = memoryBackend()
    const store = createKeyedStore(backend)
    const slot = store.slot('draft', 's1', z.string())
    const seen: Array<string | undefined> = []
    store.subscribe('draft', () => seen.push(slot.read()))
    backend.fail(true)
    slot.write('typed while storage is full')
    expect(seen).toEqual(['typed while storage is full'])
  })

  it('lets a listener unsubscribe another during a notification without skipping anyone', () => {
    const store = createKeyedStore(undefined)
    const calls: string[] = []
    let stopSecond = () => {}
    store.subscribe('ns', () => {
      calls.push('first')
      stopSecond()
    })
    stopSecond = store.subscribe('ns', () => calls.push('second'))
    store.slot('ns', 'k', z.number()).write(1)
    expect(calls).toEqual(['first', 'second'])
    store.slot('ns', 'k', z.number()).write(2)
    expect(calls).toEqual(['first', 'second', 'first'])
  })
})
