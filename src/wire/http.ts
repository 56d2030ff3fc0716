/**
 * The daemon's HTTP endpoints. Every response body is checked against the wire schema before it
 * leaves this module: callers get typed records or one of the error classes in ./errors.ts.
 */
import type { z } from 'zod/mini'
import { isAbortError, MalformedPayloadError, RefusalError, TransportError } from './errors'
import {
  API_PREFIX,
  cancelReceiptSchema,
  messageListSchema,
  refusalBodySchema,
  regenerateReceiptSchema,
  runSchema,
  sendReceiptSchema,
  sessionListSchema,
  sessionSchema,
  type CancelReceipt,
  type Message,
  type RegenerateReceipt,
  type Run,
  type SendBody,
  type SendReceipt,
  type Session,
} from './types'

export type DaemonClientOptions = {
  /** Origin of the daemon, e.g. `http://127.0.0.1:8787`, or '' for the page's own origin. */
  baseUrl: string
  fetch?: typeof fetch
}

export type DaemonClient = ReturnType<typeof createDaemonClient>

/** Longest piece of a non-JSON error body kept for the operator to see. */
const RAW_BODY_LIMIT = 500

/** Builds the client for one daemon. All methods reject with RefusalError, TransportError or MalformedPayloadError. */
export function createDaemonClient({ baseUrl, fetch: fetchImpl = (...args) => globalThis.fetch(...args) }: DaemonClientOptions) {
  const root = `${baseUrl.replace(/\/$/, '')}${API_PREFIX}`
  const sessionPath = (sid: string) => `/sessions/${encodeURIComponent(sid)}`
  const runPath = (sid: string, rid: string) => `${sessionPath(sid)}/runs/${encodeURIComponent(rid)}`

  async function request(method: string, path: string, init: { body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {}) {
    let response: Response
    try {
      response = await fetchImpl(`${root}${path}`, {
        method,
        signal: init.signal,
        headers: {
          accept: 'application/json',
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      })
    } catch (error) {
      if (isAbortError(error)) throw error
      throw new TransportError(error instanceof Error ? error.message : String(error), { cause: error })
    }
    if (!response.ok) throw await refusalFrom(response)
    return response
  }

  async function json<S extends z.ZodMiniType>(schema: S, endpoint: string, responsePromise: Promise<Response>): Promise<z.infer<S>> {
    const response = await responsePromise
    let body: unknown
    try {
      body = await response.json()
    } catch (error) {
      if (isAbortError(error)) throw error
      throw new MalformedPayloadError(endpoint, 'the body is not JSON')
    }
    const parsed = schema.safeParse(body)
    if (!parsed.success) throw new MalformedPayloadError(endpoint, parsed.error.issues[0]?.message ?? 'invalid')
    return parsed.data
  }

  return {
    async listSessions(signal?: AbortSignal): Promise<Session[]> {
      const body = await json(sessionListSchema, 'GET /sessions', request('GET', '/sessions', { signal }))
      return body.sessions
    },
    createSession(title?: string): Promise<Session> {
      return json(sessionSchema, 'POST /sessions', request('POST', '/sessions', { body: title === undefined ? {} : { title } }))
    },
    renameSession(sessionId: string, title: string): Promise<Session> {
      return json(sessionSchema, 'PATCH /sessions/:sid', request('PATCH', sessionPath(sessionId), { body: { title } }))
    },
    /** Deletes a session; the daemon cancels its active runs first. */
    async deleteSession(sessionId: string): Promise<void> {
      await request('DELETE', sessionPath(sessionId))
    },
    async listMessages(sessionId: string, signal?: AbortSignal): Promise<Message[]> {
      const path = `${sessionPath(sessionId)}/messages`
      const body = await json(messageListSchema, 'GET /sessions/:sid/messages', request('GET', path, { signal }))
      return body.messages
    },
    sendMessage(sessionId: string, body: SendBody, signal?: AbortSignal): Promise<SendReceipt> {
      const path = `${sessionPath(sessionId)}/messages`
      return json(sendReceiptSchema, 'POST /sessions/:sid/messages', request('POST', path, { body, signal }))
    },
    regenerate(sessionId: string, messageId: string, signal?: AbortSignal): Promise<RegenerateReceipt> {
      const path = `${sessionPath(sessionId)}/messages/${encodeURIComponent(messageId)}/regenerate`
      return json(regenerateReceiptSchema, 'POST …/regenerate', request('POST', path, { signal }))
    },
    getRun(sessionId: string, runId: string, signal?: AbortSignal): Promise<Run> {
      return json(runSchema, 'GET /sessions/:sid/runs/:rid', request('GET', runPath(sessionId, runId), { signal }))
    },
    cancelRun(sessionId: string, runId: string): Promise<CancelReceipt> {
      return json(cancelReceiptSchema, 'POST …/cancel', request('POST', `${runPath(sessionId, runId)}/cancel`))
    },
    /** Opens a run's event stream; the body is read by ./events.ts. */
    openEvents(sessionId: string, runId: string, lastEventId: number | undefined, signal: AbortSignal): Promise<Response> {
      return request('GET', `${runPath(sessionId, runId)}/events`, {
        signal,
        headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }) },
      })
    },
  }
}

/** Codes implied by a bare status with no body. */
const STATUS_CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  500: 'internal_error',
  502: 'daemon_unavailable',
  503: 'daemon_unavailable',
  504: 'daemon_unavailable',
}

/** Reads a refusal: the `{ error, code }` envelope, or the status alone when the body is not one. */
async function refusalFrom(response: Response): Promise<RefusalError> {
  const text = await response.text().catch(() => '')
  try {
    const parsed = refusalBodySchema.safeParse(JSON.parse(text))
    if (parsed.success) return new RefusalError(response.status, parsed.data.code, parsed.data.error)
  } catch {
    // not JSON: fall through and keep what the daemon (or a proxy in front of it) said
  }
  const raw = text.trim().slice(0, RAW_BODY_LIMIT)
  if (raw) return new RefusalError(response.status, '', raw)
  // An empty answer (a proxy in front of the daemon, a daemon going down): the status alone still
  // names a code the client can word, rather than an English status line.
  return new RefusalError(response.status, STATUS_CODES[response.status] ?? '', `HTTP ${response.status} ${response.statusText}`.trim())
}
