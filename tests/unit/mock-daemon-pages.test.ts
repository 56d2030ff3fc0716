/**
 * History in pages on the mock daemon (`shared/design/daemon-wire.md`, "History in pages"):
 * `seq`, `?limit=&before=&after=`, `?client_message_id=`, and `GET …/search`.
 */
import { describe, expect, it } from 'vitest'
import type { Message, RegenerateReceipt, SearchHit, SendReceipt, Session } from '../../src/wire/types'
import { call, finish, harness, runWith, withStepDaemon } from './mock-steps-helpers'

withStepDaemon()

type Page = { messages: Message[]; has_more: boolean }
const refusal = (status: number, code: string) => ({ status, body: { error: expect.any(String), code } })

/** A session of `count` sends (so twice as many messages), its runs queued behind one that hangs. */
async function sessionOf(count: number): Promise<string> {
  harness.daemon.plan(['hang'])
  const session = (await call<Session>('POST', '/sessions', {})).body
  for (let i = 1; i <= count; i++) {
    const sent = await call<SendReceipt>('POST', `/sessions/${session.id}/messages`, { content: `message ${i}`, client_message_id: `page-${i}` })
    expect(sent.status).toBe(202)
  }
  return session.id
}

const page = (sid: string, query: string) => call<Page>('GET', `/sessions/${sid}/messages?${query}`)
const seqs = (messages: readonly Message[]) => messages.map((m) => m.seq)

describe('seq', () => {
  it('numbers every message of a session from 1, in order, each session on its own', async () => {
    const a = await sessionOf(3)
    const b = await sessionOf(2)
    const all = harness.daemon.state().messages
    expect(seqs(all.filter((m) => m.session_id === a))).toEqual([1, 2, 3, 4, 5, 6])
    expect(seqs(all.filter((m) => m.session_id === b))).toEqual([1, 2, 3, 4])
  })

  it('is never reused: a regenerate’s reply takes the next one, the superseded keep theirs', async () => {
    const { sid, rid, mid } = await runWith('plain')
    await finish(rid)
    const regen = await call<RegenerateReceipt>('POST', `/sessions/${sid}/messages/${mid}/regenerate`)
    await finish(regen.body.run_id)
    const messages = (await call<{ messages: Message[] }>('GET', `/sessions/${sid}/messages`)).body.messages
    expect(messages.map((m) => [m.role, m.seq, m.superseded])).toEqual([
      ['operator', 1, false],
      ['agent', 2, true],
      ['agent', 3, false],
    ])
  })
})

describe('?limit=N[&before=S|&after=S]', () => {
  it('limit: the newest N, oldest first, and whether older ones remain', async () => {
    const sid = await sessionOf(5)
    expect(await page(sid, 'limit=4')).toMatchObject({ status: 200, body: { has_more: true } })
    expect(seqs((await page(sid, 'limit=4')).body.messages)).toEqual([7, 8, 9, 10])
    expect((await page(sid, 'limit=10')).body).toMatchObject({ has_more: false })
    expect(seqs((await page(sid, 'limit=1000')).body.messages)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  it('before: the N before seq S, scrolling up to the start', async () => {
    const sid = await sessionOf(5)
    const up = await page(sid, 'limit=4&before=7')
    expect(seqs(up.body.messages)).toEqual([3, 4, 5, 6])
    expect(up.body.has_more).toBe(true)
    const top = await page(sid, 'before=3&limit=4')
    expect(seqs(top.body.messages)).toEqual([1, 2])
    expect(top.body.has_more).toBe(false)
    expect((await page(sid, 'limit=4&before=1')).body).toEqual({ messages: [], has_more: false })
  })

  it('after: every message after seq S without a limit, or the first N after it with one', async () => {
    const sid = await sessionOf(5)
    expect((await page(sid, 'after=6')).body).toMatchObject({ has_more: false })
    expect(seqs((await page(sid, 'after=6')).body.messages)).toEqual([7, 8, 9, 10])
    const first = await page(sid, 'after=2&limit=3')
    expect(seqs(first.body.messages)).toEqual([3, 4, 5])
    expect(first.body.has_more).toBe(true)
    expect((await page(sid, 'after=10')).body).toEqual({ messages: [], has_more: false })
  })

  it('carries each message as the whole list does, parts and superseded ones included', async () => {
    const { sid, rid, mid } = await runWith('ok')
    await finish(rid)
    await call('POST', `/sessions/${sid}/messages/${mid}/regenerate`)
    const whole = (await call<{ messages: Message[] }>('GET', `/sessions/${sid}/messages`)).body.messages
    expect((await page(sid, 'limit=3')).body).toEqual({ messages: whole, has_more: false })
    expect(whole[1]).toMatchObject({ superseded: true, parts: expect.any(Array) })
  })

  it.each([
    'limit=0',
    'limit=1001',
    'limit=-1',
    'limit=abc',
    'limit=2.5',
    'limit=',
    'before=3',
    'limit=2&before=x',
    'limit=2&after=-1',
    'limit=2&before=3&after=1',
  ])('refuses ?%s with 422 invalid_request', async (query) => {
    const sid = await sessionOf(2)
    expect(await page(sid, query)).toEqual(refusal(422, 'invalid_request'))
  })

  it('refuses an unknown session with 404, and leaves the plain list as it was (no has_more)', async () => {
    expect(await page('ses_nope', 'limit=5')).toEqual(refusal(404, 'session_not_found'))
    const sid = await sessionOf(1)
    const plain = await call<Record<string, unknown>>('GET', `/sessions/${sid}/messages`)
    expect(Object.keys(plain.body)).toEqual(['messages'])
  })
})

describe('?client_message_id=ID', () => {
  it('gives that operator message and every agent message replying to it, superseded ones too', async () => {
    const { sid, rid, mid, cid } = await runWith('plain')
    await finish(rid)
    await call('POST', `/sessions/${sid}/messages`, { content: 'another', client_message_id: 'other-cid' })
    const regen = await call<RegenerateReceipt>('POST', `/sessions/${sid}/messages/${mid}/regenerate`)
    const found = await call<{ messages: Message[] }>('GET', `/sessions/${sid}/messages?client_message_id=${cid}`)
    expect(found.status).toBe(200)
    expect(found.body.messages.map((m) => [m.role, m.reply_to ?? m.client_message_id, m.superseded])).toEqual([
      ['operator', cid, false],
      ['agent', mid, true],
      ['agent', mid, false],
    ])
    expect(found.body.messages[2]!.run_id).toBe(regen.body.run_id)
  })

  it('gives [] when no message was sent with it, and 404 for an unknown session', async () => {
    const { sid } = await runWith('hang')
    expect(await call('GET', `/sessions/${sid}/messages?client_message_id=never-sent`)).toEqual({ status: 200, body: { messages: [] } })
    expect(await call('GET', '/sessions/ses_nope/messages?client_message_id=x')).toEqual(refusal(404, 'session_not_found'))
  })
})

describe('GET …/search', () => {
  const search = (sid: string, query: string) => call<{ hits: SearchHit[]; has_more: boolean }>('GET', `/sessions/${sid}/search?${query}`)

  it('finds text in any case in content, reasoning, tool names and tool inputs, oldest first, with a snippet', async () => {
    const { sid, rid, mid } = await runWith('ok', 'Where is the Flux Capacitor documented?')
    await finish(rid)
    const agent = harness.daemon.state().messages.find((m) => m.run_id === rid)!
    // Content (the operator's words and the query the tool got), in another case.
    const flux = await search(sid, 'q=flux%20CAPACITOR')
    expect(flux.body.hits).toEqual([
      { message_id: mid, seq: 1, snippet: 'Where is the Flux Capacitor documented?' },
      { message_id: agent.id, seq: 2, snippet: expect.stringMatching(/Flux Capacitor/) },
    ])
    expect(flux.body.has_more).toBe(false)
    // Reasoning only: "should cover it" is the agent's reasoning, not its answer.
    expect(agent.content).not.toMatch(/should cover it/i)
    expect((await search(sid, 'q=SHOULD%20COVER')).body.hits.map((h) => h.message_id)).toEqual([agent.id])
    // A tool's name, and its input.
    expect((await search(sid, 'q=search_docs')).body.hits.map((h) => h.message_id)).toEqual([agent.id])
    expect((await search(sid, 'q=%22limit%22%3A3')).body.hits).toEqual([
      { message_id: agent.id, seq: 2, snippet: expect.stringContaining('"limit":3') },
    ])
    expect((await search(sid, 'q=nothing%20like%20this')).body).toEqual({ hits: [], has_more: false })
  })

  it('gives at most limit hits, the oldest, and says more remain; finds Chinese too', async () => {
    const sid = await sessionOf(5)
    const limited = await search(sid, 'q=MESSAGE&limit=2')
    expect(limited.body.hits.map((h) => h.seq)).toEqual([1, 3])
    expect(limited.body.has_more).toBe(true)
    expect((await search(sid, 'q=message&limit=5')).body.has_more).toBe(false)
    await call('POST', `/sessions/${sid}/messages`, { content: '部署日志在哪里？', client_message_id: 'zh-1' })
    expect((await search(sid, `q=${encodeURIComponent('日志')}`)).body.hits.map((h) => h.snippet)).toEqual(['部署日志在哪里？'])
  })

  it('cuts a long text down to the match with some context either side', async () => {
    const { sid } = await runWith('hang', `${'a'.repeat(200)} needle ${'b'.repeat(200)}`)
    const [hit] = (await search(sid, 'q=needle')).body.hits
    expect(hit!.snippet).toBe(`…${'a'.repeat(39)} needle ${'b'.repeat(39)}…`)
  })

  it.each(['', 'q=', 'q=%20%20', 'q=x&limit=0', 'q=x&limit=1001', 'q=x&limit=many'])('refuses ?%s with 422 invalid_request', async (query) => {
    const { sid } = await runWith('hang')
    expect(await search(sid, query)).toEqual(refusal(422, 'invalid_request'))
  })

  it('refuses an unknown session with 404, and is in the request log', async () => {
    expect(await search('ses_nope', 'q=x')).toEqual(refusal(404, 'session_not_found'))
    expect(harness.daemon.state().requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/v1/sessions/ses_nope/search?q=x' })
  })
})
