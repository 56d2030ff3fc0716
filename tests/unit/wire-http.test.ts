/**
 * The HTTP client against the mock daemon (MSW in node): every endpoint's receipt is checked and
 * typed, and every way a request can fail becomes one of the wire's error classes, with the code
 * the client words it by.
 */
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { startMockDaemonForFile } from '../setup/mock-daemon'
import { isAbortError, MalformedPayloadError, RefusalError, TransportError } from '../../src/wire/errors'
import { createDaemonClient, type DaemonClient } from '../../src/wire/http'
import { MAX_CONTENT_LENGTH } from '../../src/wire/types'

const { daemon, server } = startMockDaemonForFile()

const client = createDaemonClient({ baseUrl: 'http://daemon.test' })
let ids = 0
const body = (content: string) => ({ content, client_message_id: `cid-${++ids}` })

/** Resolves to what `promise` rejected with; fails the test if it resolved. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection, the call resolved')
}

async function refusal(promise: Promise<unknown>): Promise<RefusalError> {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(RefusalError)
  return error as RefusalError
}

/** A session with one operator message whose run never ends (nothing changes under the test). */
async function sessionWithMessage() {
  daemon.plan(['hang'])
  const session = await client.createSession('Wire')
  const receipt = await client.sendMessage(session.id, body('hello'))
  return { session, receipt }
}

describe('receipts', () => {
  it('creates and lists sessions, newest first', async () => {
    const first = await client.createSession('First')
    const second = await client.createSession()
    expect(first).toMatchObject({ title: 'First', status: 'idle' })
    expect(typeof first.id).toBe('string')
    // Untitled until its first message: the client labels it in the operator's language.
    expect(second.title).toBe('')
    expect((await client.listSessions()).map((s) => s.id)).toEqual([second.id, first.id])
  })

  it('sends a message and lists it with its reply', async () => {
    const { session, receipt } = await sessionWithMessage()
    expect(receipt).toEqual({ message_id: expect.any(String), run_id: expect.any(String), queued: false })
    const messages = await client.listMessages(session.id)
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['operator', undefined],
      ['agent', 'streaming'],
    ])
    expect(messages[0]).toMatchObject({ id: receipt.message_id, content: 'hello', superseded: false })
    expect(messages[1]).toMatchObject({ run_id: receipt.run_id, reply_to: receipt.message_id })
  })

  it('reads a run, cancels it, and regenerates from the operator message', async () => {
    const { session, receipt } = await sessionWithMessage()
    expect(await client.getRun(session.id, receipt.run_id)).toMatchObject({
      id: receipt.run_id,
      anchor_message_id: receipt.message_id,
      status: 'running',
    })
    expect(await client.cancelRun(session.id, receipt.run_id)).toEqual({ run_id: receipt.run_id, status: 'cancelled' })
    // Cancelling an ended run is not an error: it reports the final status.
    expect(await client.cancelRun(session.id, receipt.run_id)).toEqual({ run_id: receipt.run_id, status: 'cancelled' })

    daemon.plan(['hang'])
    const regenerated = await client.regenerate(session.id, receipt.message_id)
    const reply = daemon.state().messages.find((m) => m.run_id === receipt.run_id)!
    expect(regenerated).toEqual({ run_id: expect.any(String), superseded: [reply.id], queued: false })
    expect(regenerated.run_id).not.toBe(receipt.run_id)
  })

  it('opens an event stream', async () => {
    const { session, receipt } = await sessionWithMessage()
    const controller = new AbortController()
    const response = await client.openEvents(session.id, receipt.run_id, undefined, controller.signal)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    controller.abort()
  })
})

describe('refusals', () => {
  it('become RefusalError with the status, the code and the daemon sentence', async () => {
    const { session, receipt } = await sessionWithMessage()
    const cases: Array<[Promise<unknown>, number, string]> = [
      [client.listMessages('missing'), 404, 'session_not_found'],
      [client.sendMessage('missing', body('x')), 404, 'session_not_found'],
      [client.sendMessage(session.id, body('   ')), 422, 'content_empty'],
      [client.sendMessage(session.id, body('x'.repeat(MAX_CONTENT_LENGTH + 1))), 422, 'content_too_long'],
      [client.sendMessage(session.id, { content: 'again', client_message_id: 'cid-dup' }).then(() => client.sendMessage(session.id, { content: 'again', client_message_id: 'cid-dup' })), 409, 'message_duplicate'],
      [client.regenerate(session.id, 'missing'), 404, 'message_not_found'],
      [client.getRun(session.id, 'missing'), 404, 'run_not_found'],
      [client.cancelRun(session.id, 'missing'), 404, 'run_not_found'],
      [client.openEvents(session.id, 'missing', undefined, new AbortController().signal), 404, 'run_not_found'],
      [client.createSession('t'.repeat(1000)), 422, 'title_too_long'],
    ]
    for (const [promise, status, code] of cases) {
      const error = await refusal(promise)
      expect({ status: error.status, code: error.code }).toEqual({ status, code })
      expect(error.message.length).toBeGreaterThan(0)
    }
    const reply = daemon.state().messages.find((m) => m.run_id === receipt.run_id)!
    const notOperator = await refusal(client.regenerate(session.id, reply.id))
    expect([notOperator.status, notOperator.code]).toEqual([422, 'not_operator_message'])
  })

  it('a send_error is a 500 internal_error that creates nothing', async () => {
    const session = await client.createSession()
    daemon.plan(['send_error'])
    const error = await refusal(client.sendMessage(session.id, body('hello')))
    expect([error.status, error.code]).toEqual([500, 'internal_error'])
    expect(daemon.state().messages).toEqual([])
  })

  it('gives a body that is not the envelope the code its status implies, never its markup', async () => {
    server.use(
      http.get('*/api/v1/sessions', () => new HttpResponse('<html><body>502 Bad Gateway</body></html>', { status: 502 })),
      http.get('*/api/v1/sessions/:sid/messages', () => HttpResponse.json({ message: 'no code here' }, { status: 400 })),
    )
    const html = await refusal(client.listSessions())
    expect({ status: html.status, code: html.code, message: html.message }).toEqual({
      status: 502,
      code: 'daemon_unavailable',
      message: 'HTTP 502 Bad Gateway',
    })
    const wrongShape = await refusal(client.listMessages('any'))
    expect({ status: wrongShape.status, code: wrongShape.code, message: wrongShape.message }).toEqual({
      status: 400,
      code: 'invalid_request',
      message: 'HTTP 400 Bad Request',
    })
  })

  it('an empty refusal body still says which status it was, with the code that status implies', async () => {
    server.use(http.get('*/api/v1/sessions', () => new HttpResponse(null, { status: 503, statusText: 'Service Unavailable' })))
    const error = await refusal(client.listSessions())
    expect([error.status, error.code]).toEqual([503, 'daemon_unavailable'])
    expect(error.message).toContain('503')
  })

  it('an empty refusal body with a status that implies no code keeps the status line', async () => {
    server.use(http.get('*/api/v1/sessions', () => new HttpResponse(null, { status: 418, statusText: "I'm a teapot" })))
    const error = await refusal(client.listSessions())
    expect([error.status, error.code]).toEqual([418, ''])
    expect(error.message).toBe("HTTP 418 I'm a teapot")
  })
})

describe('transport and payload failures', () => {
  it('a network error becomes TransportError (code transport_failed)', async () => {
    server.use(http.get('*/api/v1/sessions', () => HttpResponse.error()))
    const error = await rejection(client.listSessions())
    expect(error).toBeInstanceOf(TransportError)
    expect((error as TransportError).code).toBe('transport_failed')
  })

  it('accept_then_drop: the daemon has the message, the client sees a TransportError', async () => {
    const session = await client.createSession()
    daemon.plan(['accept_then_drop', 'hang'])
    expect(await rejection(client.sendMessage(session.id, body('lost receipt')))).toBeInstanceOf(TransportError)
    expect(daemon.state().messages.filter((m) => m.role === 'operator').map((m) => m.content)).toEqual(['lost receipt'])
  })

  it('a 2xx body that is not what the wire promises becomes MalformedPayloadError (payload_invalid), for every endpoint', async () => {
    const sessionId = 'ses'
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['listSessions', () => client.listSessions()],
      ['createSession', () => client.createSession('x')],
      ['listMessages', () => client.listMessages(sessionId)],
      ['sendMessage', () => client.sendMessage(sessionId, body('x'))],
      ['regenerate', () => client.regenerate(sessionId, 'msg')],
      ['getRun', () => client.getRun(sessionId, 'run')],
      ['cancelRun', () => client.cancelRun(sessionId, 'run')],
    ]
    for (const reply of [() => HttpResponse.json({ unexpected: true }), () => HttpResponse.text('not json at all')]) {
      server.use(http.all('*/api/v1/*', reply))
      for (const [name, call] of calls) {
        const error = await rejection(call())
        expect(error, name).toBeInstanceOf(MalformedPayloadError)
        expect((error as MalformedPayloadError).code, name).toBe('payload_invalid')
      }
    }
    // One unreadable record in a list is skipped, not the whole list.
    server.use(http.get('*/api/v1/sessions', () => HttpResponse.json({ sessions: [{ id: 1, title: 'no dates' }] })))
    expect(await client.listSessions()).toEqual([])
  })

  it('an aborted request rejects as an abort, never as a transport error', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await rejection(client.listSessions(controller.signal))
    expect(isAbortError(error)).toBe(true)
    expect(error).not.toBeInstanceOf(TransportError)
  })

  it('a custom fetch and a trailing slash in the base URL are honoured', async () => {
    const seen: string[] = []
    const custom: DaemonClient = createDaemonClient({
      baseUrl: 'http://daemon.test/',
      fetch: (input, init) => {
        seen.push(String(input))
        return fetch(input, init)
      },
    })
    await custom.listSessions()
    expect(seen).toEqual(['http://daemon.test/api/v1/sessions'])
  })
})
