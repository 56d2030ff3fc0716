/**
 * Which failed reply may arm tier 2, as pure functions of history: only the failed reply at the
 * end of the main flow, never one the operator cancelled; whether an anchor still answers the
 * tail; when a watched run has settled; and which run an aborted regenerate may have started.
 */
import { describe, expect, it } from 'vitest'
import { answersTail, armingCandidate, settledReply, STRAY_SLACK_MS, strayRun } from '../../src/retry/eligibility'
import type { Message } from '../../src/wire/types'

const SID = 'ses_1'
const T0 = Date.UTC(2026, 6, 1, 12)

function operator(id: string, overrides: Partial<Message> = {}): Message {
  return { id, session_id: SID, role: 'operator', content: `question ${id}`, created_at: T0, superseded: false, ...overrides }
}

function agent(id: string, replyTo: string, status: Message['status'], overrides: Partial<Message> = {}): Message {
  return {
    id,
    session_id: SID,
    role: 'agent',
    content: '',
    created_at: T0,
    superseded: false,
    reply_to: replyTo,
    run_id: `run_${id}`,
    status,
    ...(status === 'failed'
      ? { error: { code: 'model_rate_limited', message: 'Rate limited.' }, retry: { retryable: true, retry_class: 'rate_limited' as const } }
      : {}),
    ...overrides,
  }
}

const none: ReadonlySet<string> = new Set()

describe('armingCandidate', () => {
  it('offers the failed reply at the end of the main flow, with its anchor', () => {
    const failed = agent('a1', 'op1', 'failed')
    expect(armingCandidate([operator('op1'), failed], none)).toEqual({ anchorId: 'op1', failure: failed })
  })

  it('offers nothing for an empty history', () => {
    expect(armingCandidate([], none)).toBeUndefined()
  })

  it('never offers a failure the operator wrote after (only the tail arms)', () => {
    expect(armingCandidate([operator('op1'), agent('a1', 'op1', 'failed'), operator('op2')], none)).toBeUndefined()
  })

  it('never offers an earlier failure when a later reply ended well', () => {
    const history = [operator('op1'), agent('a1', 'op1', 'failed'), operator('op2'), agent('a2', 'op2', 'complete')]
    expect(armingCandidate(history, none)).toBeUndefined()
  })

  it('never offers a superseded failure, even at the very end of the list', () => {
    expect(armingCandidate([operator('op1'), agent('a1', 'op1', 'failed', { superseded: true })], none)).toBeUndefined()
  })

  it('looks past superseded messages to the tail of the main flow', () => {
    const failed = agent('a2', 'op1', 'failed')
    const history = [operator('op1'), agent('a1', 'op1', 'failed', { superseded: true }), failed, operator('op2', { superseded: true })]
    expect(armingCandidate(history, none)).toEqual({ anchorId: 'op1', failure: failed })
  })

  it('never offers a cancelled run', () => {
    expect(armingCandidate([operator('op1'), agent('a1', 'op1', 'cancelled')], none)).toBeUndefined()
  })

  it.each(['queued', 'streaming', 'complete'] as const)('never offers a reply that is %s', (status) => {
    expect(armingCandidate([operator('op1'), agent('a1', 'op1', status)], none)).toBeUndefined()
  })

  it('never offers a failure whose retry the operator cancelled', () => {
    const history = [operator('op1'), agent('a1', 'op1', 'failed')]
    expect(armingCandidate(history, new Set(['a1']))).toBeUndefined()
    expect(armingCandidate(history, new Set(['another']))).toBeDefined()
  })

  it('never offers a failed reply with no anchor (reply_to)', () => {
    expect(armingCandidate([operator('op1'), agent('a1', 'op1', 'failed', { reply_to: undefined })], none)).toBeUndefined()
  })

  it('leaves the classification to the machine: a coarse failure is still the candidate', () => {
    // The scheduler sends it; the machine's isArmable guard refuses it (retry-scheduler.test.ts).
    const coarse = agent('a1', 'op1', 'failed', { retry: undefined })
    expect(armingCandidate([operator('op1'), coarse], none)?.failure).toBe(coarse)
  })
})

describe('answersTail', () => {
  it('is true while the tail is an agent reply to the anchor', () => {
    expect(answersTail([operator('op1'), agent('a1', 'op1', 'failed')], 'op1')).toBe(true)
    expect(answersTail([operator('op1'), agent('a1', 'op1', 'failed', { superseded: true }), agent('a2', 'op1', 'queued')], 'op1')).toBe(true)
  })

  it('is false once the operator wrote after the reply', () => {
    expect(answersTail([operator('op1'), agent('a1', 'op1', 'failed'), operator('op2')], 'op1')).toBe(false)
  })

  it('is false when the tail answers another anchor, or there is no tail', () => {
    expect(answersTail([operator('op1'), agent('a1', 'op1', 'failed'), operator('op2'), agent('a2', 'op2', 'queued')], 'op1')).toBe(false)
    expect(answersTail([], 'op1')).toBe(false)
    expect(answersTail([operator('op1')], 'op1')).toBe(false)
  })
})

describe('settledReply', () => {
  it.each(['complete', 'failed', 'cancelled'] as const)('returns the reply of the run once history records it %s', (status) => {
    const reply = agent('a1', 'op1', status)
    expect(settledReply([operator('op1'), reply], 'run_a1')).toBe(reply)
  })

  it.each(['queued', 'streaming'] as const)('returns nothing while history shows the run %s', (status) => {
    expect(settledReply([operator('op1'), agent('a1', 'op1', status)], 'run_a1')).toBeUndefined()
  })

  it('returns nothing for a run history does not have yet', () => {
    expect(settledReply([operator('op1'), agent('a1', 'op1', 'failed')], 'run_other')).toBeUndefined()
  })
})

describe('strayRun', () => {
  const dispatchedAt = T0 + 10_000

  it('finds the active reply to the anchor created after the aborted request went out', () => {
    const history = [operator('op1'), agent('a1', 'op1', 'failed', { superseded: true }), agent('a2', 'op1', 'queued', { created_at: dispatchedAt + 5 })]
    expect(strayRun(history, 'op1', dispatchedAt)).toBe('run_a2')
  })

  it('allows for STRAY_SLACK_MS of clock difference, and no more', () => {
    const at = (created_at: number) => [operator('op1'), agent('a2', 'op1', 'streaming', { created_at })]
    expect(strayRun(at(dispatchedAt - STRAY_SLACK_MS), 'op1', dispatchedAt)).toBe('run_a2')
    expect(strayRun(at(dispatchedAt - STRAY_SLACK_MS - 1), 'op1', dispatchedAt)).toBeUndefined()
  })

  it('ignores replies that are superseded, answer another anchor or have no run', () => {
    const late = { created_at: dispatchedAt + 5 }
    expect(strayRun([operator('op1'), agent('a2', 'op1', 'streaming', { ...late, superseded: true })], 'op1', dispatchedAt)).toBeUndefined()
    expect(strayRun([operator('op2'), agent('a2', 'op2', 'streaming', late)], 'op1', dispatchedAt)).toBeUndefined()
    expect(strayRun([operator('op1'), agent('a2', 'op1', 'streaming', { ...late, run_id: undefined })], 'op1', dispatchedAt)).toBeUndefined()
  })
})
