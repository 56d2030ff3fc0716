/**
 * The daemon's HTTP endpoints. Every response body is checked against the wire schema before it
 * leaves this module: callers get typed records or one of the error classes in ./errors.ts.
 */
import type { z } from 'zod/mini'
import { isAbortError, MalformedPayloadError, RefusalError, TransportError } from './errors'
import {
  API_PREFIX,
  cancelReceiptSchema,
  readMessageList,
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
import { createDaemonClock, type DaemonClock } from './clock'

export type DaemonClientOptions = {
  /** Origin of the daemon, e.g. `http://127.0.0.1:8787`, or '' for the page's own origin. */
  baseUrl: string
  fetch?: typeof fetch
  /** The browser's clock; injected so tests can skew it. */
  now?: () => number
  /** Where the offset from `Date` headers is kept; one is made when absent. */
  daemonClock?: DaemonClock
}

export type DaemonClient = ReturnType<typeof createDaemonClient>

/** Builds the client for one daemon. All methods reject with RefusalError, TransportError or MalformedPayloadError. */
export function createDaemonClient({
  baseUrl,
  fetch: fetchImpl = (...args) => globalThis.fetch(...args),
  now = () => Date.now(),
  daemonClock = createDaemonClock(),
}: DaemonClientOptions) {
  /** Records that could not be read in the last history read of each session. */
  const unreadable = new Map<string, number>()
  const root = `${baseUrl.replace(/\/$/, '')}${API_PREFIX}`
  const sessionPath = (sid: string) => `/sessions/${encodeURIComponent(sid)}`
  const runPath = (sid: string, rid: string) => `${sessionPath(sid)}/runs/${encodeURIComponent(rid)}`

  async function request(method: string, path: string, init: { body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {}) {
    let response: Response
    const sentAt = now()
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
    // Every answer, a refusal too, says what time the daemon thinks it is.
    daemonClock.observe(response.headers.get('date'), sentAt, now())
    if (!response.ok) throw await refusalFrom(response)
    return response
  }

  async function bodyOf(endpoint: string, responsePromise: Promise<Response>): Promise<unknown> {
    const response = await responsePromise
    try {
      return await response.json()
    } catch (error) {
      if (isAbortError(error)) throw error
      throw new MalformedPayloadError(endpoint, 'the body is not JSON')
    }
  }

  async function json<S extends z.ZodMiniType>(schema: S, endpoint: string, responsePromise: Promise<Response>): Promise<z.infer<S>> {
    const body = await bodyOf(endpoint, responsePromise)
    const parsed = schema.safeParse(body)
    if (!parsed.success) throw new MalformedPayloadError(endpoint, parsed.error.issues[0]?.message ?? 'invalid')
    return parsed.data
  }

  return {
    /** The daemon's clock as measured from this client's answers. */
    daemonClock,
    /**
     * How many records the last history read of a session could not read (skipped, so the rest
     * of the conversation shows): "1 message could not be read".
     */
    unreadableCount: (sessionId: string): number => unreadable.get(sessionId) ?? 0,
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
      const endpoint = 'GET /sessions/:sid/messages'
      const list = await readMessageList(await bodyOf(endpoint, request('GET', path, { signal })), () => pauseForPage(signal))
      if (!list.ok) throw new MalformedPayloadError(endpoint, list.issue)
      unreadable.set(sessionId, list.skipped)
      return list.messages
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

/**
 * Gives the page a turn between two slices of a long read: `scheduler.yield()` where there is one
 * (the read goes on ahead of work queued after it), else a message to itself, which no timer
 * clamp delays. An abort meanwhile ends the read.
 */
async function pauseForPage(signal: AbortSignal | undefined): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler
  if (typeof scheduler?.yield === 'function') await scheduler.yield()
  else
    await new Promise<void>((resolve) => {
      const { port1, port2 } = new MessageChannel()
      port1.onmessage = () => {
        port1.close()
        resolve()
      }
      port2.postMessage(null)
    })
  signal?.throwIfAborted()
}

/** The code a bare status implies: the table's, else the class's (any 5xx is the daemon being unavailable). */
export function codeOfStatus(status: number): string {
  const known = STATUS_CODES[status]
  if (known) return known
  if (status >= 500 && status < 600) return 'daemon_unavailable'
  return ''
}

/**
 * Reads a refusal: the `{ error, code }` envelope. Anything else (a proxy's 503 HTML page, a JSON
 * body of another shape, nothing at all) did not come from the daemon's wire: it takes the code
 * its status implies, so the operator reads a worded reason, never "Not sent: <html>…". What was
 * said is kept, trimmed, as the message for logs.
 */
async function refusalFrom(response: Response): Promise<RefusalError> {
  const text = await response.text().catch(() => '')
  try {
    const parsed = refusalBodySchema.safeParse(JSON.parse(text))
    if (parsed.success) return new RefusalError(response.status, parsed.data.code, parsed.data.error)
  } catch {
    // not JSON: fall through to the status
  }
  // The body is a proxy's page or some other shape: never the operator's reason. The status line
  // is what a log (and a code this client has no words for) gets instead.
  return new RefusalError(response.status, codeOfStatus(response.status), `HTTP ${response.status} ${response.statusText}`.trim())
}
