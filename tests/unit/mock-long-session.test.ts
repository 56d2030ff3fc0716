/**
 * The mock daemon's long session (`npm run daemon -- --long-session N`) and `fill`, which writes
 * it: finished exchanges dated in the past, as the daemon would have kept them had they run.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { FIRST_WORD, longSessionExchanges, MAX_LONG_SESSION, seedLongSession } from '../../mocks/long-session'
import { createDaemon, type MockDaemon } from '../../mocks/model'
import type { Message } from '../../src/wire/types'

let daemon: MockDaemon | undefined
afterEach(() => daemon?.dispose())

function seeded(messages: number) {
  daemon = createDaemon()
  const session = seedLongSession(daemon, messages)
  const all = daemon.state().messages.filter((m) => m.session_id === session.id)
  return { daemon, session, all }
}

const ok = <T>(result: { ok: true; value: T } | { ok: false }): T => {
  if (!result.ok) throw new Error('refused')
  return result.value
}

describe('the long session', () => {
  it.each([2, 3, 999, 1000, 1001])('has exactly the %i messages asked for, numbered 1… in order', (n) => {
    const { session, all } = seeded(n)
    expect(all).toHaveLength(n)
    expect(session.messages).toBe(n)
    expect(session.title).toBe(`A long session (${n.toLocaleString('en-US')} messages)`)
    expect(all.map((m) => m.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1))
  })

  it('is dated in the past, oldest first, and its session idle and last changed at its last reply', () => {
    const before = Date.now()
    const { daemon, session, all } = seeded(400)
    const times = all.map((m) => m.created_at)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(times.at(-1)).toBeLessThanOrEqual(before)
    // Minutes between exchanges (a day for 400 messages, weeks for 10,000), not the instant it was written in.
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThan(12 * 3600_000)
    const record = daemon.listSessions().find((s) => s.id === session.id)
    expect(record?.status).toBe('idle')
    expect(record?.created_at).toBe(times[0])
    expect(record?.updated_at).toBeGreaterThanOrEqual(times.at(-1) ?? Infinity)
    expect(record?.updated_at).toBeLessThanOrEqual(before)
  })

  it('holds replies with steps and without, tools that took time, and every run ended with its end alone kept', () => {
    const { daemon, all } = seeded(600)
    const replies = all.filter((m) => m.role === 'agent')
    expect(replies.every((m) => m.status === 'complete')).toBe(true)
    const withTools = replies.filter((m) => m.parts?.some((p) => p.type === 'tool'))
    const plain = replies.filter((m) => !m.parts?.some((p) => p.type !== 'text'))
    expect(withTools.length).toBeGreaterThan(replies.length / 4)
    expect(plain.length).toBeGreaterThan(0)
    for (const m of withTools) {
      for (const p of m.parts ?? []) if (p.type === 'tool') expect(p.ended_at ?? 0).toBeGreaterThan(p.started_at)
    }
    expect(replies.filter((m) => m.usage).length).toBeGreaterThan(replies.length / 2)
    const runs = daemon.state().runs
    expect(runs).toHaveLength(replies.length)
    expect(runs.every((r) => r.status === 'completed')).toBe(true)
    expect(runs.every((r) => daemon.events(r.id)?.map((e) => e.event).join() === 'done')).toBe(true)
  })

  it('has an earlier version of every hundredth exchange, the reply after it the current one', () => {
    const { all } = seeded(1000)
    const superseded = all.filter((m) => m.superseded)
    expect(superseded).toHaveLength(4)
    for (const old of superseded) {
      expect(old.role).toBe('agent')
      const current = all.filter((m: Message) => m.reply_to === old.reply_to && !m.superseded)
      expect(current).toHaveLength(1)
      expect(current[0]?.seq).toBe((old.seq ?? 0) + 1)
    }
  })

  it('is read in pages and found by search: the first word only at its very start', () => {
    const { daemon, session, all } = seeded(2000)
    const newest = ok(daemon.pageMessages(session.id, { limit: '100' }))
    expect(newest.has_more).toBe(true)
    expect(newest.messages.map((m) => m.seq)).toEqual(all.slice(-100).map((m) => m.seq))
    const found = ok(daemon.search(session.id, FIRST_WORD.toLowerCase(), '20'))
    expect(found.hits.length).toBeGreaterThan(0)
    expect(found.hits.every((h) => h.seq <= 3)).toBe(true)
    expect(found.hits[0]?.seq).toBe(1)
  })

  it('has some exchanges in Chinese', () => {
    const prompts = longSessionExchanges(200, Date.now()).map((e) => e.content)
    expect(prompts.filter((p) => /\p{Script=Han}/u.test(p)).length).toBeGreaterThan(5)
    expect(new Set(prompts).size).toBe(prompts.length)
  })

  it.each([1, MAX_LONG_SESSION + 1, 2.5, Number.NaN])('refuses %s messages, with the range in words', (n) => {
    daemon = createDaemon()
    expect(() => seedLongSession(daemon as MockDaemon, n)).toThrow(`2 to ${MAX_LONG_SESSION.toLocaleString('en-US')} messages`)
    expect(daemon.listSessions()).toEqual([])
  })
})

describe('fill', () => {
  it('refuses an unknown session, a session with a run going, and an outcome that waits for the operator', () => {
    daemon = createDaemon()
    const d = daemon
    expect(() => d.fill('ses_none', [{ content: 'hi', at: 0 }])).toThrow('No session')
    const session = ok(d.createSession({}))
    expect(() => d.fill(session.id, [{ content: 'hi', at: Date.now() - 60_000, outcome: 'approval' }])).toThrow('does not end by itself')
    // Nothing is left waiting: the run it could not end is cancelled.
    expect(d.state().runs.map((r) => r.status)).toEqual(['cancelled'])
    d.plan(['hang'])
    ok(d.send(session.id, { content: 'live', client_message_id: 'live-1' }))
    expect(() => d.fill(session.id, [{ content: 'hi', at: 0 }])).toThrow('has a run going')
  })

  it('after a fill the daemon goes on as ever: a send takes the next seq and streams', async () => {
    const { daemon, session, all } = seeded(10)
    const sent = ok(daemon.send(session.id, { content: 'and now?', client_message_id: 'after-fill' }))
    const state = daemon.state()
    const mine = state.messages.filter((m) => m.session_id === session.id)
    expect(mine.map((m) => m.seq).slice(-2)).toEqual([all.length + 1, all.length + 2])
    expect(state.runs.find((r) => r.id === sent.receipt.run_id)?.status).toBe('running')
    expect(state.sessions.find((s) => s.id === session.id)?.status).toBe('running')
  })
})
