import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isLoopbackOrigin, startDaemonServer, type DaemonServer } from '../../mocks/server'
import { replyFor } from '../../mocks/model'
import type { Session, SendReceipt } from '../../src/wire/types'

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
