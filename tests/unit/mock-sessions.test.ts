/**
 * Sessions in the mock daemon, over MSW's node server: untitled sessions, the title a first
 * message gives them, rename (PATCH) and delete (DELETE), and the `Date` header every response
 * carries.
 */
import type { SetupServer } from 'msw/node'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestDaemon } from '../../mocks/node'
import { titleFrom, type MockDaemon } from '../../mocks/model'
import { DERIVED_TITLE_LENGTH, MAX_TITLE_LENGTH, type RefusalBody, type SendReceipt, type Session } from '../../src/wire/types'

const ORIGIN = 'http://daemon.test'
const NOW = 1_800_000_000_123

let daemon: MockDaemon
let server: SetupServer
let clock = NOW

beforeEach(() => {
  clock = NOW
  ;({ daemon, server } = createTestDaemon({ deltaDelayMs: 1, now: () => clock }))
  server.listen({ onUnhandledRequest: 'error' })
})
afterEach(() => {
  daemon.dispose()
  server.close()
})

async function call<T = RefusalBody>(method: string, path: string, body?: unknown) {
  const response = await fetch(`${ORIGIN}/api/v1${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers, text }
}

async function newSession(body: unknown = {}): Promise<Session> {
  const created = await call<Session>('POST', '/sessions', body)
  expect(created.status).toBe(201)
  return created.body
}

let sent = 0
async function send(sid: string, content: string) {
  return call<SendReceipt>('POST', `/sessions/${sid}/messages`, { content, client_message_id: `cid-${++sent}` })
}

const titleOf = (sid: string) => daemon.state().sessions.find((s) => s.id === sid)?.title

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

describe('creating', () => {
  it.each([
    ['no body', undefined],
    ['no title', {}],
    ['an empty title', { title: '' }],
    ['a blank title', { title: ' \n\t ' }],
  ])('with %s makes an untitled session (title "")', async (_name, body) => {
    const created = await call<Session>('POST', '/sessions', body)
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ title: '', status: 'idle', created_at: NOW, updated_at: NOW })
  })

  it('keeps a given title, trimmed, up to 200 characters counted as an operator counts them', async () => {
    expect((await newSession({ title: '  Deploy notes ' })).title).toBe('Deploy notes')
    expect((await newSession({ title: 'a'.repeat(MAX_TITLE_LENGTH) })).title).toHaveLength(200)
    // 200 emoji are 400 UTF-16 units and still 200 characters.
    expect(Array.from((await newSession({ title: '🚀'.repeat(200) })).title)).toHaveLength(200)
  })

  it('refuses a title over 200 characters with 422 title_too_long and creates nothing', async () => {
    const refused = await call('POST', '/sessions', { title: 'a'.repeat(MAX_TITLE_LENGTH + 1) })
    expect(refused).toMatchObject({ status: 422, body: { error: expect.any(String), code: 'title_too_long' } })
    expect(daemon.state().sessions).toEqual([])
  })
})

describe('the title a first message gives', () => {
  it('names an untitled session with its first operator message when that message is accepted', async () => {
    const session = await newSession()
    expect((await send(session.id, 'Rotate the daemon logs\nand then restart it')).status).toBe(202)
    expect(titleOf(session.id)).toBe('Rotate the daemon logs')
    const listed = (await call<{ sessions: Session[] }>('GET', '/sessions')).body.sessions
    expect(listed[0]!.title).toBe('Rotate the daemon logs')
    // Later messages leave it alone.
    await send(session.id, 'Something else entirely')
    expect(titleOf(session.id)).toBe('Rotate the daemon logs')
  })

  it('leaves a titled session alone', async () => {
    const session = await newSession({ title: 'Mine' })
    await send(session.id, 'a first message')
    expect(titleOf(session.id)).toBe('Mine')
  })

  it('is not taken from a refused send', async () => {
    const session = await newSession()
    expect((await send(session.id, '   ')).status).toBe(422)
    daemon.plan(['send_error'])
    expect((await send(session.id, 'never stored')).status).toBe(500)
    expect(titleOf(session.id)).toBe('')
    await send(session.id, 'stored')
    expect(titleOf(session.id)).toBe('stored')
  })

  it.each([
    ['the first line, trimmed', '  \n  Why is the queue stuck?  \r\nDetails follow', 'Why is the queue stuck?'],
    ['at most 80 characters', 'x'.repeat(200), 'x'.repeat(DERIVED_TITLE_LENGTH)],
    ['no trailing space where the cut falls', `${'word '.repeat(16)}tail`, 'word '.repeat(16).trimEnd()],
    ['Chinese as written', '如何轮换守护进程的日志？\n第二行', '如何轮换守护进程的日志？'],
  ])('takes %s', (_name, content, title) => {
    expect(titleFrom(content)).toBe(title)
  })

  it('cuts on a code-point boundary, never inside a surrogate pair', () => {
    const title = titleFrom(`${'a'.repeat(79)}😀😀😀`)
    expect(Array.from(title)).toHaveLength(80)
    expect(title.endsWith('😀')).toBe(true)
    expect(title).not.toMatch(/[\uD800-\uDBFF]$/)
    expect(titleFrom('😀'.repeat(100))).toBe('😀'.repeat(80))
  })
})

describe('renaming (PATCH /sessions/:sid)', () => {
  it('answers 200 with the session, retitled (trimmed) and touched', async () => {
    const session = await newSession()
    clock = NOW + 5000
    const renamed = await call<Session>('PATCH', `/sessions/${session.id}`, { title: '  Release checklist ' })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toEqual({ ...session, title: 'Release checklist', updated_at: NOW + 5000 })
    expect(titleOf(session.id)).toBe('Release checklist')
    // A renamed session is titled: a first message no longer names it.
    await send(session.id, 'hello')
    expect(titleOf(session.id)).toBe('Release checklist')
  })

  it.each([
    ['a blank title', { title: '  \n ' }, 422, 'title_empty'],
    ['an empty title', { title: '' }, 422, 'title_empty'],
    ['a title over 200 characters', { title: 'b'.repeat(201) }, 422, 'title_too_long'],
    ['a missing title', {}, 422, 'invalid_request'],
    ['a title that is not a string', { title: 7 }, 422, 'invalid_request'],
    ['a body that is not an object', ['x'], 422, 'invalid_request'],
    ['no body', undefined, 422, 'invalid_request'],
    ['a body that is not JSON', '{title', 400, 'invalid_request'],
  ])('refuses %s with %i %s and changes nothing', async (_name, body, status, code) => {
    const session = await newSession({ title: 'kept' })
    const refused = await call('PATCH', `/sessions/${session.id}`, body)
    expect(refused).toMatchObject({ status, body: { error: expect.any(String), code } })
    expect(daemon.state().sessions).toEqual([session])
  })

  it('accepts exactly 200 characters', async () => {
    const session = await newSession()
    expect((await call<Session>('PATCH', `/sessions/${session.id}`, { title: 'c'.repeat(200) })).body.title).toHaveLength(200)
  })

  it('refuses an unknown session with 404 session_not_found', async () => {
    expect(await call('PATCH', '/sessions/ses_nope', { title: 'x' })).toMatchObject({
      status: 404,
      body: { error: expect.any(String), code: 'session_not_found' },
    })
  })
})

describe('deleting (DELETE /sessions/:sid)', () => {
  it('answers 204, then the session, its messages and its runs are gone (404)', async () => {
    const session = await newSession()
    const other = await newSession({ title: 'other' })
    const receipt = (await send(session.id, 'to be deleted')).body
    await send(other.id, 'stays')
    await until(() => daemon.state().runs.every((r) => r.status === 'completed'))
    const deleted = await call('DELETE', `/sessions/${session.id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')

    const state = daemon.state()
    expect(state.sessions.map((s) => s.id)).toEqual([other.id])
    expect(state.messages.every((m) => m.session_id === other.id)).toBe(true)
    expect(state.runs.every((r) => r.session_id === other.id)).toBe(true)
    expect((await call('GET', `/sessions/${session.id}/messages`)).body.code).toBe('session_not_found')
    expect((await call('GET', `/sessions/${session.id}/runs/${receipt.run_id}`)).body.code).toBe('run_not_found')
    expect((await call('GET', `/sessions/${session.id}/runs/${receipt.run_id}/events`)).status).toBe(404)
    expect((await send(session.id, 'too late')).body).toMatchObject({ code: 'session_not_found' })
    expect((await call('DELETE', `/sessions/${session.id}`)).body.code).toBe('session_not_found')
    expect((await call('GET', '/sessions')).body).toEqual({ sessions: [expect.objectContaining({ id: other.id })] })
  })

  it('cancels its active runs first: the running and the queued one end cancelled, their streams close', async () => {
    daemon.plan(['hang'])
    const session = await newSession()
    const running = (await send(session.id, 'hangs')).body
    const queued = (await send(session.id, 'waits')).body
    expect(queued.queued).toBe(true)
    const streams = [running, queued].map(async ({ run_id }) => {
      const response = await fetch(`${ORIGIN}/api/v1/sessions/${session.id}/runs/${run_id}/events`)
      return response.text()
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect((await call('DELETE', `/sessions/${session.id}`)).status).toBe(204)
    const [runningText, queuedText] = await Promise.all(streams)
    expect(runningText).toMatch(/event: start\n[\s\S]*event: cancelled\n/)
    expect(runningText).not.toMatch(/event: error/)
    expect(queuedText).toMatch(/event: queued\n[\s\S]*event: cancelled\n/)
    // The queued run never started.
    expect(queuedText).not.toMatch(/event: start/)
    expect(daemon.state()).toMatchObject({ sessions: [], messages: [], runs: [] })
  })

  it('cancels a run waiting in tier 1, so no later attempt runs for a deleted session', async () => {
    daemon.plan(['rate_limited:20'])
    const session = await newSession()
    const receipt = (await send(session.id, 'wait then delete')).body
    await until(() => (daemon.events(receipt.run_id) ?? []).some((e) => e.event === 'retrying'))
    expect((await call('DELETE', `/sessions/${session.id}`)).status).toBe(204)
    expect(daemon.events(receipt.run_id)).toBeUndefined()
    expect(daemon.state().runs).toEqual([])
  })

  it('refuses an unknown session with 404 session_not_found', async () => {
    expect(await call('DELETE', '/sessions/ses_nope')).toMatchObject({ status: 404, body: { code: 'session_not_found' } })
  })
})

describe('the Date header', () => {
  it('is on every response, on the daemon clock: records, refusals, streams and the mock routes', async () => {
    clock = Date.UTC(2026, 2, 4, 9, 30, 15, 600)
    const expected = 'Wed, 04 Mar 2026 09:30:15 GMT'
    const session = await newSession()
    const receipt = (await send(session.id, 'dated')).body
    const responses = [
      await call('GET', '/sessions'),
      await call('GET', `/sessions/${session.id}/messages`),
      await call('PATCH', `/sessions/${session.id}`, { title: 'x' }),
      await call('PATCH', `/sessions/${session.id}`, { title: '' }),
      await call('GET', `/sessions/${session.id}/runs/${receipt.run_id}`),
      await call('POST', `/sessions/${session.id}/runs/${receipt.run_id}/cancel`),
      await call('GET', '/sessions/ses_nope/messages'),
    ]
    for (const response of responses) expect(response.headers.get('date')).toBe(expected)
    const stream = await fetch(`${ORIGIN}/api/v1/sessions/${session.id}/runs/${receipt.run_id}/events`)
    expect(stream.headers.get('date')).toBe(expected)
    await stream.text()
    const state = await fetch(`${ORIGIN}/__mock/state`)
    expect(state.headers.get('date')).toBe(expected)
    const deleted = await call('DELETE', `/sessions/${session.id}`)
    expect(deleted.headers.get('date')).toBe(expected)
  })
})
