/**
 * The tier 2 scheduler registry on real actors, a fake daemon client and fake timers: every rule
 * of the wire page's "The client's retry scheduler (tier 2)" that the registry keeps, one test
 * per rule. History is fed by hand, as the chat view feeds each read of it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { WakeSource } from '../../src/retry/browser'
import { CANCELLED_LIMIT, CANCELLED_NAMESPACE, createRetryScheduler } from '../../src/retry/scheduler'
import { retryView } from '../../src/retry/view'
import { createKeyedStore, storageKey } from '../../src/storage/keyed-store'
import type { CancelReceipt, Message, RegenerateReceipt } from '../../src/wire/types'
import { failedReply, SID } from './retry-fixtures'
import { memoryBackend } from './memory-backend'

const NOW = Date.UTC(2026, 6, 1, 12)
const SECOND = 1000
const MINUTE = 60 * SECOND
const CANCELLED_KEY = storageKey(CANCELLED_NAMESPACE, 'v1')

type Deferred<T> = { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void }
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

function operator(id: string, overrides: Partial<Message> = {}): Message {
  return { id, session_id: SID, role: 'operator', content: `question ${id}`, created_at: Date.now(), superseded: false, ...overrides }
}

const failed = failedReply

function reply(id: string, replyTo: string, runId: string, status: Message['status'], overrides: Partial<Message> = {}): Message {
  return { id, session_id: SID, role: 'agent', content: '', created_at: Date.now(), superseded: false, reply_to: replyTo, run_id: runId, status, ...overrides }
}

const superseded = (m: Message): Message => ({ ...m, superseded: true })

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`refused: ${code}`)
  }
}

/**
 * A scheduler over a fake client: each regenerate waits on a deferred the test settles, cancels
 * answer at once, history reads answer `history.current`. `wake` records its installs.
 */
function harness(backend = memoryBackend()) {
  const regenerates: { sessionId: string; anchorId: string; signal: AbortSignal | undefined; answer: Deferred<RegenerateReceipt> }[] = []
  const regenerate = vi.fn((sessionId: string, anchorId: string, signal?: AbortSignal) => {
    const answer = deferred<RegenerateReceipt>()
    regenerates.push({ sessionId, anchorId, signal, answer })
    return answer.promise
  })
  const cancelRun = vi.fn(async (_sessionId: string, runId: string): Promise<CancelReceipt> => ({ run_id: runId, status: 'cancelled' }))
  const history = { current: [] as Message[] }
  // The newest page: what a lost request's run is looked for in.
  const listMessagesPage = vi.fn(async (_sessionId: string, page: { limit?: number }) => ({ messages: history.current.slice(-(page.limit ?? Infinity)), has_more: history.current.length > (page.limit ?? Infinity), skipped: 0 }))
  const refreshHistory = vi.fn((_sessionId: string) => {})
  const wakeChecks: Array<() => void> = []
  const stopWake = vi.fn()
  const wake = vi.fn<WakeSource>((check) => {
    wakeChecks.push(check)
    return stopWake
  })
  const scheduler = createRetryScheduler({
    client: { regenerate, cancelRun, listMessagesPage },
    clock: { now: () => Date.now() },
    store: createKeyedStore(backend),
    refreshHistory,
    wake,
  })
  const view = (anchorId: string) => {
    const snapshot = scheduler.snapshot(SID).get(anchorId)
    return snapshot && retryView(snapshot, Date.now())
  }
  /** Accepts the newest regenerate with `runId` and lets the machine see it. */
  const accept = async (runId: string) => {
    regenerates.at(-1)!.answer.resolve({ run_id: runId, superseded: [], queued: false })
    await vi.advanceTimersByTimeAsync(0)
  }
  return { scheduler, backend, regenerate, regenerates, cancelRun, listMessagesPage, history, refreshHistory, wake, wakeChecks, stopWake, view, accept }
}

let h: ReturnType<typeof harness>

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
})

afterEach(() => {
  h?.scheduler.dispose()
  vi.useRealTimers()
})

describe('arming', () => {
  it('arms only from the failed reply at the end of the main flow', () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    expect(h.view('op1')).toEqual({ status: 'armed', attempt: 1, deadline: NOW + 2 * SECOND, remainingMs: 2 * SECOND, paused: false, refusal: null, waitingForNetwork: false })
    expect(h.scheduler.snapshot(SID).get('op1')!.context.failedMessageId).toBe('a1')
  })

  it('never arms from a failure the operator wrote after', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1'), operator('op2')])
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1'), operator('op2'), reply('a2', 'op2', 'run_a2', 'complete')])
    expect(h.scheduler.snapshot(SID).size).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })

  it('never arms from a superseded failure', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), superseded(failed('a1', 'op1'))])
    h.scheduler.feed(SID, [operator('op1'), superseded(failed('a1', 'op1')), reply('a2', 'op1', 'run_a2', 'streaming')])
    expect(h.scheduler.snapshot(SID).size).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })

  it('never arms from a cancelled run', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), reply('a1', 'op1', 'run_a1', 'cancelled')])
    expect(h.scheduler.snapshot(SID).size).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })

  it.each([
    ['a coarse failure with no classification', { retry: undefined }],
    ['a terminal class, even marked retryable', { retry: { retryable: true, retry_class: 'quota_exhausted' as const } }],
    ['the answer class', { error: { code: 'answer_empty', message: 'Empty.' }, retry: { retryable: false, retry_class: 'answer' as const } }],
    ['a transient class marked not retryable', { retry: { retryable: false, retry_class: 'overloaded' as const } }],
  ])('never arms from %s', async (_, overrides) => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1', overrides)])
    const view = h.view('op1')
    expect(view === undefined || view.status === 'idle').toBe(true)
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
    expect(h.wake).not.toHaveBeenCalled()
  })

  it('shows a wait beyond the cap as paused, still firing at that time', async () => {
    h = harness()
    const until = NOW + 50 * MINUTE
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1', { retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: until } })])
    expect(h.view('op1')).toMatchObject({ status: 'paused', paused: true, deadline: until })
    await vi.advanceTimersByTimeAsync(50 * MINUTE - 1)
    expect(h.regenerate).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
  })
})

describe('the countdown', () => {
  it('fires regenerate on the anchor at 2 s, then re-arms at 4 s after the next failure fed from history', async () => {
    h = harness()
    const first = failed('a1', 'op1')
    h.scheduler.feed(SID, [operator('op1'), first])
    await vi.advanceTimersByTimeAsync(2 * SECOND - 1)
    expect(h.regenerate).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
    expect(h.regenerate).toHaveBeenCalledWith(SID, 'op1', expect.any(AbortSignal))
    expect(h.view('op1')!.status).toBe('dispatching')

    await h.accept('run_a2')
    expect(h.view('op1')!.status).toBe('watching')
    // History still shows the run going: the scheduler keeps watching.
    h.scheduler.feed(SID, [operator('op1'), superseded(first), reply('a2', 'op1', 'run_a2', 'streaming')])
    expect(h.view('op1')!.status).toBe('watching')

    h.scheduler.feed(SID, [operator('op1'), superseded(first), failed('a2', 'op1', { run_id: 'run_a2' })])
    expect(h.view('op1')).toMatchObject({ status: 'armed', attempt: 2, deadline: Date.now() + 4 * SECOND, remainingMs: 4 * SECOND })
    await vi.advanceTimersByTimeAsync(4 * SECOND - 1)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.regenerate).toHaveBeenCalledTimes(2)
  })

  it('reads history again after an accepted regenerate', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    expect(h.refreshHistory).not.toHaveBeenCalled()
    await h.accept('run_a2')
    expect(h.refreshHistory).toHaveBeenCalledTimes(1)
    expect(h.refreshHistory).toHaveBeenCalledWith(SID)
  })

  it('settles from history: a completed retry leaves the scheduler idle', async () => {
    h = harness()
    const first = failed('a1', 'op1')
    h.scheduler.feed(SID, [operator('op1'), first])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    await h.accept('run_a2')
    h.scheduler.feed(SID, [operator('op1'), superseded(first), reply('a2', 'op1', 'run_a2', 'complete', { content: 'Hello.' })])
    expect(h.view('op1')).toMatchObject({ status: 'idle', deadline: null })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
  })

  it('settles from history: the operator stopping the retried run never arms again', async () => {
    h = harness()
    const first = failed('a1', 'op1')
    h.scheduler.feed(SID, [operator('op1'), first])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    await h.accept('run_a2')
    h.scheduler.feed(SID, [operator('op1'), superseded(first), reply('a2', 'op1', 'run_a2', 'cancelled')])
    expect(h.view('op1')!.status).toBe('cancelled')
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
  })

  it('stops in refused when the daemon refuses the regenerate (4xx)', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    h.regenerates.at(-1)!.answer.reject(new Refusal(404, 'message_not_found'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.view('op1')).toMatchObject({ status: 'refused', refusal: { status: 404, code: 'message_not_found' } })
    expect(h.refreshHistory).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).toHaveBeenCalledTimes(1)
  })

  it('waits longer and tries again when the regenerate is lost in transit (5xx)', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    h.regenerates.at(-1)!.answer.reject(new Refusal(503, 'daemon_unavailable'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.view('op1')).toMatchObject({ status: 'armed', attempt: 2, remainingMs: 4 * SECOND })
    await vi.advanceTimersByTimeAsync(4 * SECOND)
    expect(h.regenerate).toHaveBeenCalledTimes(2)
  })
})

describe('the operator', () => {
  it('writing after the failure releases an armed scheduler', async () => {
    h = harness()
    const history = [operator('op1'), failed('a1', 'op1')]
    h.scheduler.feed(SID, history)
    expect(h.view('op1')!.status).toBe('armed')
    h.scheduler.feed(SID, [...history, operator('op2')])
    expect(h.scheduler.snapshot(SID).has('op1')).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })

  it('retry now dispatches at once, before the deadline', () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    h.scheduler.retryNow(SID, 'op1')
    expect(h.regenerate).toHaveBeenCalledTimes(1)
    expect(h.view('op1')!.status).toBe('dispatching')
  })

  it('retry now and cancel on an anchor with no scheduler do nothing', () => {
    h = harness()
    h.scheduler.retryNow(SID, 'op1')
    h.scheduler.cancel('ses_none', 'op1')
    expect(h.regenerate).not.toHaveBeenCalled()
    expect(h.scheduler.snapshot(SID).size).toBe(0)
  })

  it('cancel while armed stops the countdown and remembers the failure', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    h.scheduler.cancel(SID, 'op1')
    expect(h.view('op1')!.status).toBe('cancelled')
    expect(JSON.parse(h.backend.items.get(CANCELLED_KEY)!)).toEqual(['a1'])
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
    expect(h.cancelRun).not.toHaveBeenCalled()
  })

  it('cancel after the regenerate was accepted revokes that run (cancelRun with its run id)', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    await h.accept('run_a2')
    h.scheduler.cancel(SID, 'op1')
    await vi.advanceTimersByTimeAsync(0)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
    expect(h.cancelRun).toHaveBeenCalledWith(SID, 'run_a2')
    expect(h.listMessagesPage).not.toHaveBeenCalled()
    expect(h.view('op1')!.status).toBe('cancelled')
    expect(h.scheduler.snapshot(SID).get('op1')!.context.runId).toBe('run_a2')
  })

  it('cancel while dispatching aborts the request and cancels the stray run it started', async () => {
    h = harness()
    const first = failed('a1', 'op1')
    h.scheduler.feed(SID, [operator('op1'), first])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    const request = h.regenerates.at(-1)!
    // The daemon accepted the request, but its answer has not arrived.
    h.history.current = [operator('op1'), superseded(first), reply('a2', 'op1', 'run_stray', 'queued')]
    h.scheduler.cancel(SID, 'op1')
    expect(request.signal!.aborted).toBe(true)
    await vi.advanceTimersByTimeAsync(0)
    expect(h.listMessagesPage).toHaveBeenCalledWith(SID, { limit: 100 }, undefined)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
    expect(h.cancelRun).toHaveBeenCalledWith(SID, 'run_stray')
    // This tab never followed that run: history is read again so the transcript shows it.
    expect(h.refreshHistory).toHaveBeenCalledWith(SID)
    expect(h.view('op1')!.status).toBe('cancelled')

    // The accepted answer arriving late changes nothing.
    request.answer.resolve({ run_id: 'run_stray', superseded: ['a1'], queued: false })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.view('op1')!.status).toBe('cancelled')
    expect(h.regenerate).toHaveBeenCalledTimes(1)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
  })

  it('cancel while dispatching cancels nothing when history shows no stray run', async () => {
    h = harness()
    const history = [operator('op1'), failed('a1', 'op1')]
    h.history.current = history
    h.scheduler.feed(SID, history)
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    h.scheduler.cancel(SID, 'op1')
    await vi.advanceTimersByTimeAsync(0)
    expect(h.listMessagesPage).toHaveBeenCalledTimes(1)
    expect(h.cancelRun).not.toHaveBeenCalled()
    expect(h.refreshHistory).not.toHaveBeenCalled()
    expect(h.view('op1')!.status).toBe('cancelled')
  })

  it('a cancelled failure never re-arms when the same history is read again', async () => {
    h = harness()
    const history = [operator('op1'), failed('a1', 'op1')]
    h.scheduler.feed(SID, history)
    h.scheduler.cancel(SID, 'op1')
    h.scheduler.feed(SID, history)
    h.scheduler.feed(SID, history)
    expect(h.view('op1')!.status).toBe('cancelled')
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })

  it('a cancelled failure is remembered across a reload (a new scheduler over the same storage) and never re-arms', async () => {
    const backend = memoryBackend()
    const history = [operator('op1'), failed('a1', 'op1')]
    const before = harness(backend)
    before.scheduler.feed(SID, history)
    before.scheduler.cancel(SID, 'op1')
    before.scheduler.dispose()

    h = harness(backend)
    h.scheduler.feed(SID, history)
    const view = h.view('op1')
    expect(view === undefined || view.status === 'idle').toBe(true)
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
    expect(before.regenerate).not.toHaveBeenCalled()
  })

  it('a newer failure of the same anchor after a cancel arms again (the cancel is of one failure)', () => {
    h = harness()
    const first = failed('a1', 'op1')
    h.scheduler.feed(SID, [operator('op1'), first])
    h.scheduler.cancel(SID, 'op1')
    vi.setSystemTime(NOW + MINUTE)
    h.scheduler.feed(SID, [operator('op1'), superseded(first), failed('a2', 'op1')])
    expect(h.view('op1')).toMatchObject({ status: 'armed', attempt: 1 })
  })

  it(`remembers at most CANCELLED_LIMIT (${CANCELLED_LIMIT}) cancelled failures, dropping the oldest`, () => {
    const backend = memoryBackend()
    const older = Array.from({ length: CANCELLED_LIMIT }, (_, i) => `old_${i}`)
    createKeyedStore(backend).slot(CANCELLED_NAMESPACE, 'v1', z.array(z.string())).write(older)
    h = harness(backend)
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    h.scheduler.cancel(SID, 'op1')
    const kept = JSON.parse(backend.items.get(CANCELLED_KEY)!) as string[]
    expect(kept).toHaveLength(CANCELLED_LIMIT)
    expect(kept.at(-1)).toBe('a1')
    expect(kept[0]).toBe('old_1')
    expect(kept).not.toContain('old_0')
  })

  it('dismiss forgets the anchor’s scheduler and its countdown', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    const listener = vi.fn()
    h.scheduler.subscribe(SID, listener)
    h.scheduler.dismiss(SID, 'op1')
    expect(h.scheduler.snapshot(SID).has('op1')).toBe(false)
    expect(listener).toHaveBeenCalled()
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })
})

describe('lifetime', () => {
  it('release stops the session’s timers (vi.getTimerCount() back to 0)', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    h.scheduler.feed('ses_2', [operator('op9', { session_id: 'ses_2' }), failed('a9', 'op9', { session_id: 'ses_2' })])
    expect(vi.getTimerCount()).toBe(2)
    h.scheduler.release(SID)
    expect(vi.getTimerCount()).toBe(1)
    expect(h.scheduler.snapshot(SID).size).toBe(0)
    h.scheduler.release('ses_2')
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).not.toHaveBeenCalled()
  })

  it('release aborts a regenerate in flight', async () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    h.scheduler.release(SID)
    expect(h.regenerates.at(-1)!.signal!.aborted).toBe(true)
  })

  it('installs wake listeners only while a scheduler is armed, and removes them after', async () => {
    h = harness()
    const history = [operator('op1'), failed('a1', 'op1')]
    expect(h.wake).not.toHaveBeenCalled()
    h.scheduler.feed(SID, history)
    expect(h.wake).toHaveBeenCalledTimes(1)
    h.scheduler.feed(SID, history)
    expect(h.wake).toHaveBeenCalledTimes(1)
    expect(h.stopWake).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    // Dispatching: nothing waits on the clock.
    expect(h.stopWake).toHaveBeenCalledTimes(1)
    await h.accept('run_a2')
    expect(h.wake).toHaveBeenCalledTimes(1)
    h.scheduler.feed(SID, [operator('op1'), superseded(history[1]!), failed('a2', 'op1', { run_id: 'run_a2' })])
    expect(h.wake).toHaveBeenCalledTimes(2)
    h.scheduler.release(SID)
    expect(h.stopWake).toHaveBeenCalledTimes(2)
  })

  it('a wake-up sends clock.check: an overdue attempt fires at once, an early one waits', () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    const check = h.wakeChecks.at(-1)!
    // The page slept: the clock moved on and the timer has not fired.
    vi.setSystemTime(NOW + SECOND)
    check()
    expect(h.regenerate).not.toHaveBeenCalled()
    expect(h.view('op1')!.status).toBe('armed')
    vi.setSystemTime(NOW + 5 * SECOND)
    check()
    expect(h.regenerate).toHaveBeenCalledTimes(1)
    expect(h.view('op1')!.status).toBe('dispatching')
  })

  it('dispose stops every session’s machines and the wake listeners', () => {
    h = harness()
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    h.scheduler.dispose()
    expect(vi.getTimerCount()).toBe(0)
    expect(h.stopWake).toHaveBeenCalledTimes(1)
    expect(h.scheduler.snapshot(SID).size).toBe(0)
  })
})

describe('snapshots', () => {
  it('hands out the same empty map for a session with no scheduler', () => {
    h = harness()
    expect(h.scheduler.snapshot(SID)).toBe(h.scheduler.snapshot('ses_other'))
    h.scheduler.feed(SID, [operator('op1')])
    expect(h.scheduler.snapshot(SID).size).toBe(0)
  })

  it('hands out the same map until a scheduler changes, then a new one, and tells subscribers', async () => {
    h = harness()
    const listener = vi.fn()
    const unsubscribe = h.scheduler.subscribe(SID, listener)
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    const armed = h.scheduler.snapshot(SID)
    expect(listener).toHaveBeenCalled()
    expect(h.scheduler.snapshot(SID)).toBe(armed)
    // The countdown passing changes no state.
    await vi.advanceTimersByTimeAsync(SECOND)
    expect(h.scheduler.snapshot(SID)).toBe(armed)

    const calls = listener.mock.calls.length
    h.scheduler.retryNow(SID, 'op1')
    expect(h.scheduler.snapshot(SID)).not.toBe(armed)
    expect(h.scheduler.snapshot(SID).get('op1')!.matches('dispatching')).toBe(true)
    expect(listener.mock.calls.length).toBeGreaterThan(calls)

    unsubscribe()
    const after = listener.mock.calls.length
    h.scheduler.cancel(SID, 'op1')
    expect(listener.mock.calls.length).toBe(after)
  })

  it('keeps the other session’s map when one session changes', () => {
    h = harness()
    h.scheduler.feed('ses_2', [operator('op9', { session_id: 'ses_2' }), failed('a9', 'op9', { session_id: 'ses_2' })])
    const other = h.scheduler.snapshot('ses_2')
    h.scheduler.feed(SID, [operator('op1'), failed('a1', 'op1')])
    expect(h.scheduler.snapshot('ses_2')).toBe(other)
  })
})
