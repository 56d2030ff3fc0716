/**
 * The daemon's HTTP endpoints. Every response body is checked against the wire schema before it
 * leaves this module: callers get typed records or one of the error classes in ./errors.ts.
 */
import type { z } from 'zod/mini'
import { isAbortError, MalformedPayloadError, RefusalError, TransportError } from './errors'
import {
  API_PREFIX,
  cancelReceiptSchema,
  decisionReceiptSchema,
  readMessageList,
  refusalBodySchema,
  regenerateReceiptSchema,
  runSchema,
  searchResultSchema,
  sendReceiptSchema,
  sessionListSchema,
  sessionSchema,
  type CancelReceipt,
  type DecisionReceipt,
  type Message,
  type MessagePage,
  type PageQuery,
  type RegenerateReceipt,
  type Run,
  type SearchHit,
  type SendBody,
  type SendReceipt,
  type Session,
  type ToolDecision,
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
  const toolPath = (sid: string, rid: string, tcid: string) => `${runPath(sid, rid)}/tools/${encodeURIComponent(tcid)}`
  const query = (params: Record<string, string | number | undefined>) =>
    new URLSearchParams(Object.entries(params).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]]))).toString()

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

  /** A list of messages read as `listMessages` reads it (record by record, pausing between slices). */
  async function messagesOf(endpoint: string, body: unknown, signal: AbortSignal | undefined, slice?: number) {
    const list = await readMessageList(body, () => pauseForPage(signal), slice)
    if (!list.ok) throw new MalformedPayloadError(endpoint, list.issue)
    return list
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
      const list = await messagesOf(endpoint, await bodyOf(endpoint, request('GET', path, { signal })), signal)
      unreadable.set(sessionId, list.skipped)
      return list.messages
    },
    /** A page of history by `seq`: the newest `limit`, the `limit` before `before`, or those after `after` (all of them without a limit). */
    async listMessagesPage(
      sessionId: string,
      page: PageQuery,
      signal?: AbortSignal,
    ): Promise<MessagePage> {
      const endpoint = 'GET /sessions/:sid/messages?limit'
      const body = await bodyOf(endpoint, request('GET', `${sessionPath(sessionId)}/messages?${query(page)}`, { signal }))
      const hasMore = (body as { has_more?: unknown } | null)?.has_more
      if (typeof hasMore !== 'boolean') throw new MalformedPayloadError(endpoint, 'has_more is not a boolean')
      // A page lands while the operator scrolls: read in small slices, each a few milliseconds,
      // so the frames of the scroll go on between them.
      const list = await messagesOf(endpoint, body, signal, PAGE_SLICE)
      return { messages: list.messages, has_more: hasMore, skipped: list.skipped }
    },
    /** The operator message sent with `clientMessageId` and the agent messages replying to it (none: `[]`). */
    async findByClientMessageId(sessionId: string, clientMessageId: string, signal?: AbortSignal): Promise<Message[]> {
      const endpoint = 'GET /sessions/:sid/messages?client_message_id'
      const path = `${sessionPath(sessionId)}/messages?${query({ client_message_id: clientMessageId })}`
      return (await messagesOf(endpoint, await bodyOf(endpoint, request('GET', path, { signal })), signal)).messages
    },
    /** Messages whose content, reasoning, tool names or inputs hold `q` (any case), oldest first. */
    async searchMessages(
      sessionId: string,
      q: string,
      limit: number,
      signal?: AbortSignal,
    ): Promise<{ hits: SearchHit[]; has_more: boolean; skipped: number }> {
      const path = `${sessionPath(sessionId)}/search?${query({ q, limit })}`
      const body = await json(searchResultSchema, 'GET /sessions/:sid/search', request('GET', path, { signal }))
      return { hits: body.hits.items, has_more: body.has_more, skipped: body.hits.skipped }
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
    /** Answers a tool awaiting approval; the same decision again is answered as it stands. */
    decide(sessionId: string, runId: string, toolCallId: string, decision: ToolDecision, signal?: AbortSignal): Promise<DecisionReceipt> {
      const path = `${toolPath(sessionId, runId, toolCallId)}/decision`
      return json(decisionReceiptSchema, 'POST …/decision', request('POST', path, { body: { decision }, signal }))
    },
    /** A tool's whole output (history and the stream carry at most 16 KiB of it). */
    async toolOutput(sessionId: string, runId: string, toolCallId: string, signal?: AbortSignal): Promise<string> {
      const path = `${toolPath(sessionId, runId, toolCallId)}/output`
      const response = await request('GET', path, { signal, headers: { accept: 'text/plain' } })
      try {
        return await response.text()
      } catch (error) {
        if (isAbortError(error)) throw error
        throw new TransportError(error instanceof Error ? error.message : String(error), { cause: error })
      }
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

/** Messages of a page read between two pauses (agent replies with steps are several KB each). */
const PAGE_SLICE = 20

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
function codeOfStatus(status: number): string {
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
