import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise } from 'xstate'
import type { InspectionEvent } from 'xstate'
import {
  MAX_TIMER_MS,
  fromRegenerate,
  retryMachine,
  type CancelAcceptedInput,
  type CancelAcceptedOutput,
  type RegenerateInput,
  type RetryEvent,
  type RetryInput,
} from '../../src/retry/machine'
import { retryView } from '../../src/retry/view'
import type { Message, RegenerateReceipt } from '../../src/wire/types'

const NOW = Date.UTC(2026, 6, 1, 12, 0, 0)
const SECOND = 1000
const MINUTE = 60 * SECOND
const YEAR = 365 * 24 * 60 * MINUTE
const ANCHOR = 'anchor-1'
const SESSION = 'session-1'

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

let created = 0

/** A failed agent reply to the anchor, newer than every reply made before it. */
function failure(overrides: Partial<Message> = {}): Message {
  created += 1
  const id = overrides.id ?? `reply-${created}`
  return {
    id,
    session_id: SESSION,
    role: 'agent',
    content: '',
    created_at: NOW + created,
    superseded: false,
    reply_to: ANCHOR,
    run_id: `run-of-${id}`,
    status: 'failed',
    error: { code: 'model_rate_limited', message: 'Rate limited.' },
    retry: { retryable: true, retry_class: 'rate_limited' },
    ...overrides,
  }
}

function reply(runId: string, status: 'complete' | 'cancelled'): Message {
  created += 1
  return {
    id: `reply-${created}`,
    session_id: SESSION,
    role: 'agent',
    content: status === 'complete' ? 'Hello.' : '',
    created_at: NOW + created,
    superseded: false,
    reply_to: ANCHOR,
    run_id: runId,
    status,
  }
}

function receipt(runId: string): RegenerateReceipt {
  return { run_id: runId, superseded: [], queued: false }
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`refused: ${code}`)
  }
}

function start(extra: Partial<RetryInput> = {}) {
  const regenerate: { input: RegenerateInput; signal: AbortSignal; answer: Deferred<RegenerateReceipt> }[] = []
  const cancels: { input: CancelAcceptedInput; answer: Deferred<CancelAcceptedOutput> }[] = []
  const machine = retryMachine.provide({
    actors: {
      regenerate: fromRegenerate((input, signal) => {
        const answer = deferred<RegenerateReceipt>()
        regenerate.push({ input, signal, answer })
        return answer.promise
      }),
      cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(({ input }) => {
        const answer = deferred<CancelAcceptedOutput>()
        cancels.push({ input, answer })
        return answer.promise
      }),
    },
  })
  const actor = createActor(machine, {
    input: { anchorId: ANCHOR, sessionId: SESSION, clock: { now: () => Date.now() }, ...extra },
  }).start()
  const send = (event: RetryEvent) => actor.send(event)
  const snapshot = () => actor.getSnapshot()
  const view = () => retryView(actor.getSnapshot(), Date.now())
  return { actor, send, snapshot, view, regenerate, cancels }
}

/** Resolves the newest regenerate request and lets the machine see it. */
async function accept(harness: ReturnType<typeof start>, runId: string) {
  harness.regenerate.at(-1)!.answer.resolve(receipt(runId))
  await vi.advanceTimersByTimeAsync(0)
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
})

afterEach(() => {
  vi.useRealTimers()
})

describe('arming', () => {
  it('arms at attempt 1 with a 2 s countdown from a transient, retryable failure', () => {
    const h = start()
    const failed = failure()
    h.send({ type: 'failure.observed', message: failed })

    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context).toMatchObject({
      attempt: 1,
      generation: 1,
      deadline: NOW + 2 * SECOND,
      paused: false,
      failedMessageId: failed.id,
    })
    expect(h.view()).toEqual({
      status: 'armed',
      attempt: 1,
      deadline: NOW + 2 * SECOND,
      remainingMs: 2 * SECOND,
      paused: false,
      refusal: null,
      waitingForNetwork: false,
    })
  })

  it.each([
    ['a cancelled run', { status: 'cancelled' as const, retry: undefined, error: undefined }],
    ['a superseded reply', { superseded: true }],
    ['a coarse failure with no classification', { retry: undefined }],
    ['a terminal class marked retryable', { retry: { retryable: true, retry_class: 'quota_exhausted' } }],
    ['an unknown class', { retry: { retryable: true, retry_class: 'solar_flare' } }],
    ['a transient class marked not retryable', { retry: { retryable: false, retry_class: 'overloaded' } }],
    ['a reply to another anchor', { reply_to: 'anchor-2' }],
  ])('stays idle for %s', (_, overrides) => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure(overrides) })
    expect(h.snapshot().value).toBe('idle')
    expect(vi.getTimerCount()).toBe(0)
  })

  it('never arms twice from the same failure, nor from an older one', async () => {
    const h = start()
    const older = failure()
    const failed = failure()
    h.send({ type: 'failure.observed', message: failed })
    h.send({ type: 'retry.cancel' })
    h.send({ type: 'failure.observed', message: failed })
    h.send({ type: 'failure.observed', message: older })

    expect(h.snapshot().value).toEqual({ cancelled: 'quiet' })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.regenerate).toHaveLength(0)
  })

  it('re-arms from idle, cancelled and refused at attempt 1 when a newer failure arrives', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.cancel' })
    h.send({ type: 'failure.observed', message: failure() })
    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context).toMatchObject({ attempt: 1, generation: 2 })

    h.send({ type: 'retry.now' })
    h.regenerate.at(-1)!.answer.reject(new Refusal(404, 'message_not_found'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toBe('refused')
    h.send({ type: 'failure.observed', message: failure() })
    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context).toMatchObject({ attempt: 1, generation: 3, lastError: null })
  })

  it('starts over at attempt 1 when a newer failure arrives while armed', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    await vi.advanceTimersByTimeAsync(SECOND)
    const newer = failure()
    h.send({ type: 'failure.observed', message: newer })

    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context).toMatchObject({ attempt: 1, generation: 2, failedMessageId: newer.id })
    // The countdown restarts from the new failure: the old timer must not fire at NOW + 2 s.
    await vi.advanceTimersByTimeAsync(2 * SECOND - 1)
    expect(h.regenerate).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.regenerate).toHaveLength(1)
  })
})

describe('the countdown', () => {
  it('fires exactly at the deadline, not a millisecond before', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })

    await vi.advanceTimersByTimeAsync(2 * SECOND - 1)
    expect(h.snapshot().value).toBe('armed')
    expect(h.view().remainingMs).toBe(1)
    expect(h.regenerate).toHaveLength(0)

    await vi.advanceTimersByTimeAsync(1)
    expect(h.snapshot().value).toBe('dispatching')
    expect(h.regenerate).toHaveLength(1)
    expect(h.regenerate[0]!.input).toMatchObject({ sessionId: SESSION, anchorId: ANCHOR, generation: 1, attempt: 1 })
    expect(h.snapshot().context.dispatchedAt).toBe(NOW + 2 * SECOND)
  })

  it('honours retry_after_until: a 45 s wait is still a ticking countdown', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure({ retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 45 * SECOND } }) })
    expect(h.view()).toMatchObject({ status: 'armed', deadline: NOW + 45 * SECOND, paused: false })

    await vi.advanceTimersByTimeAsync(45 * SECOND - 1)
    expect(h.regenerate).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.regenerate).toHaveLength(1)
  })

  it('retry.now skips the wait', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    expect(h.snapshot().value).toBe('dispatching')
    expect(h.regenerate).toHaveLength(1)
  })

  it('clock.check before the deadline changes nothing', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    await vi.advanceTimersByTimeAsync(SECOND)
    h.send({ type: 'clock.check' })
    expect(h.snapshot().value).toBe('armed')
    expect(h.regenerate).toHaveLength(0)
  })

  it('clock.check after the tab slept fires the overdue retry at once', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    // The laptop lid closes: the wall clock moves on, the timer does not fire.
    vi.setSystemTime(NOW + 10 * MINUTE)
    expect(h.snapshot().value).toBe('armed')
    expect(h.view().remainingMs).toBe(0)

    h.send({ type: 'clock.check' })
    expect(h.snapshot().value).toBe('dispatching')
    expect(h.regenerate).toHaveLength(1)
  })

  it('a timer that fires early waits again for what is left', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    // The wall clock runs a second behind the timer.
    vi.setSystemTime(NOW - SECOND)
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    expect(h.snapshot().value).toBe('armed')
    expect(h.regenerate).toHaveLength(0)

    await vi.advanceTimersByTimeAsync(SECOND)
    expect(h.snapshot().value).toBe('dispatching')
  })
})

describe('the paused countdown', () => {
  it('shows "retry after" for a 50 minute quota and fires at that time', async () => {
    const h = start()
    const until = NOW + 50 * MINUTE
    h.send({ type: 'failure.observed', message: failure({ retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: until } }) })

    expect(h.view().status).toBe('paused')
    expect(h.view()).toMatchObject({ status: 'paused', paused: true, deadline: until })

    await vi.advanceTimersByTimeAsync(50 * MINUTE - 1)
    expect(h.view().status).toBe('paused')
    expect(h.regenerate).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.snapshot().value).toBe('dispatching')
    expect(h.regenerate).toHaveLength(1)
  })

  it('retry.now skips a paused wait', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure({ retry: { retryable: true, retry_class: 'overloaded', retry_after_until: NOW + 2 * 3_600_000 } }) })
    h.send({ type: 'retry.now' })
    expect(h.snapshot().value).toBe('dispatching')
  })

  it('clock.check after a sleep past a paused deadline fires at once', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure({ retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 50 * MINUTE } }) })
    vi.setSystemTime(NOW + 3 * 3_600_000)
    h.send({ type: 'clock.check' })
    expect(h.snapshot().value).toBe('dispatching')
  })

  it('waits for a deadline years away without overflowing setTimeout, and fires then', async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout')
    const h = start()
    const until = NOW + 3 * YEAR
    h.send({ type: 'failure.observed', message: failure({ retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: until } }) })

    expect(h.view().status).toBe('paused')
    // An overflowing delay would fire at once; a capped one leaves the machine waiting.
    await vi.advanceTimersByTimeAsync(MINUTE)
    expect(h.view().status).toBe('paused')
    expect(vi.getTimerCount()).toBe(1)

    await vi.advanceTimersByTimeAsync(until - Date.now() - 1)
    expect(h.view().status).toBe('paused')
    expect(h.regenerate).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.snapshot().value).toBe('dispatching')

    const delays = setTimeoutSpy.mock.calls.map(([, ms]) => ms ?? 0)
    expect(delays.length).toBeGreaterThan(1)
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_TIMER_MS)
  })
})

describe('cancel', () => {
  it('from armed: nothing more is sent, ever', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.cancel' })

    expect(h.view().status).toBe('cancelled')
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(0)
    expect(h.cancels).toHaveLength(0)
  })

  it('from paused: nothing more is sent, ever', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure({ retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 50 * MINUTE } }) })
    h.send({ type: 'retry.cancel' })

    expect(h.view().status).toBe('cancelled')
    await vi.advanceTimersByTimeAsync(2 * 3_600_000)
    expect(h.regenerate).toHaveLength(0)
    expect(h.cancels).toHaveLength(0)
  })

  it('from dispatching: aborts the request and revokes whatever the daemon accepted', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    const request = h.regenerate[0]!
    expect(request.signal.aborted).toBe(false)

    h.send({ type: 'retry.cancel' })
    expect(request.signal.aborted).toBe(true)
    expect(h.snapshot().value).toEqual({ cancelled: 'revoking' })
    expect(h.cancels).toHaveLength(1)
    expect(h.cancels[0]!.input).toEqual({ sessionId: SESSION, anchorId: ANCHOR, runId: undefined, dispatchedAt: NOW })

    // The daemon had accepted it after all; the late receipt changes nothing.
    request.answer.resolve(receipt('run-late'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toEqual({ cancelled: 'revoking' })

    h.cancels[0]!.answer.resolve({ runId: 'run-late' })
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toEqual({ cancelled: 'quiet' })
    expect(h.snapshot().context.runId).toBe('run-late')

    // That run failing before the cancel landed must not arm again.
    h.send({ type: 'failure.observed', message: failure({ run_id: 'run-late' }) })
    expect(h.snapshot().value).toEqual({ cancelled: 'quiet' })
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(1)
    expect(h.cancels).toHaveLength(1)
  })

  it('from watching: cancels the accepted run by its id', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    await accept(h, 'run-2')
    expect(h.snapshot().value).toBe('watching')
    expect(h.snapshot().context.runId).toBe('run-2')

    h.send({ type: 'retry.cancel' })
    expect(h.cancels).toHaveLength(1)
    expect(h.cancels[0]!.input).toEqual({ sessionId: SESSION, anchorId: ANCHOR, runId: 'run-2', dispatchedAt: NOW })

    h.cancels[0]!.answer.resolve(undefined)
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toEqual({ cancelled: 'quiet' })
    expect(h.snapshot().context.runId).toBe('run-2')
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(1)
  })

  it('arms from nothing while revoking; once revoked, only a failure of another run arms', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    h.send({ type: 'retry.cancel' })
    const byHand = failure({ run_id: 'run-by-hand' })
    h.send({ type: 'failure.observed', message: byHand })
    expect(h.snapshot().value).toEqual({ cancelled: 'revoking' })

    h.cancels[0]!.answer.resolve({ runId: 'run-cancelled' })
    await vi.advanceTimersByTimeAsync(0)
    // The hook reports the transcript's latest failure again.
    h.send({ type: 'failure.observed', message: byHand })
    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context).toMatchObject({ attempt: 1, generation: 2, failedMessageId: byHand.id })
  })

  it('swallows a failed revoke: best effort, no unhandled rejection', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    await accept(h, 'run-2')
    h.send({ type: 'retry.cancel' })

    h.cancels[0]!.answer.reject(new Refusal(404, 'run_not_found'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toEqual({ cancelled: 'quiet' })
    expect(h.snapshot().status).toBe('active')
  })

  it('a stopped actor aborts its request too', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    h.actor.stop()
    expect(h.regenerate[0]!.signal.aborted).toBe(true)
  })
})

describe('the generation token', () => {
  it('ignores the late answer of an earlier arming', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    h.send({ type: 'retry.cancel' })
    h.cancels[0]!.answer.resolve(undefined)
    await vi.advanceTimersByTimeAsync(0)
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    expect(h.regenerate.map((r) => r.input.generation)).toEqual([1, 2])

    h.regenerate[0]!.answer.resolve(receipt('run-stale'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toBe('dispatching')

    h.regenerate[1]!.answer.resolve(receipt('run-current'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toBe('watching')
    expect(h.snapshot().context.runId).toBe('run-current')
  })

  it('drops a done event that carries an older generation', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.cancel' })
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    // Deliver a stale result directly, as if XState had not already dropped it.
    const stale = { type: 'xstate.done.actor.regenerate', output: { generation: 1, receipt: receipt('run-stale') } }
    h.actor.send(stale as unknown as RetryEvent)

    expect(h.snapshot().value).toBe('dispatching')
    expect(h.snapshot().context.runId).toBeNull()
  })
})

describe('how the watched run ends', () => {
  async function watching() {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    await accept(h, 'run-2')
    expect(h.snapshot().value).toBe('watching')
    return h
  }

  it('success: back to idle, the countdown gone and the attempt reset', async () => {
    const h = await watching()
    h.send({ type: 'run.settled', runId: 'run-2', message: reply('run-2', 'complete') })

    expect(h.view()).toEqual({ status: 'idle', attempt: 1, deadline: null, remainingMs: 0, paused: false, refusal: null, waitingForNetwork: false })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a transient failure re-arms at attempt 2 with a 4 s wait and a new generation', async () => {
    const h = await watching()
    const again = failure({ run_id: 'run-2' })
    h.send({ type: 'run.settled', runId: 'run-2', message: again })

    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context).toMatchObject({
      attempt: 2,
      generation: 2,
      deadline: Date.now() + 4 * SECOND,
      failedMessageId: again.id,
    })

    // The hook reports the same persisted failure again: it is already handled.
    h.send({ type: 'failure.observed', message: again })
    expect(h.snapshot().context.generation).toBe(2)

    await vi.advanceTimersByTimeAsync(4 * SECOND)
    expect(h.regenerate.map((r) => r.input.generation)).toEqual([1, 2])
  })

  it('a failure with a far retry_after_until re-arms paused', async () => {
    const h = await watching()
    const until = Date.now() + 50 * MINUTE
    h.send({
      type: 'run.settled',
      runId: 'run-2',
      message: failure({ run_id: 'run-2', retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: until } }),
    })
    expect(h.view()).toMatchObject({ status: 'paused', attempt: 2, deadline: until, paused: true })
  })

  it('a failure tier 2 must not retry ends in idle', async () => {
    const h = await watching()
    h.send({
      type: 'run.settled',
      runId: 'run-2',
      message: failure({ run_id: 'run-2', retry: { retryable: false, retry_class: 'auth_failed' } }),
    })
    expect(h.snapshot().value).toBe('idle')
    expect(h.snapshot().context.attempt).toBe(1)
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(1)
  })

  it('Stop (a cancelled run) ends in cancelled and never arms', async () => {
    const h = await watching()
    h.send({ type: 'run.settled', runId: 'run-2', message: reply('run-2', 'cancelled') })

    expect(h.snapshot().value).toEqual({ cancelled: 'quiet' })
    // The run is already cancelled: nothing to revoke.
    expect(h.cancels).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(1)
  })

  it('another run settling changes nothing', async () => {
    const h = await watching()
    h.send({ type: 'run.settled', runId: 'run-other', message: reply('run-other', 'complete') })
    h.send({ type: 'run.settled', runId: 'run-other', message: failure({ run_id: 'run-other' }) })
    expect(h.snapshot().value).toBe('watching')
    expect(h.snapshot().context.runId).toBe('run-2')
  })
})

describe('a regenerate that fails', () => {
  it.each([
    [404, 'message_not_found'],
    [422, 'not_operator_message'],
    [401, 'unauthorized'],
  ])('refused with %i %s: stops, keeps the refusal, does not loop', async (status, code) => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    const refusal = new Refusal(status, code)
    h.regenerate[0]!.answer.reject(refusal)
    await vi.advanceTimersByTimeAsync(0)

    expect(h.snapshot().value).toBe('refused')
    expect(h.snapshot().context.lastError).toBe(refusal)
    expect(h.view()).toMatchObject({ status: 'refused', refusal })
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(1)
  })

  it('a network failure re-arms at the next attempt', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    h.regenerate[0]!.answer.reject(new TypeError('Failed to fetch'))
    await vi.advanceTimersByTimeAsync(0)

    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context).toMatchObject({ attempt: 2, generation: 2, deadline: NOW + 4 * SECOND })
    await vi.advanceTimersByTimeAsync(4 * SECOND)
    expect(h.regenerate).toHaveLength(2)
  })

  it('a 503 from a restarting daemon is retried like a network failure', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    h.regenerate[0]!.answer.reject(new Refusal(503, 'daemon_unavailable'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context.attempt).toBe(2)
  })
})

describe('held: a failed reply whose write tool ran', () => {
  let calls = 0
  function tool(name: string, effect: 'read' | 'write', status: 'done' | 'failed' | 'denied' = 'done'): NonNullable<Message['parts']>[number] {
    calls += 1
    return { type: 'tool', tool_call_id: `tc-${calls}`, name, effect, input: '{}', status, started_at: NOW, ended_at: NOW }
  }
  const wrote = (overrides: Partial<Message> = {}) =>
    failure({ retry: { retryable: true, retry_class: 'overloaded' }, parts: [tool('search_docs', 'read'), tool('write_file', 'write')], ...overrides })

  it('arms held: no timer at all, the view names the tool, and nothing fires however long the page waits', async () => {
    const h = start()
    const failed = wrote()
    h.send({ type: 'failure.observed', message: failed })

    expect(h.snapshot().value).toBe('held')
    expect(h.snapshot().context).toMatchObject({ attempt: 1, generation: 1, failedMessageId: failed.id, rerun: ['write_file'] })
    expect(h.view()).toEqual({
      status: 'held',
      attempt: 1,
      deadline: null,
      remainingMs: 0,
      paused: false,
      refusal: null,
      waitingForNetwork: false,
      rerun: ['write_file'],
    })
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(YEAR)
    h.send({ type: 'clock.check' })
    expect(h.snapshot().value).toBe('held')
    expect(h.regenerate).toHaveLength(0)
  })

  it('nothing fires at a provider time, even one past the cap, nor back online after a while offline', async () => {
    const h = start({ network: { online: () => true } })
    h.send({ type: 'failure.observed', message: wrote({ retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 50 * MINUTE } }) })
    expect(h.view()).toMatchObject({ status: 'held', paused: false, deadline: null })
    expect(vi.getTimerCount()).toBe(0)

    h.send({ type: 'network', online: false })
    expect(h.view()).toMatchObject({ status: 'held', waitingForNetwork: false })
    vi.setSystemTime(NOW + 2 * 3_600_000)
    h.send({ type: 'network', online: true })
    h.send({ type: 'clock.check' })
    await vi.advanceTimersByTimeAsync(MINUTE)
    expect(h.snapshot().value).toBe('held')
    expect(h.regenerate).toHaveLength(0)
  })

  it('Retry now dispatches the held attempt, and the accepted run is watched', async () => {
    const h = start()
    const failed = wrote()
    h.send({ type: 'failure.observed', message: failed })
    h.send({ type: 'retry.now' })

    expect(h.snapshot().value).toBe('dispatching')
    expect(h.regenerate).toHaveLength(1)
    expect(h.regenerate[0]!.input).toEqual({ sessionId: SESSION, anchorId: ANCHOR, generation: 1, attempt: 1, failureId: failed.id, failureCreatedAt: failed.created_at })
    await accept(h, 'run-2')
    expect(h.snapshot().value).toBe('watching')
    h.send({ type: 'run.settled', runId: 'run-2', message: reply('run-2', 'complete') })
    expect(h.snapshot().value).toBe('idle')
    expect(h.snapshot().context).toMatchObject({ attempt: 1, rerun: [] })
  })

  it('Cancel retry cancels: nothing is sent, ever', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: wrote() })
    h.send({ type: 'retry.cancel' })
    expect(h.view().status).toBe('cancelled')
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(0)
    expect(h.cancels).toHaveLength(0)
  })

  it('Cancel while the held attempt is on the wire aborts it and revokes what was accepted', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: wrote() })
    h.send({ type: 'retry.now' })
    h.send({ type: 'retry.cancel' })
    expect(h.regenerate[0]!.signal.aborted).toBe(true)
    expect(h.snapshot().value).toEqual({ cancelled: 'revoking' })
    expect(h.cancels).toHaveLength(1)
  })

  it('a held attempt lost in transit (a network error, a 503) is held again at the next attempt, with no timer', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: wrote() })
    h.send({ type: 'retry.now' })
    h.regenerate[0]!.answer.reject(new TypeError('Failed to fetch'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toBe('held')
    expect(h.view()).toMatchObject({ status: 'held', attempt: 2, deadline: null, rerun: ['write_file'] })
    expect(vi.getTimerCount()).toBe(0)

    h.send({ type: 'retry.now' })
    h.regenerate[1]!.answer.reject(new Refusal(503, 'daemon_unavailable'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.view()).toMatchObject({ status: 'held', attempt: 3 })
    await vi.advanceTimersByTimeAsync(YEAR)
    expect(h.regenerate).toHaveLength(2)
  })

  it('a held attempt lost while offline keeps its attempt and stays held back online', async () => {
    let online = true
    const h = start({ network: { online: () => online } })
    h.send({ type: 'failure.observed', message: wrote() })
    h.send({ type: 'retry.now' })
    online = false
    h.regenerate[0]!.answer.reject(new TypeError('Failed to fetch'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.view()).toMatchObject({ status: 'held', attempt: 1, waitingForNetwork: false })

    online = true
    h.send({ type: 'network', online: true })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(h.snapshot().value).toBe('held')
    expect(h.regenerate).toHaveLength(1)
  })

  it('a refused held attempt is refused, as any other', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: wrote() })
    h.send({ type: 'retry.now' })
    h.regenerate[0]!.answer.reject(new Refusal(404, 'message_not_found'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.snapshot().value).toBe('refused')
  })

  it('the watched run failing after a write tool ran is held at the next attempt; one with only read tools counts down', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    await accept(h, 'run-2')
    h.send({ type: 'run.settled', runId: 'run-2', message: wrote({ run_id: 'run-2' }) })
    expect(h.view()).toMatchObject({ status: 'held', attempt: 2, deadline: null, rerun: ['write_file'] })
    expect(vi.getTimerCount()).toBe(0)

    h.send({ type: 'retry.now' })
    await accept(h, 'run-3')
    const readOnly = failure({ run_id: 'run-3', parts: [tool('search_docs', 'read'), tool('write_file', 'write', 'denied')] })
    h.send({ type: 'run.settled', runId: 'run-3', message: readOnly })
    expect(h.view()).toMatchObject({ status: 'armed', attempt: 3, deadline: NOW + 8 * SECOND })
    expect(h.view().rerun).toBeUndefined()
    await vi.advanceTimersByTimeAsync(8 * SECOND)
    expect(h.regenerate).toHaveLength(3)
  })

  it('a newer failure re-arms by its own tools: held from armed, counting down from held', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    expect(h.snapshot().value).toBe('armed')
    h.send({ type: 'failure.observed', message: wrote() })
    expect(h.snapshot().value).toBe('held')
    h.send({ type: 'failure.observed', message: failure() })
    expect(h.snapshot().value).toBe('armed')
    expect(h.snapshot().context.rerun).toEqual([])
  })

  it('names every write tool that ran, each once, in order', () => {
    const h = start()
    const parts = [tool('write_file', 'write'), tool('edit_file', 'write', 'failed'), tool('write_file', 'write'), tool('delete_file', 'write', 'denied')]
    h.send({ type: 'failure.observed', message: failure({ parts }) })
    expect(h.view().rerun).toEqual(['write_file', 'edit_file'])
  })
})

describe('a reply whose tools were all read', () => {
  it('counts down exactly as before: 2 s, then fires', async () => {
    const h = start()
    const parts: Message['parts'] = [
      { type: 'reasoning', text: 'Look it up.' },
      { type: 'tool', tool_call_id: 'tc-r', name: 'search_docs', effect: 'read', input: '{}', status: 'done', started_at: NOW, ended_at: NOW },
      { type: 'text', text: 'Half' },
    ]
    h.send({ type: 'failure.observed', message: failure({ parts }) })
    expect(h.view()).toEqual({
      status: 'armed',
      attempt: 1,
      deadline: NOW + 2 * SECOND,
      remainingMs: 2 * SECOND,
      paused: false,
      refusal: null,
      waitingForNetwork: false,
    })
    await vi.advanceTimersByTimeAsync(2 * SECOND - 1)
    expect(h.regenerate).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.regenerate).toHaveLength(1)
  })
})

describe('defaults', () => {
  it('rejects with a clear error when no regenerate actor was provided', async () => {
    const errors: unknown[] = []
    const actor = createActor(retryMachine, {
      input: { anchorId: ANCHOR, sessionId: SESSION, clock: { now: () => Date.now() } },
      inspect: (event: InspectionEvent) => {
        if (event.type === '@xstate.event' && event.event.type === 'xstate.error.actor.regenerate') {
          errors.push((event.event as { error?: unknown }).error)
        }
      },
    }).start()
    actor.send({ type: 'failure.observed', message: failure() })
    actor.send({ type: 'retry.now' })
    await vi.advanceTimersByTimeAsync(0)

    expect(errors).toHaveLength(1)
    expect(String(errors[0])).toMatch(/"regenerate" actor was not provided/)
    actor.stop()
  })
})

describe('retryView', () => {
  it('has no countdown while dispatching or watching', async () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    h.send({ type: 'retry.now' })
    expect(h.view()).toEqual({ status: 'dispatching', attempt: 1, deadline: null, remainingMs: 0, paused: false, refusal: null, waitingForNetwork: false })
    await accept(h, 'run-2')
    expect(h.view()).toMatchObject({ status: 'watching', deadline: null, remainingMs: 0 })
  })

  it('derives the countdown from the clock it is given', () => {
    const h = start()
    h.send({ type: 'failure.observed', message: failure() })
    expect(retryView(h.snapshot(), NOW + 500).remainingMs).toBe(1500)
    expect(retryView(h.snapshot(), NOW + 5000).remainingMs).toBe(0)
  })
})
