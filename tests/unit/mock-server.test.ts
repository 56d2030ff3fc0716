import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allowedHosts, isLoopbackOrigin, startDaemonServer, type DaemonServer } from '../../mocks/server'
import { replyFor } from '../../mocks/model'
import type { RefusalBody, Session, SendReceipt } from '../../src/wire/types'

let daemon: DaemonServer

beforeAll(async () => {
  daemon = await startDaemonServer({ port: 0, deltaDelayMs: 2 })
})
afterAll(async () => {
  await daemon.close()
})

async function post<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${daemon.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return (await response.json()) as T
}

/** Reads an event stream over the socket, recording when each frame arrived. */
async function readFrames(response: Response): Promise<{ event: string; data: string; at: number }[]> {
  const frames: { event: string; data: string; at: number }[] = []
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return frames
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const lines = buffer.slice(0, end).split('\n')
      buffer = buffer.slice(end + 2)
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7)
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6)
      if (event !== undefined && data !== undefined) frames.push({ event, data, at: performance.now() })
    }
  }
}

describe('the mock daemon over real HTTP', () => {
  it('listens on the loopback address and port it was given (0 = any free one)', () => {
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(daemon.url).not.toMatch(/:0$/)
  })

  it('creates a session, sends, and streams the reply event by event to done', async () => {
    const session = await post<Session>('/api/v1/sessions', { title: 'over tcp' })
    expect(session.title).toBe('over tcp')
    const receipt = await post<SendReceipt>(`/api/v1/sessions/${session.id}/messages`, {
      content: 'stream me over a socket',
      client_message_id: 'tcp-1',
    })
    const response = await fetch(`${daemon.url}/api/v1/sessions/${session.id}/runs/${receipt.run_id}/events`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const frames = await readFrames(response)
    expect(frames[0]!.event).toBe('start')
    expect(frames.at(-1)!.event).toBe('done')
    const text = frames
      .filter((f) => f.event === 'delta')
      .map((f) => (JSON.parse(f.data) as { text: string }).text)
      .join('')
    expect(text).toBe(replyFor('stream me over a socket'))
    // Not buffered: the frames arrived spread over the run, not in one chunk at the end.
    expect(frames.at(-1)!.at - frames[0]!.at).toBeGreaterThan(10)
    expect(daemon.daemon.state().requests).toContainEqual({ method: 'POST', path: '/api/v1/sessions', at: expect.any(Number) })
  })

  it('replays a run with Last-Event-ID over the socket', async () => {
    const session = await post<Session>('/api/v1/sessions', {})
    const receipt = await post<SendReceipt>(`/api/v1/sessions/${session.id}/messages`, {
      content: 'replay me',
      client_message_id: 'tcp-2',
    })
    const url = `${daemon.url}/api/v1/sessions/${session.id}/runs/${receipt.run_id}/events`
    const all = await readFrames(await fetch(url))
    const tail = await readFrames(await fetch(url, { headers: { 'last-event-id': '2' } }))
    expect(tail.map((f) => f.data)).toEqual(all.slice(2).map((f) => f.data))
  })

  it('answers CORS for a loopback Origin and stays silent for a foreign one', async () => {
    const loopback = await fetch(`${daemon.url}/api/v1/sessions`, { headers: { origin: 'http://localhost:5173' } })
    expect(loopback.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const foreign = await fetch(`${daemon.url}/api/v1/sessions`, { headers: { origin: 'https://evil.example' } })
    expect(foreign.status).toBe(200)
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull()

    const preflight = await fetch(`${daemon.url}/api/v1/sessions/x/runs/y/events`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:4173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'last-event-id',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4173')
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/content-type, last-event-id/)
    const refused = await fetch(`${daemon.url}/api/v1/sessions`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost.evil.example', 'access-control-request-method': 'POST' },
    })
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    expect(refused.headers.get('access-control-allow-headers')).toBeNull()
  })

  it.each([
    ['http://localhost:5173', true],
    ['http://127.0.0.1', true],
    ['http://127.4.5.6:8080', true],
    ['http://[::1]:5173', true],
    ['https://example.com', false],
    ['http://localhost.example.com', false],
    ['http://128.0.0.1', false],
    ['null', false],
    [undefined, false],
  ])('treats %s as loopback: %s', (origin, expected) => {
    expect(isLoopbackOrigin(origin)).toBe(expected)
  })

  it('drops the connection without an answer for accept_then_drop, having stored the message', async () => {
    const session = await post<Session>('/api/v1/sessions', {})
    await post('/__mock/plan', { faults: ['accept_then_drop'] })
    await expect(
      fetch(`${daemon.url}/api/v1/sessions/${session.id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'lost', client_message_id: 'tcp-lost' }),
      }),
    ).rejects.toThrow(TypeError)
    const state = (await (await fetch(`${daemon.url}/__mock/state`)).json()) as { messages: { client_message_id?: string }[] }
    expect(state.messages.some((m) => m.client_message_id === 'tcp-lost')).toBe(true)
  })

  it('answers an unknown path with a JSON 404 refusal', async () => {
    const response = await fetch(`${daemon.url}/api/v1/nothing-here`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: expect.any(String), code: 'invalid_request' })
  })

  it('ends the handler’s stream when the client disconnects, leaving the run running', async () => {
    const session = await post<Session>('/api/v1/sessions', {})
    await post('/__mock/plan', { faults: ['hang'] })
    const receipt = await post<SendReceipt>(`/api/v1/sessions/${session.id}/messages`, {
      content: 'hang on',
      client_message_id: 'tcp-hang',
    })
    const abort = new AbortController()
    const response = await fetch(`${daemon.url}/api/v1/sessions/${session.id}/runs/${receipt.run_id}/events`, {
      signal: abort.signal,
    })
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/event: start/)
    abort.abort()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const cancel = await post<{ status: string }>(`/api/v1/sessions/${session.id}/runs/${receipt.run_id}/cancel`, undefined)
    expect(cancel.status).toBe('cancelled')
  })
})

/** A raw request over the socket, for headers fetch will not let a test set (`Host`). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(daemon.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ method, hostname, port, path, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function send(sid: string, content: string, id: string): Promise<SendReceipt> {
  return post<SendReceipt>(`/api/v1/sessions/${sid}/messages`, { content, client_message_id: id })
}

describe('sessions over real HTTP', () => {
  it('creates untitled, takes the first message as the title, renames with PATCH, deletes with DELETE', async () => {
    const session = await post<Session>('/api/v1/sessions', {})
    expect(session.title).toBe('')
    await send(session.id, 'Check the disk usage\nthen report', 'tcp-title')
    const listed = (await (await fetch(`${daemon.url}/api/v1/sessions`)).json()) as { sessions: Session[] }
    expect(listed.sessions.find((s) => s.id === session.id)!.title).toBe('Check the disk usage')

    const renamed = await fetch(`${daemon.url}/api/v1/sessions/${session.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:5173' },
      body: JSON.stringify({ title: 'Disk report' }),
    })
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toMatchObject({ id: session.id, title: 'Disk report' })
    for (const [title, code] of [['  ', 'title_empty'], ['d'.repeat(201), 'title_too_long']] as const) {
      const refused = await fetch(`${daemon.url}/api/v1/sessions/${session.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title }),
      })
      expect(refused.status).toBe(422)
      expect(await refused.json()).toEqual({ error: expect.any(String), code })
    }

    const deleted = await fetch(`${daemon.url}/api/v1/sessions/${session.id}`, { method: 'DELETE', headers: { origin: 'http://127.0.0.1:5173' } })
    expect(deleted.status).toBe(204)
    expect(await deleted.text()).toBe('')
    expect(deleted.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173')
    const gone = await fetch(`${daemon.url}/api/v1/sessions/${session.id}/messages`)
    expect(gone.status).toBe(404)
    expect(await gone.json()).toEqual({ error: expect.any(String), code: 'session_not_found' })
  })

  it('a DELETE cancels a live run: its stream gets cancelled and closes', async () => {
    const session = await post<Session>('/api/v1/sessions', {})
    await post('/__mock/plan', { faults: ['hang'] })
    const receipt = await send(session.id, 'hang until deleted', 'tcp-delete')
    const stream = fetch(`${daemon.url}/api/v1/sessions/${session.id}/runs/${receipt.run_id}/events`).then(readFrames)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect((await fetch(`${daemon.url}/api/v1/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await stream).map((f) => f.event)).toEqual(['start', 'cancelled'])
  })

  it('streams a tier 1 retry over the socket: start, retrying, then the reply', async () => {
    const session = await post<Session>('/api/v1/sessions', {})
    await post('/__mock/plan', { faults: ['tier1:1'] })
    const before = Date.now()
    const sentAt = performance.now()
    const receipt = await send(session.id, 'one blip over tcp', 'tcp-tier1')
    const frames = await readFrames(await fetch(`${daemon.url}/api/v1/sessions/${session.id}/runs/${receipt.run_id}/events`))
    expect(frames.slice(0, 2).map((f) => f.event)).toEqual(['start', 'retrying'])
    const retrying = JSON.parse(frames[1]!.data) as { attempt: number; max_attempts: number; retry_at: number; code: string }
    expect(retrying).toMatchObject({ attempt: 2, max_attempts: 3, code: 'model_unavailable' })
    expect(retrying.retry_at).toBeGreaterThanOrEqual(before + 1000)
    // The first delta waited out tier 1's 1 s.
    expect(frames[2]!.at - sentAt).toBeGreaterThanOrEqual(990)
    expect(frames.at(-1)!.event).toBe('done')
  })
})

describe('Date and its expose header', () => {
  it('sends Date on every response, and exposes it to loopback origins only', async () => {
    const origin = 'http://localhost:5173'
    const responses = [
      await fetch(`${daemon.url}/api/v1/sessions`, { headers: { origin } }),
      await fetch(`${daemon.url}/api/v1/sessions/ses_nope/messages`, { headers: { origin } }),
      await fetch(`${daemon.url}/api/v1/nothing-here`, { headers: { origin } }),
      await fetch(`${daemon.url}/__mock/state`, { headers: { origin } }),
      await fetch(`${daemon.url}/api/v1/sessions`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PATCH' } }),
    ]
    for (const response of responses) {
      const date = response.headers.get('date')
      expect(date).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/)
      expect(Math.abs(Date.parse(date!) - Date.now())).toBeLessThan(5000)
      expect(response.headers.get('access-control-expose-headers')).toMatch(/(^|, *)Date(,|$)/i)
      await response.arrayBuffer()
    }
    const stream = await fetch(`${daemon.url}/api/v1/sessions/x/runs/y/events`, { headers: { origin } })
    expect(stream.headers.get('date')).not.toBeNull()
    await stream.arrayBuffer()
    const foreign = await fetch(`${daemon.url}/api/v1/sessions`, { headers: { origin: 'https://evil.example' } })
    expect(foreign.headers.get('date')).not.toBeNull()
    expect(foreign.headers.get('access-control-expose-headers')).toBeNull()
    const none = await fetch(`${daemon.url}/api/v1/sessions`)
    expect(none.headers.get('date')).not.toBeNull()
  })

  it('sends exactly one Date header (the daemon clock’s, not a second one from node)', async () => {
    const response = await raw('GET', '/api/v1/sessions', { host: new URL(daemon.url).host })
    expect(typeof response.headers.date).toBe('string')
  })

  it('lets a loopback preflight PATCH and DELETE', async () => {
    for (const method of ['PATCH', 'DELETE']) {
      const preflight = await fetch(`${daemon.url}/api/v1/sessions/ses_x`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': method, 'access-control-request-headers': 'content-type' },
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get('access-control-allow-methods')?.split(/, */)).toContain(method)
    }
  })
})

describe('refusals of foreign pages', () => {
  const sessionsNow = async () => ((await (await fetch(`${daemon.url}/__mock/state`)).json()) as { sessions: Session[]; plan: string[] })

  it.each([
    ['POST a session', 'POST', '/api/v1/sessions', 'application/json', '{}'],
    ['POST a session as text/plain (no preflight)', 'POST', '/api/v1/sessions', 'text/plain', '{}'],
    ['POST a plan as text/plain', 'POST', '/__mock/plan', 'text/plain', '{"faults":["hang"]}'],
    ['POST a reset', 'POST', '/__mock/reset', 'text/plain', ''],
    ['PATCH a session', 'PATCH', '/api/v1/sessions/SID', 'application/json', '{"title":"pwned"}'],
    ['DELETE a session', 'DELETE', '/api/v1/sessions/SID', 'text/plain', ''],
  ])('%s from a foreign Origin: 403 origin_forbidden, and nothing changes', async (_name, method, path, type, body) => {
    const session = await post<Session>('/api/v1/sessions', { title: 'guarded' })
    const before = await sessionsNow()
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
      const response = await fetch(`${daemon.url}${path.replace('SID', session.id)}`, {
        method,
        headers: { 'content-type': type, origin },
        body: body === '' ? undefined : body,
      })
      expect(response.status).toBe(403)
      expect(response.headers.get('content-type')).toBe('application/json')
      expect(response.headers.get('access-control-allow-origin')).toBeNull()
      expect((await response.json()) as RefusalBody).toEqual({ error: expect.any(String), code: 'origin_forbidden' })
    }
    const after = await sessionsNow()
    expect(after.sessions).toEqual(before.sessions)
    expect(after.plan).toEqual(before.plan)
  })

  it('serves writes with a loopback Origin or none (curl), and reads from anywhere', async () => {
    expect((await fetch(`${daemon.url}/api/v1/sessions`, { method: 'POST', headers: { origin: 'http://[::1]:5173' } })).status).toBe(201)
    expect((await fetch(`${daemon.url}/api/v1/sessions`, { method: 'POST' })).status).toBe(201)
    expect((await fetch(`${daemon.url}/api/v1/sessions`, { headers: { origin: 'https://evil.example' } })).status).toBe(200)
  })

  it.each(['evil.example', 'evil.example:PORT', 'rebind.attacker.test:PORT', '127.0.0.1:1', 'localhost', '127.0.0.2:PORT'])(
    'refuses Host %j with 421 host_forbidden, the mock routes too',
    async (host) => {
      const port = new URL(daemon.url).port
      const before = await sessionsNow()
      for (const [method, path] of [
        ['GET', '/api/v1/sessions'],
        ['POST', '/api/v1/sessions'],
        ['GET', '/__mock/state'],
        ['POST', '/__mock/reset'],
      ] as const) {
        const response = await raw(method, path, { host: host.replace('PORT', port) }, method === 'POST' ? '{}' : undefined)
        expect(response.status, `${method} ${path}`).toBe(421)
        expect(response.headers['content-type']).toBe('application/json')
        expect(JSON.parse(response.body)).toEqual({ error: expect.any(String), code: 'host_forbidden' })
      }
      expect((await sessionsNow()).sessions).toEqual(before.sessions)
    },
  )

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT', '[::1]:PORT'])('answers Host %j', async (host) => {
    const port = new URL(daemon.url).port
    const response = await raw('GET', '/api/v1/sessions', { host: host.replace('PORT', port) })
    expect(response.status).toBe(200)
  })

  it('knows its own host names, with the port, and bare ones only on port 80', () => {
    expect([...allowedHosts('127.0.0.1', 8787)].sort()).toEqual(['127.0.0.1:8787', '[::1]:8787', 'localhost:8787'])
    expect(allowedHosts('::1', 9000).has('[::1]:9000')).toBe(true)
    expect(allowedHosts('127.0.0.1', 80).has('localhost')).toBe(true)
    expect(allowedHosts('127.0.0.1', 8787).has('localhost')).toBe(false)
  })
})
