/**
 * Which failed reply may arm tier 2, as pure functions of history: only the failed reply at the
 * end of the main flow, never one the operator cancelled, and only a retryable failure of a
 * transient class; whether an anchor still answers the tail; when a watched run has settled;
 * which run an aborted regenerate may have started; and which `write` tools a regenerate would run
 * again (a failure holding any arms held).
 */
import { describe, expect, it } from 'vitest'
import {
  answersTail,
  armingCandidate,
  isArmable,
  isFreshFailure,
  outlivedBy,
  rerunsWrites,
  settledReply,
  STRAY_SLACK_MS,
  strayRun,
  type EpisodeMemory,
} from '../../src/retry/eligibility'
import type { Message, Part, ToolEffect, ToolStatus } from '../../src/wire/types'
import { RETRY_CLASSES, TOOL_STATUSES, TRANSIENT_RETRY_CLASSES } from '../../src/wire/types'

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

/** A classified failure of the kind tier 2 retries; `overrides` change one thing at a time. */
function failedReply(overrides: Partial<Message> = {}): Message {
  return {
    id: 'reply-1',
    session_id: 'session-1',
    role: 'agent',
    content: '',
    created_at: T0 - 5000,
    superseded: false,
    reply_to: 'anchor-1',
    run_id: 'run-1',
    status: 'failed',
    error: { code: 'model_rate_limited', message: 'Rate limited.' },
    retry: { retryable: true, retry_class: 'rate_limited' },
    ...overrides,
  }
}

describe('isArmable', () => {
  const transient: ReadonlySet<string> = new Set(TRANSIENT_RETRY_CLASSES)
  const cases = RETRY_CLASSES.flatMap((retry_class) =>
    [true, false].map((retryable) => ({ retry_class, retryable, expected: retryable && transient.has(retry_class) })),
  )

  it.each(cases)('$retry_class, retryable $retryable → $expected', ({ retry_class, retryable, expected }) => {
    expect(isArmable(failedReply({ retry: { retryable, retry_class } }))).toBe(expected)
  })

  it('arms for exactly the five transient classes when retryable', () => {
    const armed = RETRY_CLASSES.filter((retry_class) => isArmable(failedReply({ retry: { retryable: true, retry_class } })))
    expect(armed).toEqual(['rate_limited', 'overloaded', 'unavailable', 'network', 'timeout'])
  })

  it('never arms from a superseded reply', () => {
    expect(isArmable(failedReply({ superseded: true }))).toBe(false)
  })

  it('never arms from a cancelled run', () => {
    expect(isArmable(failedReply({ status: 'cancelled', error: undefined }))).toBe(false)
  })

  it('never arms from a coarse failure with no classification', () => {
    expect(isArmable(failedReply({ retry: undefined }))).toBe(false)
  })

  it('never arms from a class this client does not know, even when retryable', () => {
    expect(isArmable(failedReply({ retry: { retryable: true, retry_class: 'cosmic_rays' } }))).toBe(false)
  })

  it('never arms from a reply that has not failed', () => {
    for (const status of ['queued', 'streaming', 'complete'] as const) {
      expect(isArmable(failedReply({ status }))).toBe(false)
    }
    expect(isArmable(failedReply({ status: undefined }))).toBe(false)
  })

  it('never arms from an operator message', () => {
    expect(isArmable(failedReply({ role: 'operator' }))).toBe(false)
  })
})

describe('isFreshFailure', () => {
  const armedFrom = agent('a1', 'op1', 'failed', { created_at: T0 })
  const memory: EpisodeMemory = { anchorId: 'op1', failedMessageId: armedFrom.id, failureCreatedAt: armedFrom.created_at, runId: null }

  it('takes a later failure of the same anchor', () => {
    expect(isFreshFailure(memory, agent('a2', 'op1', 'failed', { created_at: T0 + 1 }))).toBe(true)
    expect(isFreshFailure({ anchorId: 'op1', failedMessageId: null, failureCreatedAt: null, runId: null }, armedFrom)).toBe(true)
  })

  it('never takes another anchor’s failure', () => {
    expect(isFreshFailure(memory, agent('a2', 'op2', 'failed', { created_at: T0 + 1 }))).toBe(false)
  })

  it('never takes the failure it armed from again, or an older one', () => {
    expect(isFreshFailure(memory, armedFrom)).toBe(false)
    expect(isFreshFailure(memory, agent('a0', 'op1', 'failed', { created_at: T0 }))).toBe(false)
    expect(isFreshFailure(memory, agent('a0', 'op1', 'failed', { created_at: T0 - 1 }))).toBe(false)
  })

  it('never takes a failure of the run it last settled or cancelled: a cancel that landed late sticks', () => {
    const late = agent('a2', 'op1', 'failed', { created_at: T0 + 1, run_id: 'run_cancelled' })
    expect(isFreshFailure({ ...memory, runId: 'run_cancelled' }, late)).toBe(false)
    expect(isFreshFailure({ ...memory, runId: 'run_other' }, late)).toBe(true)
  })
})

describe('outlivedBy', () => {
  const failed = agent('a1', 'op1', 'failed')

  it('keeps a scheduler whose reply is still the tail', () => {
    for (const stance of ['waiting', 'at rest', 'busy'] as const) expect(outlivedBy([operator('op1'), failed], 'op1', 'a1', stance)).toBe(false)
  })

  it('lets a waiting or resting scheduler go once the operator wrote after its reply', () => {
    const history = [operator('op1'), failed, operator('op2')]
    expect(outlivedBy(history, 'op1', 'a1', 'waiting')).toBe(true)
    expect(outlivedBy(history, 'op1', 'a1', 'at rest')).toBe(true)
  })

  it('never lets go of a scheduler with a request or a run in flight: it handles its own outcome', () => {
    expect(outlivedBy([operator('op1'), failed, operator('op2')], 'op1', 'a1', 'busy')).toBe(false)
  })

  it('lets a waiting scheduler go once its failure is superseded (regenerated by hand), even while the anchor still answers the tail', () => {
    const history = [operator('op1'), agent('a1', 'op1', 'failed', { superseded: true }), agent('a2', 'op1', 'streaming')]
    expect(outlivedBy(history, 'op1', 'a1', 'waiting')).toBe(true)
    expect(outlivedBy(history, 'op1', 'a1', 'at rest')).toBe(false)
    expect(outlivedBy(history, 'op1', null, 'waiting')).toBe(false)
  })
})

describe('rerunsWrites', () => {
  let calls = 0
  function tool(name: string, effect: ToolEffect, status: ToolStatus): Part {
    calls += 1
    return { type: 'tool', tool_call_id: `tc_${calls}`, name, effect, input: '{}', status, started_at: T0 }
  }
  const reply = (...parts: Part[]) => agent('a1', 'op1', 'failed', { parts })

  it('names a write tool that ran: running, done or failed (a tool that failed ran)', () => {
    const ran: ToolStatus[] = ['running', 'done', 'failed']
    for (const status of TOOL_STATUSES) {
      expect(rerunsWrites(reply(tool('write_file', 'write', status))), status).toEqual(ran.includes(status) ? ['write_file'] : [])
    }
  })

  it('never names a write tool that never ran: still being written, awaiting approval, denied, or cancelled', () => {
    const never = reply(tool('a', 'write', 'input'), tool('b', 'write', 'awaiting_approval'), tool('c', 'write', 'denied'), tool('d', 'write', 'cancelled'))
    expect(rerunsWrites(never)).toEqual([])
  })

  it('is empty for a reply whose tools were all read, ran or not: it counts down as before', () => {
    expect(rerunsWrites(reply(tool('search_docs', 'read', 'done'), tool('read_file', 'read', 'failed'), tool('list', 'read', 'running')))).toEqual([])
  })

  it('is empty for a reply with no parts, or only text and reasoning', () => {
    expect(rerunsWrites(agent('a1', 'op1', 'failed'))).toEqual([])
    expect(rerunsWrites(reply({ type: 'reasoning', text: 'Thinking.' }, { type: 'text', text: 'Half an answer' }))).toEqual([])
  })

  it('names each write tool once, in the order first called, among read tools and text', () => {
    const parts: Part[] = [
      { type: 'reasoning', text: 'First save, then edit.' },
      tool('search_docs', 'read', 'done'),
      tool('write_file', 'write', 'done'),
      { type: 'text', text: 'Saved.' },
      tool('edit_file', 'write', 'failed'),
      tool('write_file', 'write', 'done'),
      tool('delete_file', 'write', 'denied'),
      tool('edit_file', 'write', 'running'),
    ]
    expect(rerunsWrites(reply(...parts))).toEqual(['write_file', 'edit_file'])
  })
})
