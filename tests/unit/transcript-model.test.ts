import { describe, expect, it } from 'vitest'
import type { OutboxEntry } from '../../src/send/outbox'
import { buildTranscript, regenerateImpact } from '../../src/chat/transcript-model'
import type { Message } from '../../src/wire/types'

let clock = 0
function msg(id: string, role: 'operator' | 'agent', extra: Partial<Message> = {}): Message {
  clock += 1
  return { id, session_id: 's', role, content: id, created_at: clock, superseded: false, ...extra }
}

describe('buildTranscript', () => {
  // op1 → a1; op2 → a2; regenerate op1 supersedes a1, op2, a2; then a1b answers op1.
  const history = [
    msg('op1', 'operator', { client_message_id: 'c1' }),
    msg('a1', 'agent', { reply_to: 'op1', superseded: true, status: 'failed' }),
    msg('op2', 'operator', { superseded: true }),
    msg('a2', 'agent', { reply_to: 'op2', superseded: true, status: 'complete' }),
    msg('a1b', 'agent', { reply_to: 'op1', status: 'complete' }),
  ]

  it('keeps superseded messages out of the main flow and folds them under the reply that replaced them', () => {
    const items = buildTranscript(history, [])
    expect(items.map((i) => i.key)).toEqual(['op1', 'a1b'])
    const reply = items[1]
    if (reply?.kind !== 'agent') throw new Error('expected an agent item')
    expect(reply.earlier.map((m) => m.id)).toEqual(['a1'])
    expect(reply.followers.a1?.map((m) => m.id)).toEqual(['op2', 'a2'])
    expect(reply.isLatest).toBe(true)
  })

  it('lists each regenerate of the same anchor as its own earlier version', () => {
    const items = buildTranscript(
      [
        msg('o', 'operator'),
        msg('r1', 'agent', { reply_to: 'o', superseded: true }),
        msg('r2', 'agent', { reply_to: 'o', superseded: true }),
        msg('r3', 'agent', { reply_to: 'o' }),
      ],
      [],
    )
    const reply = items.at(-1)
    if (reply?.kind !== 'agent') throw new Error('expected an agent item')
    expect(reply.earlier.map((m) => m.id)).toEqual(['r1', 'r2'])
    expect(reply.followers.r1).toEqual([])
  })

  it('shows an outbox entry until history holds its client_message_id, never both', () => {
    const entry = (id: string): OutboxEntry => ({ clientMessageId: id, sessionId: 's', content: `text ${id}`, state: 'sending', createdAt: 0 })
    const items = buildTranscript(history, [entry('c1'), entry('c2')])
    expect(items.filter((i) => i.kind === 'pending').map((i) => i.key)).toEqual(['pending:c2'])
  })

  it('builds the rows of a history once: a change of the outbox alone reuses them, a new history is read afresh', () => {
    const entry = (id: string): OutboxEntry => ({ clientMessageId: id, sessionId: 's', content: `text ${id}`, state: 'sending', createdAt: 0 })
    const alone = buildTranscript(history, [])
    // Nothing waiting: the very rows of that history.
    expect(buildTranscript(history, [])).toBe(alone)
    expect(buildTranscript(history, [entry('c1')])).toBe(alone)
    const sending = buildTranscript(history, [entry('c9')])
    expect(sending.slice(0, alone.length)).toEqual(alone)
    expect(sending[0]).toBe(alone[0])
    expect(sending.map((i) => i.key)).toEqual(['op1', 'a1b', 'pending:c9'])

    // The cache replaces history, never changes it in place: a new array is a new history.
    const landed = [...history, msg('op3', 'operator', { client_message_id: 'c9' }), msg('a3', 'agent', { reply_to: 'op3', status: 'streaming' })]
    const after = buildTranscript(landed, [entry('c9')])
    expect(after.map((i) => i.key)).toEqual(['op1', 'a1b', 'op3', 'a3'])
    const [, before, , latest] = after
    if (before?.kind !== 'agent' || latest?.kind !== 'agent') throw new Error('expected agent items')
    expect([before.isLatest, latest.isLatest]).toEqual([false, true])
  })
})

describe('regenerateImpact', () => {
  it('counts the main-flow messages after the anchor, and the operator messages among them', () => {
    const flow = [msg('o1', 'operator'), msg('r1', 'agent', { reply_to: 'o1' }), msg('o2', 'operator'), msg('r2', 'agent', { reply_to: 'o2' })]
    expect(regenerateImpact(flow, 'o1')).toEqual({ replaced: 3, operator: 1 })
    expect(regenerateImpact(flow, 'o2')).toEqual({ replaced: 1, operator: 0 })
    expect(regenerateImpact(flow, 'missing')).toEqual({ replaced: 0, operator: 0 })
  })
})
