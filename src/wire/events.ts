/**
 * Follows a run's event stream: `fetch` + AbortController, `eventsource-parser` for the framing,
 * typed frames out. A connection that ends without a terminal event is not the end of the run:
 * it reattaches with `Last-Event-ID`, backing off. A connection that carries no byte for
 * STREAM_IDLE_MS is dead even while it is open (a proxy swallowed it) and is dropped the same way.
 * While the daemon says the run goes on, it never gives up for good.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { isAbortError, RefusalError, RunEnded, StreamFailure, TransportError } from './errors'
import type { DaemonClient } from './http'
import { STREAM_IDLE_MS } from './liveness'
import { isRunEnded } from './status'
import { refusalBodySchema, streamEventSchemas, type RunStatus, type StreamFrame } from './types'

export type TerminalFrame = Extract<StreamFrame, { type: 'done' | 'cancelled' | 'error' }>

/**
 * The connection to a run's stream as the operator should hear of it: `lost` from the moment one
 * is found dead or dropped until a new one delivers a byte, `unreachable` once reattaching has
 * failed for long (still trying), `open` again at the first byte.
 */
export type LinkState = 'open' | 'lost' | 'unreachable'

export type FollowRunOptions = {
  /** `getRun`, when given, is the daemon's word on a run the stream cannot be read to its end. */
  client: Pick<DaemonClient, 'openEvents'> & Partial<Pick<DaemonClient, 'getRun'>>
  sessionId: string
  runId: string
  /** Resume after this event (a reattachment after a reload); undefined replays from the start. */
  lastEventId?: number
  signal: AbortSignal
  onFrame: (frame: StreamFrame) => void
  /** Told each change of the connection's state (see LinkState); starts as `open`, unsaid. */
  onLink?: (state: LinkState) => void
  /**
   * Reattachments in a row that bring no new event before the daemon is asked about the run
   * (without `getRun`: before giving up with `stream_ended`).
   */
  maxReattach?: number
  /** Connections in a row that may end with a lag frame before the same (progress or not). */
  maxLagged?: number
  /** Wait before reattachment n (1-based). */
  backoffMs?: (attempt: number) => number
  /** The clock the idle watchdog reads; `Date.now` by default (fake timers move it). */
  now?: () => number
}

/** Longest plain-text error frame kept as it came. */
const RAW_FRAME_LIMIT = 500

/** Reattachments in a row that brought no byte, or time lost, after which the daemon reads as unreachable. */
const UNREACHABLE_AFTER_ATTEMPTS = 3
export const UNREACHABLE_AFTER_MS = 30_000
/** Longest wait between two reattachments while the run goes on. */
export const MAX_BACKOFF_MS = 30_000

const DEFAULT_MAX_REATTACH = 4
const DEFAULT_MAX_LAGGED = 8
const defaultBackoffMs = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), MAX_BACKOFF_MS)

/**
 * Reads the run's events until a terminal frame, which it returns (after passing it to `onFrame`).
 * Rejects with RefusalError when the daemon refuses the stream or the run (e.g. 404 run_not_found;
 * a 5xx is reattached instead), RunEnded when reattaching brings nothing and the daemon says the
 * run has ended, StreamFailure('stream_ended') when reattaching is exhausted and there is no
 * `getRun` to ask, or an AbortError when `signal` aborts.
 */
export async function followRun(options: FollowRunOptions): Promise<TerminalFrame> {
  const { client, sessionId, runId, signal, onFrame, onLink } = options
  const maxReattach = options.maxReattach ?? DEFAULT_MAX_REATTACH
  const maxLagged = options.maxLagged ?? DEFAULT_MAX_LAGGED
  const backoffMs = options.backoffMs ?? defaultBackoffMs
  const now = options.now ?? Date.now
  let lastEventId = options.lastEventId
  let failures = 0
  let lagStreak = 0
  const link = createLinkWatch(onLink, now)

  try {
    for (;;) {
      signal.throwIfAborted()
      const before = lastEventId
      let terminal: TerminalFrame | undefined
      let lagged = false
      const connection = watchedConnection(signal, now, link.heard)
      try {
        const response = await client.openEvents(sessionId, runId, lastEventId, connection.signal)
        await readEvents(response, connection.signal, connection.heard, (frame) => {
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
        if (signal.aborted) throw abortReason(signal, error)
        // The watchdog's abort: the connection carried nothing for too long, so it is dropped.
        if (!connection.idle) {
          if (isAbortError(error)) throw error
          // A refusal (run_not_found, unauthorized…) will not change by asking again. A 5xx will: a
          // restarting daemon answers 503 daemon_unavailable, a proxy in front of it 502/504, and
          // reading events changes nothing, so it is reattached like a dropped connection.
          if (error instanceof RefusalError) {
            if (error.status < 500) throw error
          } else if (!(error instanceof TransportError) && !(error instanceof TypeError)) throw error
        }
      } finally {
        connection.dispose()
      }
      if (terminal) return terminal

      // A lag frame is the daemon talking: the connection is fine, only behind.
      if (!lagged) link.dropped()
      // Reattachments in a row that brought nothing new; and, apart, connections in a row that the
      // daemon ended with a lag frame (new events or not): a daemon that lags every stream would
      // otherwise be asked again with no pause for ever.
      failures = lastEventId !== before ? 1 : failures + 1
      lagStreak = lagged ? lagStreak + 1 : 0
      if (failures > maxReattach || lagStreak > maxLagged) {
        if (!client.getRun) throw new StreamFailure('stream_ended', 'The live connection ended before the run finished.')
        // The daemon's word, never a guess: a run it still runs is followed for as long as it
        // takes; one it has ended is told by history; one it does not know ends here.
        const status = await runStatus(client.getRun, sessionId, runId, signal, now)
        if (status !== undefined && isRunEnded(status)) throw new RunEnded(status)
      }
      await sleep(backoffMs(Math.max(failures, lagStreak)), signal)
    }
  } finally {
    link.dispose()
  }
}

/**
 * The connection's state as followRun reports it (see LinkState): `dropped` after a connection
 * ended without its terminal event, `heard` at the first byte of a connection.
 */
function createLinkWatch(onLink: FollowRunOptions['onLink'], now: () => number) {
  let state: LinkState = 'open'
  let lostAt = 0
  let attempts = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const set = (next: LinkState) => {
    if (next === state) return
    state = next
    onLink?.(next)
  }
  const stopTimer = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  return {
    heard(): void {
      if (state === 'open') return
      stopTimer()
      set('open')
    },
    dropped(): void {
      if (state === 'open') {
        lostAt = now()
        attempts = 0
        set('lost')
        stopTimer()
        // A daemon frozen in the middle takes a whole idle period per attempt: time says it first.
        timer = setTimeout(() => set('unreachable'), UNREACHABLE_AFTER_MS)
        return
      }
      attempts += 1
      if (attempts >= UNREACHABLE_AFTER_ATTEMPTS || now() - lostAt >= UNREACHABLE_AFTER_MS) {
        stopTimer()
        set('unreachable')
      }
    },
    dispose: stopTimer,
  }
}

/**
 * One connection's signal, aborted when `outer` aborts or when STREAM_IDLE_MS pass with no byte
 * (the wait for the response counts). `heard` is called per chunk, so it only moves a timestamp:
 * the one timer looks at it when it fires and sleeps again for what is left.
 */
function watchedConnection(outer: AbortSignal, now: () => number, onHeard: () => void) {
  const controller = new AbortController()
  let heardAt = now()
  let delivered = false
  let idle = false
  const onAbort = () => controller.abort(outer.reason)
  outer.addEventListener('abort', onAbort, { once: true })
  const check = () => {
    const quiet = now() - heardAt
    if (quiet < STREAM_IDLE_MS) {
      timer = setTimeout(check, STREAM_IDLE_MS - quiet)
      return
    }
    idle = true
    controller.abort(new DOMException(`No byte for ${STREAM_IDLE_MS / 1000} s.`, 'TimeoutError'))
  }
  let timer = setTimeout(check, STREAM_IDLE_MS)
  return {
    signal: controller.signal,
    get idle() {
      return idle
    },
    heard(): void {
      heardAt = now()
      if (delivered) return
      delivered = true
      onHeard()
    },
    dispose(): void {
      clearTimeout(timer)
      outer.removeEventListener('abort', onAbort)
    },
  }
}

/**
 * What the daemon says of the run: its status, or undefined when it cannot be asked now (no
 * answer within STREAM_IDLE_MS, a transport error, a 5xx). A refusal (404 run_not_found) rejects.
 */
async function runStatus(getRun: DaemonClient['getRun'], sessionId: string, runId: string, signal: AbortSignal, now: () => number): Promise<RunStatus | undefined> {
  const request = watchedConnection(signal, now, () => undefined)
  try {
    return (await getRun(sessionId, runId, request.signal)).status
  } catch (error) {
    if (signal.aborted) throw abortReason(signal, error)
    if (error instanceof RefusalError && error.status < 500) throw error
    return undefined
  } finally {
    request.dispose()
  }
}

/**
 * Feeds the body through the SSE parser, handing each readable frame to `onFrame` and telling
 * `heard` of every chunk (a `: ping` comment included). Resolves when the body ends.
 */
async function readEvents(response: Response, signal: AbortSignal, heard: () => void, onFrame: (frame: StreamFrame) => void): Promise<void> {
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
      heard()
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
