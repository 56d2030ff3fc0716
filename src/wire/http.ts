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

export type DaemonClientOptions = {
  /** Origin of the daemon, e.g. `http://127.0.0.1:8787`, or '' for the page's own origin. */
  baseUrl: string
  fetch?: typeof fetch
  /** The browser's clock; injected so tests can skew it. */
  now?: () => number
  /** Where the offset from `Date` headers is kept; one is made when absent. */
  daemonClock?: DaemonClock
}

/**
 * How far the browser's clock is from the daemon's, estimated from `Date` headers. Times on the
 * wire (`retry_after_until`, tier 1's `retry_at`) are the daemon's; `toLocal` places them on the
 * browser's clock, so a browser clock minutes off neither fires early nor waits too long.
 */
export type DaemonClock = {
  /** daemon time − browser time, in ms (0 until a `Date` header was read). */
  offsetMs(): number
  /** A daemon time on the browser's clock. Not a number in, the same out. */
  toLocal(daemonMs: number): number
  /** Records one response: its `Date` header and when the request went out and the answer came in (browser clock). */
  observe(dateHeader: string | null, sentAt: number, receivedAt: number): void
  /** How many samples the estimate rests on. */
  samples(): number
}

/** Samples kept for the estimate: enough to narrow it, few enough to follow a clock that was set. */
export const CLOCK_SAMPLES = 15
/** An answer slower than this says little about when the daemon stamped it. */
const CLOCK_MAX_RTT_MS = 10_000

/**
 * The offset estimator. `Date` has a resolution of one second and is truncated, so the daemon's
 * time at stamping is in [D, D + 1000); it stamped between sending and receiving. So each answer
 * bounds the offset: daemon − browser ∈ [D − receivedAt, D + 1000 − sentAt]. The estimate is the
 * intersection of the recent answers' bounds, which narrows towards the true offset as the
 * requests' sub-second phases vary; when answers disagree (the browser's clock was set, a proxy
 * sent a stale `Date`) the newest answers that agree win. Within the bounds it takes 0 when 0 is
 * possible (clocks in sync stay uncorrected), else the lower bound: a wait is then never placed
 * earlier than the daemon meant, at worst a fraction of a second later.
 */
export function createDaemonClock(): DaemonClock {
  const samples: { lo: number; hi: number }[] = []
  let estimate = 0
  const recompute = () => {
    let lo = -Infinity
    let hi = Infinity
    // Newest first: stop at the first answer that contradicts the newer ones.
    for (let i = samples.length - 1; i >= 0; i--) {
      const sample = samples[i]!
      const nextLo = Math.max(lo, sample.lo)
      const nextHi = Math.min(hi, sample.hi)
      if (nextLo > nextHi) {
        samples.splice(0, i + 1)
        break
      }
      lo = nextLo
      hi = nextHi
    }
    estimate = lo <= 0 && 0 <= hi ? 0 : Math.round(lo)
  }
  return {
    offsetMs: () => estimate,
    toLocal: (daemonMs) => (Number.isFinite(daemonMs) ? daemonMs - estimate : daemonMs),
    observe(dateHeader, sentAt, receivedAt) {
      if (!dateHeader) return
      const stamped = Date.parse(dateHeader)
      if (!Number.isFinite(stamped) || !Number.isFinite(sentAt) || !Number.isFinite(receivedAt)) return
      if (receivedAt < sentAt || receivedAt - sentAt > CLOCK_MAX_RTT_MS) return
      samples.push({ lo: stamped - receivedAt, hi: stamped + 1000 - sentAt })
      if (samples.length > CLOCK_SAMPLES) samples.shift()
      recompute()
    },
    samples: () => samples.length,
  }
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
