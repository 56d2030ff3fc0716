/**
 * The attention events, as pure rules: what an open session's history, live runs and tier 2
 * schedulers say (each reply's end once, a failure only when nothing retries it), and what the
 * background watch reads from the session list and a session's newest messages.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { attentionId, detectView, openingView, type ViewInputs } from '../../src/attention/events'
import { glanceAt, nextGlances, UNCLAIMED_FAILURE_MS, type Glance } from '../../src/attention/glance'
import type { LiveRun } from '../../src/live/live-runs'
import type { BoardRecord } from '../../src/retry/board'
import type { RetrySnapshot } from '../../src/retry/machine'
import type { Message, Part, Session } from '../../src/wire/types'
import { ANCHOR, NOW, snapshotIn } from './retry-actor'

const SID = 'ses_1'

const operator = (id: string): Message => ({ id, session_id: SID, role: 'operator', content: id, created_at: NOW, superseded: false })
function reply(id: string, status: Message['status'], extra: Partial<Message> = {}): Message {
  return { id, session_id: SID, role: 'agent', content: '', created_at: NOW, superseded: false, reply_to: ANCHOR, run_id: `run_${id}`, status, ...extra }
}
const waiting: Part = { type: 'tool', tool_call_id: 'tc_1', name: 'write_file', effect: 'write', input: '{}', status: 'awaiting_approval', started_at: NOW }

function inputs(history: Message[], extra: Partial<ViewInputs> = {}): ViewInputs {
  return { sessionId: SID, history, retries: new Map(), now: NOW, ...extra }
}

/** Runs `detectView` from the opening of `before` to `after`, returning the ids it counted. */
function idsBetween(before: Message[], after: Message[], extra: Partial<ViewInputs> = {}): string[] {
  const memory = openingView(inputs(before))
  return detectView(memory, inputs(after, extra)).events.map((e) => e.id)
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: NOW })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('an open session', () => {
  it('counts nothing that had already ended when it was opened', () => {
    const history = [operator(ANCHOR), reply('r1', 'complete'), operator('op2'), reply('r2', 'failed')]
    expect(idsBetween(history, history)).toEqual([])
  })

  it('counts a reply that finishes once, by its run, however many reads follow', () => {
    const streaming = [operator(ANCHOR), reply('r1', 'streaming')]
    const done = [operator(ANCHOR), reply('r1', 'complete')]
    const first = detectView(openingView(inputs(streaming)), inputs(done))
    expect(first.events).toEqual([{ id: 'finished:run_r1', kind: 'finished', sessionId: SID, runId: 'run_r1' }])
    expect(detectView(first.memory, inputs(done)).events).toEqual([])
  })

  it('knows a sent reply by its run when the stream settles it under its own id', () => {
    const awaited = [operator(ANCHOR), reply('awaited:run_x', 'streaming', { run_id: 'run_x' })]
    const settled = [operator(ANCHOR), reply('msg_x', 'complete', { run_id: 'run_x' })]
    expect(idsBetween(awaited, settled)).toEqual([attentionId.finished('run_x')])
  })

  it('counts a reply that first shows up already ended, but not a superseded one or a stop', () => {
    const before = [operator(ANCHOR)]
    expect(idsBetween(before, [...before, reply('r1', 'complete')])).toEqual(['finished:run_r1'])
    expect(idsBetween(before, [...before, reply('r1', 'complete', { superseded: true })])).toEqual([])
    expect(idsBetween(before, [...before, reply('r1', 'cancelled')])).toEqual([])
  })

  it('counts a failure nothing retries as failed, with its error', () => {
    const failed = reply('r1', 'failed', { error: { code: 'context_overflow', message: 'Too long.' } })
    const memory = openingView(inputs([operator(ANCHOR), reply('r1', 'streaming')]))
    expect(detectView(memory, inputs([operator(ANCHOR), failed])).events).toEqual([
      { id: 'failed:run_r1', kind: 'failed', sessionId: SID, runId: 'run_r1', error: { code: 'context_overflow', message: 'Too long.' } },
    ])
  })

  it.each([['armed'], ['dispatching'], ['watching']] as const)('does not count a failure tier 2 is %s on', async (status) => {
    const { h, failed } = await snapshotIn(status)
    const retries = new Map<string, RetrySnapshot>([[ANCHOR, h.snapshot()]])
    expect(idsBetween([operator(ANCHOR)], [operator(ANCHOR), failed], { retries })).toEqual([])
  })

  it('counts a failure whose retry the operator cancelled as failed', async () => {
    const { h, failed } = await snapshotIn('cancelled')
    const retries = new Map<string, RetrySnapshot>([[ANCHOR, h.snapshot()]])
    expect(idsBetween([operator(ANCHOR)], [operator(ANCHOR), failed], { retries })).toEqual([`failed:${failed.run_id}`])
  })

  it('counts a paused retry with its time, and a held one with its tools, by the failure they wait after', async () => {
    const paused = await snapshotIn('paused')
    const pausedFailure = { ...paused.failed, id: paused.h.snapshot().context.failedMessageId ?? '' }
    const pausedEvents = detectView(openingView(inputs([operator(ANCHOR)])), inputs([operator(ANCHOR), pausedFailure], { retries: new Map([[ANCHOR, paused.h.snapshot()]]) })).events
    expect(pausedEvents).toEqual([expect.objectContaining({ id: `paused:${pausedFailure.id}`, kind: 'paused', until: paused.h.snapshot().context.deadline })])

    const held = await snapshotIn('held')
    const heldEvents = detectView(openingView(inputs([operator(ANCHOR)])), inputs([operator(ANCHOR), held.failed], { retries: new Map([[ANCHOR, held.h.snapshot()]]) })).events
    expect(heldEvents).toEqual([expect.objectContaining({ id: `held:${held.failed.id}`, kind: 'held', tools: ['write_file'] })])
  })

  it('counts a tool awaiting approval from the stream before history has it, and while it waits', () => {
    const history = [operator(ANCHOR), reply('r1', 'streaming')]
    const live = (runId: string | undefined): LiveRun | undefined =>
      runId === 'run_r1' ? { runId, sessionId: SID, status: 'streaming', content: '', parts: [waiting], unreadable: 0, tier1Waits: 0, lastEventId: 4 } : undefined
    const memory = openingView(inputs(history))
    const first = detectView(memory, inputs(history, { live }))
    expect(first.events).toEqual([{ id: 'approval:run_r1:tc_1', kind: 'approval', sessionId: SID, runId: 'run_r1', toolCallId: 'tc_1', tool: 'write_file' }])
    // From history's parts too (a reload, another tab): the same id.
    expect(detectView(first.memory, inputs([operator(ANCHOR), reply('r1', 'streaming', { parts: [waiting] })])).events.map((e) => e.id)).toEqual(['approval:run_r1:tc_1'])
    // Decided, or the run over: no longer.
    expect(detectView(first.memory, inputs([operator(ANCHOR), reply('r1', 'streaming', { parts: [{ ...waiting, status: 'running' }] })])).events).toEqual([])
  })
})

const session = (id: string, status: Session['status'], updatedAt: number): Session => ({ id, title: id, status, created_at: 0, updated_at: updatedAt })

describe('the background watch', () => {
  it('reads only running sessions in the first list, then those that moved, appeared or wait', () => {
    const first = nextGlances(undefined, [session('a', 'running', 10), session('b', 'idle', 10), session('c', 'idle', 10)], new Set())
    expect(first.read).toEqual(['a'])
    const second = nextGlances(first.glances, [session('a', 'running', 10), session('b', 'idle', 20), session('c', 'idle', 10), session('d', 'idle', 30)], new Set())
    expect(second.read).toEqual(['a', 'b', 'd'])
    // A session a view here shows is its thread's to count.
    expect(nextGlances(first.glances, [session('a', 'running', 10)], new Set(['a'])).read).toEqual([])
  })

  const glance = (extra: Partial<Glance> = {}): Glance => ({ status: 'idle', updatedAt: NOW, baseline: NOW - 1000, ...extra })
  const noBoard = () => undefined

  it('counts the end of a reply that ran since, once', () => {
    const done = [operator(ANCHOR), reply('r1', 'complete')]
    const first = glanceAt(SID, glance({ tail: { key: 'run_r1', status: 'streaming' } }), done, noBoard, NOW)
    expect(first.events.map((e) => e.id)).toEqual(['finished:run_r1'])
    expect(glanceAt(SID, first.glance, done, noBoard, NOW).events).toEqual([])
    // Never read before: it counts when it was created after the watch first saw the session.
    expect(glanceAt(SID, glance(), done, noBoard, NOW).events.map((e) => e.id)).toEqual(['finished:run_r1'])
    expect(glanceAt(SID, glance({ baseline: NOW }), done, noBoard, NOW).events).toEqual([])
  })

  it('counts tools awaiting approval in a running session', () => {
    const running = [operator(ANCHOR), reply('r1', 'streaming', { parts: [waiting] })]
    expect(glanceAt(SID, glance({ status: 'running' }), running, noBoard, NOW).events.map((e) => e.id)).toEqual(['approval:run_r1:tc_1'])
  })

  it('classifies a failure by the tier 2 board', () => {
    const failed = reply('r1', 'failed', { retry: { retryable: true, retry_class: 'rate_limited' } })
    const record = (extra: Partial<BoardRecord>): BoardRecord => ({ failureId: 'r1', failureCreatedAt: NOW, attempt: 1, deadline: NOW + 3_600_000, paused: false, phase: 'armed', ...extra })
    const at = (r: BoardRecord | undefined) => glanceAt(SID, glance({ tail: { key: 'run_r1', status: 'streaming' } }), [operator(ANCHOR), failed], () => r, NOW).events
    expect(at(record({}))).toEqual([])
    expect(at(record({ paused: true }))).toEqual([expect.objectContaining({ id: 'paused:r1', kind: 'paused', until: NOW + 3_600_000 })])
    expect(at(record({ held: ['write_file'] }))).toEqual([expect.objectContaining({ id: 'held:r1', tools: ['write_file'] })])
    expect(at(record({ phase: 'watching' }))).toEqual([])
    expect(at(record({ phase: 'cancelled' })).map((e) => e.id)).toEqual(['failed:run_r1'])
    // The board's record of an earlier failure says nothing of this one.
    expect(at(record({ failureId: 'r0' }))).toEqual([])
  })

  it('gives a retryable failure nobody claims a moment before it counts as failed; a terminal one counts at once', () => {
    const transient = [operator(ANCHOR), reply('r1', 'failed', { retry: { retryable: true, retry_class: 'overloaded' } })]
    const first = glanceAt(SID, glance({ tail: { key: 'run_r1', status: 'streaming' } }), transient, noBoard, NOW)
    expect(first.events).toEqual([])
    expect(first.glance.unclaimed).toEqual({ id: 'r1', since: NOW })
    expect(nextGlances(new Map([[SID, first.glance]]), [session(SID, 'idle', NOW)], new Set()).read).toEqual([SID])
    const later = glanceAt(SID, first.glance, transient, noBoard, NOW + UNCLAIMED_FAILURE_MS)
    expect(later.events.map((e) => e.id)).toEqual(['failed:run_r1'])
    expect(later.glance.unclaimed).toBeUndefined()

    const terminal = [operator(ANCHOR), reply('r1', 'failed', { retry: { retryable: false, retry_class: 'auth_failed' } })]
    expect(glanceAt(SID, glance({ tail: { key: 'run_r1', status: 'streaming' } }), terminal, noBoard, NOW).events.map((e) => e.id)).toEqual(['failed:run_r1'])
  })
})
