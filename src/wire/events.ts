/**
 * Follows a run's event stream: `fetch` + AbortController, `eventsource-parser` for the framing,
 * typed frames out. A connection that ends without a terminal event is not the end of the run:
 * it reattaches with `Last-Event-ID`, backing off, and only gives up with `stream_ended`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { isAbortError, RefusalError, StreamFailure, TransportError } from './errors'
import type { DaemonClient } from './http'
import { refusalBodySchema, streamEventSchemas, type StreamFrame } from './types'

export type TerminalFrame = Extract<StreamFrame, { type: 'done' | 'cancelled' | 'error' }>

export type FollowRunOptions = {
  client: Pick<DaemonClient, 'openEvents'>
  sessionId: string
  runId: string
  /** Resume after this event (a reattachment after a reload); undefined replays from the start. */
  lastEventId?: number
  signal: AbortSignal
  onFrame: (frame: StreamFrame) => void
  /** Reattachments in a row that bring no new event before giving up. */
  maxReattach?: number
  /** Connections in a row that may end with a lag frame before giving up (progress or not). */
  maxLagged?: number
  /** Wait before reattachment n (1-based). */
  backoffMs?: (attempt: number) => number
}

/** Longest plain-text error frame kept as it came. */
const RAW_FRAME_LIMIT = 500

export const DEFAULT_MAX_REATTACH = 4
export const DEFAULT_MAX_LAGGED = 8
export const defaultBackoffMs = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), 4000)

/**
 * Reads the run's events until a terminal frame, which it returns (after passing it to `onFrame`).
 * Rejects with RefusalError when the daemon refuses the stream (e.g. 404 run_not_found; a 5xx is
 * reattached instead), StreamFailure('stream_ended') when reattaching is exhausted, or an
 * AbortError when `signal` aborts.
 */
export async function followRun(options: FollowRunOptions): Promise<TerminalFrame> {
  const { client, sessionId, runId, signal, onFrame } = options
  const maxReattach = options.maxReattach ?? DEFAULT_MAX_REATTACH
  const maxLagged = options.maxLagged ?? DEFAULT_MAX_LAGGED
  const backoffMs = options.backoffMs ?? defaultBackoffMs
  let lastEventId = options.lastEventId
  let failures = 0
  let lagStreak = 0

  for (;;) {
    signal.throwIfAborted()
    const before = lastEventId
    let terminal: TerminalFrame | undefined
    let lagged = false
    try {
      const response = await client.openEvents(sessionId, runId, lastEventId, signal)
      await readEvents(response, signal, (frame) => {
        // The connection fell behind the broadcast: the run goes on, so pick it up again. A lag
        // frame is no progress (it repeats the last id): only frames passed on move the id.
        if (frame.type === 'error' && (frame.code === 'stream_lagged' || frame.code === 'stream_ended')) {
          lagged = true
          return
        }
        // An id at or before the last one is a replay (or a daemon counting backwards): passing
        // it on would append the same text twice, and resuming from it would ask for it again.
        if (lastEventId !== undefined && frame.id <= lastEventId) return
        lastEventId = frame.id
        onFrame(frame)
        if (frame.type === 'done' || frame.type === 'cancelled' || frame.type === 'error') terminal = frame
      })
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw abortReason(signal, error)
      // A refusal (run_not_found, unauthorized…) will not change by asking again. A 5xx will: a
      // restarting daemon answers 503 daemon_unavailable, a proxy in front of it 502/504, and
      // reading events changes nothing, so it is reattached like a dropped connection.
      if (error instanceof RefusalError) {
        if (error.status < 500) throw error
      } else if (!(error instanceof TransportError) && !(error instanceof TypeError)) throw error
    }
    if (terminal) return terminal

    // Reattachments in a row that brought nothing new; and, apart, connections in a row that the
    // daemon ended with a lag frame (new events or not): a daemon that lags every stream would
    // otherwise be asked again with no pause for ever.
    failures = lastEventId !== before ? 1 : failures + 1
    lagStreak = lagged ? lagStreak + 1 : 0
    if (failures > maxReattach || lagStreak > maxLagged) {
      throw new StreamFailure('stream_ended', 'The live connection ended before the run finished.')
    }
    await sleep(backoffMs(Math.max(failures, lagStreak)), signal)
  }
}

/** Feeds the body through the SSE parser, handing each readable frame to `onFrame`. Resolves when the body ends. */
async function readEvents(response: Response, signal: AbortSignal, onFrame: (frame: StreamFrame) => void): Promise<void> {
  if (!response.body) return
  let stopped = false
  const parser = createParser({
    onEvent(event) {
      if (stopped) return
      const frame = toFrame(event)
      if (!frame) return
      onFrame(frame)
      if (frame.type === 'done' || frame.type === 'cancelled' || frame.type === 'error') stopped = true
    },
  })
  // The bytes are decoded here rather than through a TextDecoderStream: a pipe moves every
  // network chunk through two more streams, several promise turns each, and a reply of 2,000
  // deltas a second arrives in about as many chunks. A streaming decoder keeps a character split
  // across two chunks whole, as the pipe did.
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  const onAbort = () => void reader.cancel().catch(() => undefined)
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    while (!stopped) {
      const { value, done } = await reader.read()
      if (done) {
        const rest = decoder.decode()
        if (rest !== '') parser.feed(rest)
        break
      }
      parser.feed(decoder.decode(value, { stream: true }))
    }
  } catch (error) {
    if (signal.aborted) throw abortReason(signal, error)
    throw new TransportError(error instanceof Error ? error.message : String(error), { cause: error })
  } finally {
    signal.removeEventListener('abort', onAbort)
    // A terminal frame ends our interest; let go of the connection without waiting on it.
    if (stopped) void reader.cancel().catch(() => undefined)
  }
}

/**
 * Turns one SSE event into a typed frame, or undefined for what cannot be read: an event with no
 * numeric id, an unknown event name, or data that does not match its event. Skipping is what the
 * SSE spec asks of a reader; the run's final state still arrives from history.
 */
export function toFrame(event: EventSourceMessage): StreamFrame | undefined {
  const id = Number(event.id)
  if (event.id === undefined || event.id === '' || !Number.isFinite(id)) return undefined
  if (event.event === 'error') return { type: 'error', id, ...errorData(event.data) }
  const name = event.event
  if (!isDataEvent(name)) return undefined
  let data: unknown
  try {
    data = JSON.parse(event.data)
  } catch {
    return undefined
  }
  // Every event but `error` is its schema's data with the event's name and id: one that cannot
  // be read is skipped (a `retrying`, a step or a usage alike), and the run reads as before.
  const parsed = streamEventSchemas[name].safeParse(data)
  return parsed.success ? ({ type: name, id, ...parsed.data } as StreamFrame) : undefined
}

type DataEventName = keyof typeof streamEventSchemas
const isDataEvent = (name: string | undefined): name is DataEventName => name !== undefined && Object.hasOwn(streamEventSchemas, name)

/** An `error` frame's data: the refusal envelope, or plain text from an older daemon, shown as it came. */
function errorData(data: string): { code: string | undefined; message: string } {
  try {
    const parsed = refusalBodySchema.safeParse(JSON.parse(data))
    if (parsed.success) return { code: parsed.data.code, message: parsed.data.error }
  } catch {
    // not JSON
  }
  const text = data.trim()
  return { code: undefined, message: text.length > RAW_FRAME_LIMIT ? `${text.slice(0, RAW_FRAME_LIMIT)}…` : text }
}

function abortReason(signal: AbortSignal, error: unknown): unknown {
  if (signal.reason !== undefined) return signal.reason
  return error
}

/** What an aborted read or wait rejects with: the signal's reason, else an AbortError. */
export function abortedBy(signal: AbortSignal): unknown {
  return abortReason(signal, new DOMException('Aborted', 'AbortError'))
}

/** Waits `ms` on `setTimeout` (so fake timers drive it), rejecting at once if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortedBy(signal))
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortedBy(signal))
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
