/**
 * Rules of the React-free core found while testing it, each kept by a test of its own:
 *
 * 1. The scheduler's session map stays the same object when an event changed nothing.
 * 2. An operator's cancel sticks when the retried run failed before the cancel reached it:
 *    leaving the session (or reloading) and coming back does not arm tier 2 from that failure.
 * 3. A cancel during dispatching sticks when the run the daemon accepted has already failed by
 *    the time the stray-run search reads history.
 * 4. The run follower forgets the live record of a run it finished when the session is released,
 *    even before history recorded the end.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLiveRunStore } from '../../src/live/live-runs'
import { createRunFollower } from '../../src/live/run-follower'
import { followProbe } from './follow-probe'
import type { WakeSource } from '../../src/retry/browser'
import { createRetryScheduler } from '../../src/retry/scheduler'
import { retryView } from '../../src/retry/view'
import { createKeyedStore } from '../../src/storage/keyed-store'
import type { CancelReceipt, Message, RegenerateReceipt } from '../../src/wire/types'
import { failedReply, SID } from './retry-fixtures'
import { memoryBackend } from './memory-backend'

const NOW = Date.UTC(2026, 6, 1, 12)
const SECOND = 1000
const MINUTE = 60 * SECOND

function operator(id: string): Message {
  return { id, session_id: SID, role: 'operator', content: `question ${id}`, created_at: Date.now(), superseded: false }
}

const failed = failedReply

const superseded = (m: Message): Message => ({ ...m, superseded: true })

function schedulerHarness(backend = memoryBackend()) {
  const pending: Array<(receipt: RegenerateReceipt) => void> = []
  const regenerate = vi.fn((_sid: string, _anchor: string, _signal?: AbortSignal) => new Promise<RegenerateReceipt>((resolve) => pending.push(resolve)))
  // Cancelling an ended run is not an error: the daemon answers with its final status.
  const cancelRun = vi.fn(async (_sid: string, runId: string): Promise<CancelReceipt> => ({ run_id: runId, status: 'failed' }))
  const history = { current: [] as Message[] }
  const listMessagesPage = vi.fn(async (_sid: string) => ({ messages: history.current, has_more: false, skipped: 0 }))
  let check = () => {}
  const wake: WakeSource = (c) => {
    check = c
    return () => {}
  }
  const scheduler = createRetryScheduler({
    client: { regenerate, cancelRun, listMessagesPage },
    clock: { now: () => Date.now() },
    store: createKeyedStore(backend),
    refreshHistory: () => {},
    wake,
  })
  return {
    scheduler,
    regenerate,
    cancelRun,
    history,
    wakeUp: () => check(),
    status: (anchorId: string) => {
      const snapshot = scheduler.snapshot(SID).get(anchorId)
      return snapshot ? retryView(snapshot, Date.now()).status : undefined
    },
    accept: async (runId: string) => {
      pending.at(-1)!({ run_id: runId, superseded: [], queued: false })
      await vi.advanceTimersByTimeAsync(0)
    },
  }
}

const schedulers: Array<{ dispose(): void }> = []
const track = <T extends { scheduler: { dispose(): void } }>(h: T): T => {
  schedulers.push(h.scheduler)
  return h
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
})

afterEach(() => {
  for (const scheduler of schedulers.splice(0)) scheduler.dispose()
  vi.useRealTimers()
})

describe('the scheduler snapshot is stable when nothing changed', () => {
  it('hands out the same map when the same history is read again', () => {
    const h = track(schedulerHarness())
    const history = [operator('op1'), failed('a1', 'op1')]
    h.scheduler.feed(SID, history)
    const armed = h.scheduler.snapshot(SID)
    const listener = vi.fn()
    h.scheduler.subscribe(SID, listener)

    h.scheduler.feed(SID, history)

    // The anchor's own snapshot is the same object; the map around it should be too.
    expect(h.scheduler.snapshot(SID).get('op1')).toBe(armed.get('op1'))
    expect(h.scheduler.snapshot(SID)).toBe(armed)
    expect(listener).not.toHaveBeenCalled()
  })

  it('hands out the same map after a wake-up before the deadline', () => {
    const h = track(schedulerHarness())
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    const armed = h.scheduler.snapshot(SID)
    vi.setSystemTime(NOW + SECOND)
    h.wakeUp()
    expect(h.status('op1')).toBe('armed')
    expect(h.scheduler.snapshot(SID)).toBe(armed)
  })
})

describe('a cancel that reached a run which had already failed survives leaving the session', () => {
  /** Arms from a1, regenerates, the new run a2 fails, and the operator cancels before history shows it. */
  async function cancelledAfterRetryFailed(h: ReturnType<typeof schedulerHarness>) {
    const first = failed('a1', 'op1')
    h.scheduler.feed(SID, [operator('op1'), first])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    await h.accept('run_a2')
    h.scheduler.cancel(SID, 'op1')
    await vi.advanceTimersByTimeAsync(0)
    expect(h.cancelRun).toHaveBeenCalledWith(SID, 'run_a2')
    vi.setSystemTime(Date.now() + SECOND)
    // The run had failed before the cancel reached it.
    const after = [operator('op1'), superseded(first), failed('a2', 'op1', { run_id: 'run_a2', created_at: NOW + 2 * SECOND })]
    h.scheduler.feed(SID, after)
    // In this tab the cancel holds (the machine knows the cancelled run)...
    expect(h.status('op1')).toBe('cancelled')
    return after
  }

  it('stays cancelled after the session is left and entered again', async () => {
    const h = track(schedulerHarness())
    const after = await cancelledAfterRetryFailed(h)
    h.scheduler.release(SID)
    h.scheduler.feed(SID, after)
    expect(h.status('op1') ?? 'idle').not.toBe('armed')
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
  })

  it('stays cancelled after a reload (a new scheduler over the same storage)', async () => {
    const backend = memoryBackend()
    const before = track(schedulerHarness(backend))
    const after = await cancelledAfterRetryFailed(before)
    before.scheduler.dispose()

    const h = track(schedulerHarness(backend))
    h.scheduler.feed(SID, after)
    expect(h.status('op1') ?? 'idle').not.toBe('armed')
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })
})

describe('a cancel during dispatching sticks when the accepted run already failed', () => {
  it('never arms from the failure of the run the cancelled request started', async () => {
    const h = track(schedulerHarness())
    const first = failed('a1', 'op1')
    h.scheduler.feed(SID, [operator('op1'), first])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    expect(h.regenerate).toHaveBeenCalledTimes(1)

    // The daemon accepted the regenerate and its run failed at once (rate limited before the
    // first delta); the receipt is still on its way when the operator cancels.
    vi.setSystemTime(Date.now() + 100)
    const stray = failed('a2', 'op1', { run_id: 'run_stray' })
    h.history.current = [operator('op1'), superseded(first), stray]
    h.scheduler.cancel(SID, 'op1')
    await vi.advanceTimersByTimeAsync(0)
    expect(h.status('op1')).toBe('cancelled')

    // The next read of history shows that failure at the tail.
    h.scheduler.feed(SID, h.history.current)
    expect(h.status('op1')).toBe('cancelled')
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
  })
})

describe('a finished run’s live record goes with a release', () => {
  it('forgets the live record once history records the end, also after the session was left and entered again', async () => {
    const encoder = new TextEncoder()
    const body = 'id: 1\nevent: start\ndata: {"message_id":"msg_a"}\n\nid: 2\nevent: delta\ndata: {"text":"Hi."}\n\nid: 3\nevent: done\ndata: {"message_id":"msg_a"}\n\n'
    const client = {
      openEvents: vi.fn(async () => new Response(new ReadableStream({ start: (c) => (c.enqueue(encoder.encode(body)), c.close()) }), { headers: { 'content-type': 'text/event-stream' } })),
    }
    const live = createLiveRunStore({ store: createKeyedStore(undefined), schedule: (flush) => (queueMicrotask(flush), () => {}) })
    const refreshHistory = vi.fn(async () => {})
    const probe = followProbe(refreshHistory)
    const follower = createRunFollower({ client, live, refreshHistory: probe.refreshHistory, follow: probe.follow })
    const reply: Message = { id: 'msg_a', session_id: SID, role: 'agent', content: '', created_at: NOW, superseded: false, reply_to: 'op1', run_id: 'run_a', status: 'streaming' }

    follower.watch(SID, [operator('op1'), reply])
    await vi.waitFor(() => expect(probe.following('run_a')).toBe(false))
    expect(live.get('run_a')).toMatchObject({ status: 'complete', content: 'Hi.' })

    // The operator leaves before the history read that records the end comes in, then returns.
    follower.release(SID)
    follower.watch(SID, [operator('op1'), { ...reply, status: 'complete', content: 'Hi.' }])
    expect(live.get('run_a')).toBeUndefined()
  })
})
