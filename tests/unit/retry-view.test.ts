/**
 * The UI's view of a tier 2 scheduler, on snapshots of a real actor under fake timers: the status
 * (paused included), which reply a status belongs to, the announcement keys, and the announcer
 * reducer that speaks once per arming and empties the region when the speaker moves on.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise } from 'xstate'
import {
  fromRegenerate,
  retryMachine,
  type CancelAcceptedInput,
  type CancelAcceptedOutput,
  type RetrySnapshot,
} from '../../src/retry/machine'
import { announcementOf, nextAnnouncement, SILENT, type AnnouncerState } from '../../src/retry/announcer'
import { belongsTo, isCancellable, retryView, type RetryStatus, type RetryView } from '../../src/retry/view'
import type { Message, RegenerateReceipt } from '../../src/wire/types'

const NOW = Date.UTC(2026, 6, 1, 12)
const SECOND = 1000
const MINUTE = 60 * SECOND
const ANCHOR = 'op1'
const SID = 'ses_1'

let created = 0
function failure(overrides: Partial<Message> = {}): Message {
  created += 1
  const id = overrides.id ?? `reply_${created}`
  return {
    id,
    session_id: SID,
    role: 'agent',
    content: '',
    created_at: NOW + created,
    superseded: false,
    reply_to: ANCHOR,
    run_id: `run_${id}`,
    status: 'failed',
    error: { code: 'model_rate_limited', message: 'Rate limited.' },
    retry: { retryable: true, retry_class: 'rate_limited' },
    ...overrides,
  }
}

/** A real actor whose regenerate answers are settled by the test and whose revokes succeed at once. */
function start() {
  const answers: Array<{ resolve: (r: RegenerateReceipt) => void; reject: (e: unknown) => void }> = []
  const machine = retryMachine.provide({
    actors: {
      regenerate: fromRegenerate(
        () =>
          new Promise<RegenerateReceipt>((resolve, reject) => {
            answers.push({ resolve, reject })
          }),
      ),
      cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(async ({ input }) => ({ runId: input.runId })),
    },
  })
  const actor = createActor(machine, { input: { anchorId: ANCHOR, sessionId: SID, clock: { now: () => Date.now() } } }).start()
  return {
    actor,
    snapshot: (): RetrySnapshot => actor.getSnapshot(),
    view: (): RetryView => retryView(actor.getSnapshot(), Date.now()),
    accept: async (runId: string) => {
      answers.at(-1)!.resolve({ run_id: runId, superseded: [], queued: false })
      await vi.advanceTimersByTimeAsync(0)
    },
    refuse: async (status: number, code: string) => {
      answers.at(-1)!.reject(Object.assign(new Error(code), { status, code }))
      await vi.advanceTimersByTimeAsync(0)
    },
  }
}

/** A snapshot of a real actor in each status the view distinguishes. */
async function snapshotIn(status: RetryStatus) {
  const h = start()
  const failed = failure()
  if (status === 'idle') return { h, failed }
  if (status === 'paused') {
    h.actor.send({ type: 'failure.observed', message: failure({ ...failed, retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 50 * MINUTE } }) })
    return { h, failed }
  }
  h.actor.send({ type: 'failure.observed', message: failed })
  if (status === 'armed') return { h, failed }
  if (status === 'cancelled') {
    h.actor.send({ type: 'retry.cancel' })
    return { h, failed }
  }
  h.actor.send({ type: 'retry.now' })
  if (status === 'dispatching') return { h, failed }
  if (status === 'refused') {
    await h.refuse(422, 'not_operator_message')
    return { h, failed }
  }
  await h.accept('run_next')
  return { h, failed }
}

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

  it.each(['armed', 'paused'] as const)('%s belongs to the failed reply that armed it', async (status) => {
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

describe('announcementOf', () => {
  it('keys an armed countdown by status and attempt, the same on every tick', async () => {
    const { h } = await snapshotIn('armed')
    const first = announcementOf(retryView(h.snapshot(), NOW))
    const later = announcementOf(retryView(h.snapshot(), NOW + 1500))
    expect(first).toEqual({ key: 'armed:1', announcement: { kind: 'armed', attempt: 1, deadline: NOW + 2 * SECOND, remainingMs: 2 * SECOND } })
    expect(later!.key).toBe(first!.key)
  })

  it('keys a paused wait paused:<attempt>', async () => {
    const { h } = await snapshotIn('paused')
    expect(announcementOf(h.view())).toEqual({ key: 'paused:1', announcement: { kind: 'paused', attempt: 1, deadline: NOW + 50 * MINUTE } })
  })

  it('keys a cancel and a refusal by status and attempt', async () => {
    expect(announcementOf((await snapshotIn('cancelled')).h.view())).toEqual({ key: 'cancelled:1', announcement: { kind: 'cancelled' } })
    expect(announcementOf((await snapshotIn('refused')).h.view())).toMatchObject({
      key: 'refused:1',
      announcement: { kind: 'refused', refusal: { status: 422, code: 'not_operator_message' } },
    })
  })

  it.each(['idle', 'dispatching', 'watching'] as const)('announces nothing while %s', async (status) => {
    expect(announcementOf((await snapshotIn(status)).h.view())).toBeUndefined()
  })

  it('gives the next attempt a new key', async () => {
    const { h } = await snapshotIn('watching')
    h.actor.send({ type: 'run.settled', runId: 'run_next', message: failure({ run_id: 'run_next' }) })
    expect(announcementOf(h.view())!.key).toBe('armed:2')
  })
})

describe('nextAnnouncement', () => {
  const views = (entries: Record<string, RetryView>) => new Map(Object.entries(entries))

  it('speaks once per arming: ticks of the same arming say nothing new', async () => {
    const { h } = await snapshotIn('armed')
    let state = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    expect(state.speaker).toBe(ANCHOR)
    expect(state.current).toEqual({ kind: 'armed', attempt: 1, deadline: NOW + 2 * SECOND, remainingMs: 2 * SECOND })
    const spoken = state.current

    for (const ms of [250, 500, 1000, 1999]) {
      await vi.advanceTimersByTimeAsync(ms - (Date.now() - NOW))
      state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
      // The very same words: the live region's content does not change, so nothing is re-read.
      expect(state.current).toBe(spoken)
      expect(state.speaker).toBe(ANCHOR)
    }
  })

  it('speaks again for a new attempt, after emptying the region while the attempt ran', async () => {
    const { h } = await snapshotIn('armed')
    let state = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    h.actor.send({ type: 'retry.now' })
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state).toMatchObject({ speaker: null, current: null })
    await h.accept('run_next')
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state.current).toBeNull()
    h.actor.send({ type: 'run.settled', runId: 'run_next', message: failure({ run_id: 'run_next' }) })
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state).toMatchObject({ speaker: ANCHOR, current: { kind: 'armed', attempt: 2, remainingMs: 4 * SECOND } })
  })

  it('speaks the same words again for a later arming once the region was emptied', async () => {
    const { h } = await snapshotIn('armed')
    let state = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    h.actor.send({ type: 'retry.now' })
    await h.accept('run_next')
    // The retried run completes; a later failure arms again from attempt 1.
    h.actor.send({ type: 'run.settled', runId: 'run_next', message: { ...failure({ run_id: 'run_next' }), status: 'complete', error: undefined, retry: undefined } })
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state.current).toBeNull()
    expect(state.spoken.has(ANCHOR)).toBe(false)
    h.actor.send({ type: 'failure.observed', message: failure() })
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state).toMatchObject({ speaker: ANCHOR, current: { kind: 'armed', attempt: 1 } })
  })

  it('announces a cancel once, after the countdown', async () => {
    const { h } = await snapshotIn('armed')
    let state = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    h.actor.send({ type: 'retry.cancel' })
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state.current).toEqual({ kind: 'cancelled' })
    const spoken = state.current
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state.current).toBe(spoken)
  })

  it('empties the region when the speaker disappears', async () => {
    const { h } = await snapshotIn('armed')
    let state = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    expect(state.current).not.toBeNull()
    state = nextAnnouncement(state, views({}))
    expect(state).toEqual({ spoken: new Map(), speaker: null, current: null })
  })

  it('empties the region when the speaker moves on to dispatching', async () => {
    const { h } = await snapshotIn('armed')
    let state = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    h.actor.send({ type: 'retry.now' })
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state).toMatchObject({ speaker: null, current: null })
    expect(state.spoken.has(ANCHOR)).toBe(false)
  })

  it('lets a second anchor take over, and a silent first one does not empty it', async () => {
    const first = await snapshotIn('armed')
    const second = await snapshotIn('paused')
    let state = nextAnnouncement(SILENT, views({ op1: first.h.view() }))
    expect(state.speaker).toBe('op1')
    state = nextAnnouncement(state, views({ op1: first.h.view(), op2: second.h.view() }))
    expect(state).toMatchObject({ speaker: 'op2', current: { kind: 'paused', attempt: 1 } })
    // The first anchor's countdown ticking says nothing over the second.
    await vi.advanceTimersByTimeAsync(SECOND)
    state = nextAnnouncement(state, views({ op1: first.h.view(), op2: second.h.view() }))
    expect(state.speaker).toBe('op2')
    // The first anchor moving on does not clear words that are not its own.
    first.h.actor.send({ type: 'retry.now' })
    state = nextAnnouncement(state, views({ op1: first.h.view(), op2: second.h.view() }))
    expect(state).toMatchObject({ speaker: 'op2', current: { kind: 'paused' } })
    // Nor does it disappearing.
    state = nextAnnouncement(state, views({ op2: second.h.view() }))
    expect(state).toMatchObject({ speaker: 'op2', current: { kind: 'paused' } })
  })

  it('says nothing for schedulers with nothing to announce', async () => {
    const idle = await snapshotIn('idle')
    const watching = await snapshotIn('watching')
    const state: AnnouncerState = nextAnnouncement(SILENT, views({ op1: idle.h.view(), op2: watching.h.view() }))
    expect(state).toEqual({ spoken: new Map(), speaker: null, current: null })
  })

  it('does not change the state it was given', async () => {
    const { h } = await snapshotIn('armed')
    const before = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    const spoken = new Map(before.spoken)
    nextAnnouncement(before, views({}))
    expect(before.spoken).toEqual(spoken)
    expect(before.speaker).toBe(ANCHOR)
    expect(SILENT).toEqual({ spoken: new Map(), speaker: null, current: null })
  })
})
