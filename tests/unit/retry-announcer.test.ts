/**
 * The live region's announcer of the tier 2 schedulers, on views of a real actor under fake
 * timers: the announcement keys, and the reducer that speaks once per arming and empties the
 * region when the speaker moves on.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { announcementOf, nextAnnouncement, SILENT, type AnnouncerState } from '../../src/retry/announcer'
import { retryView, type RetryView } from '../../src/retry/view'
import { ANCHOR, failure, MINUTE, NOW, SECOND, snapshotIn } from './retry-actor'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
})

afterEach(() => {
  vi.useRealTimers()
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

  it('keys a held arming held:<attempt>, with the tools Retry now would run again', async () => {
    const { h } = await snapshotIn('held')
    expect(announcementOf(h.view())).toEqual({ key: 'held:1', announcement: { kind: 'held', attempt: 1, tools: ['write_file'] } })
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

  it('speaks a held arming once, however long it waits; Retry now empties the region', async () => {
    const { h } = await snapshotIn('held')
    let state = nextAnnouncement(SILENT, views({ [ANCHOR]: h.view() }))
    expect(state).toMatchObject({ speaker: ANCHOR, current: { kind: 'held', attempt: 1, tools: ['write_file'] } })
    const spoken = state.current
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state.current).toBe(spoken)
    h.actor.send({ type: 'retry.now' })
    state = nextAnnouncement(state, views({ [ANCHOR]: h.view() }))
    expect(state).toMatchObject({ speaker: null, current: null })
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
