import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { OutboxEntry } from '../../src/send/outbox'
import { buildTranscript, regenerateImpact, transcriptText } from '../../src/thread/transcript-model'
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

describe('buildTranscript on a history whose end changed', () => {
  type Step = { kind: 'send' } | { kind: 'settle' } | { kind: 'regenerate'; pick: number } | { kind: 'reread' } | { kind: 'drop' }
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.constant({ kind: 'send' as const }),
    // A history that lost its end (not something the daemon does; the rows must still be right).
    fc.constant({ kind: 'drop' as const }),
    fc.constant({ kind: 'settle' as const }),
    fc.nat({ max: 20 }).map((pick) => ({ kind: 'regenerate' as const, pick })),
    fc.constant({ kind: 'reread' as const }),
  )
  let n = 0
  /** The next history, sharing every message it did not change with `h`, as the query cache does. */
  function apply(h: Message[], s: Step): Message[] {
    n += 1
    if (s.kind === 'send') return [...h, msg(`o${n}`, 'operator', { client_message_id: `c${n}` }), msg(`r${n}`, 'agent', { reply_to: `o${n}`, run_id: `run${n}`, status: 'streaming' })]
    if (s.kind === 'settle') {
      const at = h.findLastIndex((m) => m.role === 'agent' && !m.superseded)
      if (at < 0) return h
      return h.map((m, i) => (i === at ? { ...m, id: `done${n}`, status: 'complete', content: `answer ${n}` } : m))
    }
    if (s.kind === 'reread') return h.map((m) => ({ ...m }))
    if (s.kind === 'drop') return h.length > 1 ? h.slice(0, -1) : h
    const anchors = h.filter((m) => m.role === 'operator' && !m.superseded)
    const anchor = anchors[s.pick % Math.max(1, anchors.length)]
    if (!anchor) return h
    const from = h.indexOf(anchor) + 1
    return [...h.map((m, i) => (i >= from && !m.superseded ? { ...m, superseded: true } : m)), msg(`g${n}`, 'agent', { reply_to: anchor.id, run_id: `run${n}`, status: 'streaming' })]
  }

  it('builds the same rows as a fresh read of the same history, whatever the change', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        let h: Message[] = [msg('first', 'operator', { client_message_id: 'c-first' })]
        buildTranscript(h, [])
        for (const s of steps) {
          h = apply(h, s)
          const pending = [{ clientMessageId: `c${n}`, sessionId: 's', content: 'x', state: 'sending' as const, createdAt: 0 }]
          const built = buildTranscript(h, pending)
          // Copies of every message: nothing to build on, so the rows are built afresh.
          const fresh = buildTranscript(h.map((m) => ({ ...m })), pending)
          expect(built).toEqual(fresh)
          // This history is again the one the next builds on.
          buildTranscript(h, [])
        }
      }),
      { numRuns: 300 },
    )
  })

  it('keeps the rows before the change as they were: a send over a long history builds its own rows', () => {
    const long = Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? msg(`o-${i}`, 'operator') : msg(`r-${i}`, 'agent', { reply_to: `o-${i - 1}`, status: 'complete' })))
    const before = buildTranscript(long, [])
    const sent = [...long, msg('o-new', 'operator', { client_message_id: 'c-new' }), msg('r-new', 'agent', { reply_to: 'o-new', run_id: 'run-new', status: 'streaming' })]
    const after = buildTranscript(sent, [])
    expect(after).toHaveLength(2002)
    // Every row but the one that was the latest is the very same object.
    expect(after.slice(0, 1998).every((item, i) => item === before[i])).toBe(true)
    expect(after[1999]).not.toBe(before[1999])
    expect(after.map((i) => (i.kind === 'agent' ? i.isLatest : false)).filter(Boolean)).toHaveLength(1)
    const settled = sent.map((m) => (m.id === 'r-new' ? { ...m, id: 'r-final', status: 'complete' as const } : m))
    const done = buildTranscript(settled, [])
    expect(done.slice(0, 2001).every((item, i) => item === after[i])).toBe(true)
    expect(done.at(-1)).toMatchObject({ kind: 'agent', isLatest: true, message: { id: 'r-final' } })
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

describe('transcriptText over a reply with steps', () => {
  it('finds the reasoning, the tools\' names and their inputs, in the reply and its earlier versions', () => {
    const withSteps = (id: string, tool: string): Message => ({
      id,
      session_id: 's',
      role: 'agent',
      content: 'the answer',
      created_at: 0,
      superseded: false,
      reply_to: 'op',
      status: 'complete',
      parts: [
        { type: 'reasoning', text: 'weighing the options' },
        { type: 'tool', tool_call_id: `t-${id}`, name: tool, effect: 'read', input: '{"query":"needle"}', status: 'done', started_at: 0 },
        { type: 'text', text: 'the answer' },
      ],
    })
    const text = transcriptText({ kind: 'agent', key: 'k', message: withSteps('r2', 'search_docs'), earlier: [withSteps('r1', 'read_file')], followers: {}, isLatest: true })
    for (const word of ['weighing the options', 'search_docs', 'read_file', '"query":"needle"', 'the answer']) expect(text).toContain(word)
  })
})
