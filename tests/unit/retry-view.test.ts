/**
 * The UI's view of a tier 2 scheduler, on snapshots of a real actor under fake timers: the status
 * (paused and held included), whether the scheduler owns the anchor, and which reply a status belongs to.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { belongsTo, isCancellable, isWaiting, retryView, type RetryStatus } from '../../src/retry/view'
import { MINUTE, NOW, SECOND, snapshotIn } from './retry-actor'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
})

afterEach(() => {
  vi.useRealTimers()
})

describe('retryView', () => {
  it('is idle before any failure, with nothing counting down', async () => {
    const { h } = await snapshotIn('idle')
    expect(h.view()).toEqual({ status: 'idle', attempt: 1, deadline: null, remainingMs: 0, paused: false, refusal: null, waitingForNetwork: false })
  })

  it('is armed with a countdown derived from the deadline and the clock', async () => {
    const { h } = await snapshotIn('armed')
    expect(h.view()).toEqual({ status: 'armed', attempt: 1, deadline: NOW + 2 * SECOND, remainingMs: 2 * SECOND, paused: false, refusal: null, waitingForNetwork: false })
    expect(retryView(h.snapshot(), NOW + 1500)).toMatchObject({ remainingMs: 500 })
    // Past the deadline it never goes negative.
    expect(retryView(h.snapshot(), NOW + 10 * SECOND)).toMatchObject({ remainingMs: 0 })
  })

  it('is paused when the wait is beyond the cap (retry after HH:MM)', async () => {
    const { h } = await snapshotIn('paused')
    expect(h.view()).toEqual({ status: 'paused', attempt: 1, deadline: NOW + 50 * MINUTE, remainingMs: 50 * MINUTE, paused: true, refusal: null, waitingForNetwork: false })
  })

  it('is dispatching while the regenerate is in flight, with no deadline', async () => {
    const { h } = await snapshotIn('dispatching')
    expect(h.view()).toEqual({ status: 'dispatching', attempt: 1, deadline: null, remainingMs: 0, paused: false, refusal: null, waitingForNetwork: false })
  })

  it('is watching once the regenerate was accepted', async () => {
    const { h } = await snapshotIn('watching')
    expect(h.view()).toMatchObject({ status: 'watching', deadline: null, remainingMs: 0 })
  })

  it('is cancelled after the operator cancels', async () => {
    const { h } = await snapshotIn('cancelled')
    expect(h.view()).toMatchObject({ status: 'cancelled', deadline: null, paused: false })
  })

  it('is refused with the refusal to word', async () => {
    const { h } = await snapshotIn('refused')
    expect(h.view()).toMatchObject({ status: 'refused', refusal: { status: 422, code: 'not_operator_message' }, deadline: null })
  })

  it('is held, with no deadline and the write tools Retry now would run again', async () => {
    const { h } = await snapshotIn('held')
    expect(h.view()).toEqual({ status: 'held', attempt: 1, deadline: null, remainingMs: 0, paused: false, refusal: null, waitingForNetwork: false, rerun: ['write_file'] })
    // Nothing counts down, however late it is read.
    expect(retryView(h.snapshot(), NOW + 10 * MINUTE)).toMatchObject({ status: 'held', deadline: null, remainingMs: 0 })
  })

  it('held is waiting (Retry now applies) and cancellable, as a countdown is', () => {
    expect(isWaiting('held')).toBe(true)
    expect(isCancellable('held')).toBe(true)
  })

  it('isCancellable holds while the scheduler owns the anchor', () => {
    const owned: RetryStatus[] = ['armed', 'paused', 'dispatching', 'watching']
    for (const status of ['idle', 'armed', 'paused', 'dispatching', 'watching', 'cancelled', 'refused'] as const) {
      expect(isCancellable(status)).toBe(owned.includes(status))
    }
  })
})

describe('belongsTo', () => {
  const other = { id: 'reply_other', run_id: 'run_other' }

  it('idle belongs to no reply', async () => {
    const { h, failed } = await snapshotIn('idle')
    expect(belongsTo(h.snapshot(), failed)).toBe(false)
    expect(belongsTo(h.snapshot(), other)).toBe(false)
  })

  it.each(['armed', 'paused', 'held'] as const)('%s belongs to the failed reply that armed it', async (status) => {
    const { h } = await snapshotIn(status)
    const failedId = h.snapshot().context.failedMessageId!
    expect(belongsTo(h.snapshot(), { id: failedId, run_id: `run_${failedId}` })).toBe(true)
    expect(belongsTo(h.snapshot(), other)).toBe(false)
  })

  it('watching belongs to the reply of the run in flight, and to the failed reply until history supersedes it', async () => {
    const { h, failed } = await snapshotIn('watching')
    expect(belongsTo(h.snapshot(), { id: 'reply_new', run_id: 'run_next' })).toBe(true)
    // From the receipt to the next history read the failed reply is still the anchor's latest.
    expect(belongsTo(h.snapshot(), failed)).toBe(true)
    expect(belongsTo(h.snapshot(), { ...failed, superseded: true })).toBe(false)
    expect(belongsTo(h.snapshot(), { id: 'reply_new' } as { id: string; run_id?: string })).toBe(false)
  })

  it.each(['dispatching', 'cancelled', 'refused'] as const)('%s belongs to whichever reply is shown', async (status) => {
    const { h, failed } = await snapshotIn(status)
    expect(belongsTo(h.snapshot(), failed)).toBe(true)
    expect(belongsTo(h.snapshot(), other)).toBe(true)
  })
})
