/**
 * A lost connection is never a stopped run. The stream reader drops a connection that carries no
 * byte for 45 s (a `: ping` is a byte; so is nothing at all while waiting for the answer) and
 * reattaches with Last-Event-ID; it says the connection is lost, unreachable after a while, and
 * open again at the next byte, on the page and through the stream worker alike. While the daemon
 * says the run goes on it never gives up; the daemon's word on the run settles it. The live store
 * and the follower carry that to the reply, and a Stop the daemon cannot hear is kept and sent
 * once when it answers again.
 *
 * Fake timers (setTimeout, clearTimeout and Date only) and scripted connections: each test moves
 * time to the millisecond that matters.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLiveRunStore, overlay } from '../../src/live/live-runs'
import { createRunFollower } from '../../src/live/run-follower'
import { followProbe } from './follow-probe'
import { createStopOutbox, STOP_ANSWER_MS, STOP_OUTBOX_NAMESPACE } from '../../src/live/stop-outbox'
import { createKeyedStore, storageKey, type StorageBackend } from '../../src/storage/keyed-store'
import { createLocalLocks } from '../../src/storage/locks'
import { RefusalError, RunEnded, StreamFailure, TransportError } from '../../src/wire/errors'
import { followRun, MAX_BACKOFF_MS, UNREACHABLE_AFTER_MS, type FollowRunOptions, type LinkState } from '../../src/wire/events'
import { STREAM_IDLE_MS } from '../../src/wire/liveness'
import type { FromWorker, ToWorker } from '../../src/wire/stream-protocol'
import { serveStreams, type HostPort } from '../../src/wire/stream-worker-host'
import type { CancelReceipt, Message, Run, RunStatus, StreamFrame } from '../../src/wire/types'
import { createWorkerFollow, type StreamWorkerLike } from '../../src/wire/worker-follow'

const SID = 'ses_1'
const RID = 'run_1'
const encoder = new TextEncoder()

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: new Date(2026, 10, 30, 14, 0, 0) })
})
afterEach(() => {
  vi.useRealTimers()
})

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms)

const sse = (id: number, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`
const PING = ': ping\n\n'

/** One connection the test writes to, as the client opened it. */
type Connection = {
  lastEventId: number | undefined
  signal: AbortSignal
  write(text: string): void
  end(): void
}

/**
 * A daemon whose connections the test scripts: each `openEvents` answers at once with a body
 * the test writes to (`open`), or waits for ever (`hang`), or fails as a refused connection
 * (`refuse`). What the next connections do is set with `next`.
 */
function scriptedDaemon() {
  const connections: Connection[] = []
  let mode: 'open' | 'hang' | 'refuse' = 'open'
  let runStatus: RunStatus | 'unreachable' | 'not_found' = 'running'
  const getRun = vi.fn(async (sessionId: string, runId: string): Promise<Run> => {
    if (runStatus === 'unreachable') throw new TransportError('fetch failed')
    if (runStatus === 'not_found') throw new RefusalError(404, 'run_not_found', 'No such run.')
    return { id: runId, session_id: sessionId, anchor_message_id: 'msg_op', reply_message_id: 'msg_ag', status: runStatus }
  })
  const openEvents = vi.fn((_sid: string, _rid: string, lastEventId: number | undefined, signal: AbortSignal): Promise<Response> => {
    if (mode === 'refuse') return Promise.reject(new TransportError('connect ECONNREFUSED'))
    if (mode === 'hang') {
      return new Promise((_resolve, reject) => {
        connections.push({ lastEventId, signal, write: () => undefined, end: () => undefined })
        signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      })
    }
    let controller!: ReadableStreamDefaultController<Uint8Array>
    let closed = false
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      cancel: () => void (closed = true),
    })
    connections.push({
      lastEventId,
      signal,
      write: (text) => {
        if (!closed) controller.enqueue(encoder.encode(text))
      },
      end: () => {
        if (closed) return
        closed = true
        controller.close()
      },
    })
    return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }))
  })
  return {
    client: { openEvents, getRun },
    connections,
    last: () => connections.at(-1)!,
    next: (next: typeof mode) => void (mode = next),
    runIs: (status: typeof runStatus) => void (runStatus = status),
  }
}

/** Follows the run and records its frames, its link states and how it ended. */
function follow(client: FollowRunOptions['client'], options: Partial<FollowRunOptions> = {}) {
  const frames: StreamFrame[] = []
  const links: LinkState[] = []
  const controller = new AbortController()
  const outcome: { terminal?: StreamFrame; error?: unknown } = {}
  const done = followRun({
    client,
    sessionId: SID,
    runId: RID,
    signal: controller.signal,
    onFrame: (frame) => frames.push(frame),
    onLink: (state) => links.push(state),
    ...options,
  }).then(
    (terminal) => void (outcome.terminal = terminal),
    (error: unknown) => void (outcome.error = error),
  )
  return { frames, links, outcome, done, abort: () => controller.abort() }
}

const START = sse(1, 'start', { message_id: 'msg_ag' })

describe('the idle watchdog', () => {
  it('drops a connection silent for 45 s and reattaches with Last-Event-ID, then reads on to the end', async () => {
    const daemon = scriptedDaemon()
    const run = follow(daemon.client)
    await advance(0)
    daemon.last().write(START + sse(2, 'delta', { text: 'Hel' }))
    await advance(STREAM_IDLE_MS - 1)
    expect(daemon.connections).toHaveLength(1)
    expect(daemon.connections[0]!.signal.aborted).toBe(false)
    expect(run.links).toEqual([])

    await advance(1)
    // The open connection is let go (its request aborted), and the reply hears it is lost.
    expect(daemon.connections[0]!.signal.aborted).toBe(true)
    expect(run.links).toEqual(['lost'])

    await advance(250)
    expect(daemon.connections).toHaveLength(2)
    expect(daemon.connections[1]!.lastEventId).toBe(2)
    expect(run.links).toEqual(['lost'])
    // Headers alone are not the daemon talking; the first byte is.
    daemon.last().write(PING)
    await advance(0)
    expect(run.links).toEqual(['lost', 'open'])

    daemon.last().write(sse(3, 'delta', { text: 'lo.' }) + sse(4, 'done', { message_id: 'msg_ag' }))
    await run.done
    expect(run.outcome.terminal).toMatchObject({ type: 'done', id: 4 })
    expect(run.frames.map((f) => f.id)).toEqual([1, 2, 3, 4])
    expect(daemon.client.getRun).not.toHaveBeenCalled()
  })

  it('pings keep a connection alive however long the run waits, and each byte restarts the 45 s', async () => {
    const daemon = scriptedDaemon()
    const run = follow(daemon.client)
    await advance(0)
    daemon.last().write(START)
    // A tool that runs for ten minutes: the daemon pings every 15 s.
    for (let i = 0; i < 40; i++) {
      await advance(15_000)
      daemon.last().write(PING)
    }
    expect(daemon.connections).toHaveLength(1)
    // The last byte came just now: the connection is dead 45 s after it, not before.
    await advance(STREAM_IDLE_MS - 1)
    expect(daemon.connections[0]!.signal.aborted).toBe(false)
    await advance(1)
    expect(daemon.connections[0]!.signal.aborted).toBe(true)
    expect(run.links).toEqual(['lost'])
    run.abort()
    await run.done
  })

  it('a connection that never answers counts as silent too', async () => {
    const daemon = scriptedDaemon()
    daemon.next('hang')
    const run = follow(daemon.client)
    await advance(STREAM_IDLE_MS - 1)
    expect(daemon.connections).toHaveLength(1)
    await advance(1)
    expect(daemon.connections[0]!.signal.aborted).toBe(true)
    expect(run.links).toEqual(['lost'])
    daemon.next('open')
    await advance(250)
    expect(daemon.connections).toHaveLength(2)
    daemon.last().write(START + sse(2, 'done', { message_id: 'msg_ag' }))
    await run.done
    expect(run.links).toEqual(['lost', 'open'])
    expect(run.outcome.terminal).toMatchObject({ type: 'done' })
  })

  it('an abort while the connection is silent rejects as an abort, with no more connections', async () => {
    const daemon = scriptedDaemon()
    const run = follow(daemon.client)
    await advance(0)
    daemon.last().write(START)
    await advance(10_000)
    run.abort()
    await run.done
    expect((run.outcome.error as Error).name).toBe('AbortError')
    await advance(STREAM_IDLE_MS * 2)
    expect(daemon.connections).toHaveLength(1)
  })
})

describe('the connection’s state and the give-up rule', () => {
  it('lost, then unreachable after three reattachments that fail, then open at the first byte', async () => {
    const daemon = scriptedDaemon()
    const run = follow(daemon.client)
    await advance(0)
    daemon.last().write(START)
    daemon.next('refuse')
    daemon.last().end()
    await advance(0)
    expect(run.links).toEqual(['lost'])
    // 250, 500, 1000 ms: three refused reattachments.
    await advance(250 + 500)
    expect(run.links).toEqual(['lost'])
    await advance(1000)
    expect(run.links).toEqual(['lost', 'unreachable'])
    daemon.next('open')
    await advance(2000)
    daemon.last().write(PING)
    await advance(0)
    expect(run.links).toEqual(['lost', 'unreachable', 'open'])
    expect(daemon.last().lastEventId).toBe(1)
    run.abort()
    await run.done
  })

  it('a daemon frozen mid-run reads as unreachable 30 s after the loss, before the reattachment times out', async () => {
    const daemon = scriptedDaemon()
    const run = follow(daemon.client)
    await advance(0)
    daemon.last().write(START)
    daemon.next('hang')
    await advance(STREAM_IDLE_MS)
    expect(run.links).toEqual(['lost'])
    await advance(UNREACHABLE_AFTER_MS - 1)
    expect(run.links).toEqual(['lost'])
    await advance(1)
    expect(run.links).toEqual(['lost', 'unreachable'])
    run.abort()
    await run.done
  })

  it('never gives up while the daemon says the run goes on (or cannot be asked), backing off up to 30 s', async () => {
    const daemon = scriptedDaemon()
    const waits: number[] = []
    const run = follow(daemon.client, { backoffMs: (n) => (waits.push(Math.min(250 * 2 ** (n - 1), MAX_BACKOFF_MS)), waits.at(-1)!) })
    await advance(0)
    daemon.last().write(START)
    daemon.next('refuse')
    daemon.last().end()
    // Half an hour of a daemon that is down; it is asked about the run, which it cannot answer either.
    daemon.runIs('unreachable')
    await advance(15 * 60_000)
    daemon.runIs('running')
    await advance(15 * 60_000)
    expect(run.outcome).toEqual({})
    expect(daemon.client.getRun.mock.calls.length).toBeGreaterThan(10)
    expect(Math.max(...waits)).toBe(MAX_BACKOFF_MS)
    expect(run.links).toEqual(['lost', 'unreachable'])
    daemon.next('open')
    await advance(MAX_BACKOFF_MS)
    daemon.last().write(sse(2, 'done', { message_id: 'msg_ag' }))
    await run.done
    expect(run.outcome.terminal).toMatchObject({ type: 'done', id: 2 })
    expect(run.links).toEqual(['lost', 'unreachable', 'open'])
  })

  it('ends with RunEnded when the daemon says the run has ended, and with the refusal when it does not know it', async () => {
    for (const [status, expected] of [
      ['completed', RunEnded],
      ['cancelled', RunEnded],
      ['not_found', RefusalError],
    ] as const) {
      const daemon = scriptedDaemon()
      const run = follow(daemon.client)
      await advance(0)
      daemon.last().write(START)
      daemon.next('refuse')
      daemon.runIs(status)
      daemon.last().end()
      await advance(60_000)
      await run.done
      expect(run.outcome.error, status).toBeInstanceOf(expected)
      if (run.outcome.error instanceof RunEnded) expect(run.outcome.error.status).toBe(status)
      expect(daemon.client.getRun).toHaveBeenCalledTimes(1)
    }
  })

  it('without getRun to ask, gives up after maxReattach as before, with stream_ended', async () => {
    const daemon = scriptedDaemon()
    const run = follow({ openEvents: daemon.client.openEvents }, { maxReattach: 2 })
    await advance(0)
    daemon.next('refuse')
    daemon.last().end()
    await advance(60_000)
    await run.done
    expect(run.outcome.error).toBeInstanceOf(StreamFailure)
    expect((run.outcome.error as StreamFailure).code).toBe('stream_ended')
  })
})

/** A worker host and a Worker-shaped handle wired together in this realm, messages cloned and delivered as tasks do. */
function workerPair() {
  const pageListeners: Array<(event: MessageEvent<FromWorker>) => void> = []
  const hostListeners: Array<(event: MessageEvent<ToWorker>) => void> = []
  const deliver = <T>(listeners: Array<(event: MessageEvent<T>) => void>, message: T) =>
    queueMicrotask(() => listeners.forEach((listener) => listener({ data: structuredClone(message) } as MessageEvent<T>)))
  const host: HostPort = { postMessage: (message) => deliver(pageListeners, message), addEventListener: (_type, listener) => void hostListeners.push(listener) }
  const worker: StreamWorkerLike = {
    postMessage: (message) => deliver(hostListeners, message),
    addEventListener: (type: string, listener: (event: never) => void) => {
      if (type === 'message') pageListeners.push(listener as (event: MessageEvent<FromWorker>) => void)
    },
    terminate: () => undefined,
  }
  return { host, worker }
}

describe('through the stream worker', () => {
  it('the page hears the same: frames before the loss, lost, open at the first byte, the rest after', async () => {
    const daemon = scriptedDaemon()
    // The worker's client fetches; the scripted daemon answers by the request's Last-Event-ID.
    const fetch = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers)
      const last = headers.get('last-event-id')
      return daemon.client.openEvents(SID, RID, last === null ? undefined : Number(last), init!.signal!)
    })
    const { host, worker } = workerPair()
    serveStreams(host, { fetch, gapMs: 25 })
    const follower = createWorkerFollow({ spawn: () => worker, baseUrl: 'http://daemon.test', daemonClock: { observe: () => undefined } })
    const seen: string[] = []
    const controller = new AbortController()
    const done = follower({
      client: daemon.client,
      sessionId: SID,
      runId: RID,
      signal: controller.signal,
      onFrame: (frame) => seen.push(`${frame.type}:${frame.id}`),
      onLink: (state) => seen.push(state),
    })
    await advance(0)
    daemon.last().write(START + sse(2, 'delta', { text: 'Hel' }))
    await advance(STREAM_IDLE_MS)
    expect(seen).toEqual(['start:1', 'delta:2', 'lost'])
    await advance(250)
    expect(daemon.connections).toHaveLength(2)
    expect(daemon.last().lastEventId).toBe(2)
    daemon.last().write(sse(3, 'delta', { text: 'lo.' }) + sse(4, 'done', { message_id: 'msg_ag' }))
    const terminal = await done
    expect(terminal).toMatchObject({ type: 'done', id: 4 })
    expect(seen).toEqual(['start:1', 'delta:2', 'lost', 'open', 'delta:3', 'done:4'])
  })

  it('RunEnded crosses the hop as itself', async () => {
    const daemon = scriptedDaemon()
    daemon.runIs('completed')
    const fetch = vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input)
      if (!url.endsWith('/events')) return Response.json({ id: RID, session_id: SID, anchor_message_id: 'm', reply_message_id: 'a', status: 'completed' })
      return Promise.reject(new TypeError('fetch failed'))
    })
    const { host, worker } = workerPair()
    serveStreams(host, { fetch, gapMs: 25 })
    const follower = createWorkerFollow({ spawn: () => worker, baseUrl: 'http://daemon.test', daemonClock: { observe: () => undefined } })
    const outcome = follower({ client: daemon.client, sessionId: SID, runId: RID, signal: new AbortController().signal, onFrame: () => undefined }).catch((e: unknown) => e)
    await advance(60_000)
    const error = await outcome
    expect(error).toBeInstanceOf(RunEnded)
    expect((error as RunEnded).status).toBe('completed')
  })
})

function memoryBackend(): StorageBackend & { items: Map<string, string> } {
  const items = new Map<string, string>()
  return { items, getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value), removeItem: (key) => void items.delete(key) }
}

const liveStore = () => createLiveRunStore({ store: createKeyedStore(memoryBackend()), schedule: (flush) => (queueMicrotask(flush), () => undefined) })

const reply = (overrides: Partial<Message> = {}): Message => ({
  id: 'msg_ag',
  session_id: SID,
  role: 'agent',
  content: '',
  created_at: 0,
  superseded: false,
  reply_to: 'msg_op',
  run_id: RID,
  status: 'streaming',
  seq: 2,
  ...overrides,
})

describe('the live store’s connection', () => {
  it('lost and unreachable show on the streaming reply; the loss and the return are news once each', () => {
    const live = liveStore()
    live.begin(SID, RID, '')
    live.frame(RID, { type: 'start', id: 1, message_id: 'msg_ag' })
    expect(overlay(reply(), live.get(RID)).connection).toBeUndefined()

    live.connection(RID, 'lost')
    expect(live.get(RID)?.connection).toBe('lost')
    expect(overlay(reply(), live.get(RID))).toMatchObject({ status: 'streaming', connection: 'lost' })
    expect(live.news(SID)).toMatchObject({ kind: 'connection', state: 'lost' })
    const lostSeq = live.news(SID)!.seq

    live.connection(RID, 'unreachable')
    expect(overlay(reply(), live.get(RID))).toMatchObject({ status: 'streaming', connection: 'unreachable' })
    expect(live.news(SID)!.seq).toBe(lostSeq)

    live.connection(RID, 'open')
    expect(live.get(RID)?.connection).toBeUndefined()
    expect(overlay(reply(), live.get(RID)).connection).toBeUndefined()
    expect(live.news(SID)).toMatchObject({ kind: 'connection', state: 'back' })
  })

  it('a frame while lost is the daemon talking: the connection reads open again, said once', async () => {
    const live = liveStore()
    live.begin(SID, RID, '')
    live.connection(RID, 'unreachable')
    live.frame(RID, { type: 'start', id: 1, message_id: 'msg_ag' })
    await advance(0)
    expect(live.get(RID)?.connection).toBeUndefined()
    expect(live.news(SID)).toMatchObject({ kind: 'connection', state: 'back' })
    const seq = live.news(SID)!.seq
    live.connection(RID, 'open')
    live.frame(RID, { type: 'delta', id: 2, text: 'Hi' })
    expect(live.news(SID)!.seq).toBe(seq)
  })

  it('the run’s end clears it, and an ended run hears of no connection', () => {
    const live = liveStore()
    live.begin(SID, RID, '')
    live.connection(RID, 'lost')
    live.frame(RID, { type: 'done', id: 2, message_id: 'msg_ag' })
    expect(live.get(RID)?.connection).toBeUndefined()
    const seq = live.news(SID)!.seq
    live.connection(RID, 'lost')
    expect(live.get(RID)?.connection).toBeUndefined()
    expect(live.news(SID)!.seq).toBe(seq)
  })
})

describe('the follower', () => {
  function harness(daemon: ReturnType<typeof scriptedDaemon>) {
    const live = liveStore()
    const refreshHistory = vi.fn(async () => undefined)
    const onReconnect = vi.fn()
    const probe = followProbe(refreshHistory)
    const follower = createRunFollower({ client: daemon.client, live, refreshHistory: probe.refreshHistory, follow: probe.follow, onReconnect })
    follower.watch(SID, [reply()])
    return { live, refreshHistory, onReconnect, follower, following: probe.following }
  }

  it('tells the live store; when the stream is back it asks the daemon, and a run it has ended is settled from history', async () => {
    const daemon = scriptedDaemon()
    const h = harness(daemon)
    await advance(0)
    daemon.last().write(START + sse(2, 'delta', { text: 'Part' }))
    await advance(STREAM_IDLE_MS)
    expect(h.live.get(RID)).toMatchObject({ status: 'streaming', connection: 'lost', content: 'Part' })
    // The run ended while the connection was dead; the daemon says so when asked.
    daemon.runIs('completed')
    await advance(250)
    daemon.last().write(PING)
    await advance(0)
    expect(h.live.get(RID)?.connection).toBeUndefined()
    expect(h.onReconnect).toHaveBeenCalledTimes(1)
    expect(daemon.client.getRun).toHaveBeenCalledWith(SID, RID, expect.any(AbortSignal))
    expect(h.refreshHistory).toHaveBeenCalledWith(SID, undefined, 'unsure')
    h.follower.release(SID)
  })

  it('a run the daemon has ended while its stream cannot be read is never shown failed: history settles it', async () => {
    const daemon = scriptedDaemon()
    const h = harness(daemon)
    await advance(0)
    daemon.last().write(START)
    daemon.next('refuse')
    daemon.runIs('failed')
    daemon.last().end()
    await advance(60_000)
    expect(h.following(RID)).toBe(false)
    expect(h.live.get(RID)?.status).toBe('streaming')
    expect(h.live.get(RID)?.error).toBeUndefined()
    expect(h.refreshHistory).toHaveBeenCalledWith(SID, undefined, 'ended')
  })
})

describe('a Stop the daemon cannot hear', () => {
  function outbox(backend = memoryBackend(), locks = createLocalLocks()) {
    const cancelRun = vi.fn(async (_sid: string, runId: string): Promise<CancelReceipt> => ({ run_id: runId, status: 'cancelled' }))
    const onSent = vi.fn()
    const stops = createStopOutbox({ store: createKeyedStore(backend), client: { cancelRun }, locks, clock: { now: () => Date.now() }, onSent })
    return { stops, cancelRun, onSent, backend, locks }
  }
  const down = () => Promise.reject(new TransportError('fetch failed'))

  it('goes at once when the daemon answers', async () => {
    const h = outbox()
    expect(await h.stops.stop(SID, RID)).toBe('sent')
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
    expect(h.stops.isKept(RID)).toBe(false)
    expect(h.backend.items.has(storageKey(STOP_OUTBOX_NAMESPACE, 'v1'))).toBe(false)
  })

  it('is kept while the daemon is down and sent once when it is back: one cancel in all', async () => {
    const h = outbox()
    h.cancelRun.mockImplementation(down)
    expect(await h.stops.stop(SID, RID)).toBe('kept')
    expect(h.stops.isKept(RID)).toBe(true)
    h.cancelRun.mockClear()
    h.cancelRun.mockImplementation(async (_sid, runId) => ({ run_id: runId, status: 'cancelled' }))
    // The stream connected again: the daemon answers.
    h.stops.flush()
    h.stops.flush()
    await advance(0)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
    expect(h.cancelRun).toHaveBeenCalledWith(SID, RID)
    expect(h.stops.isKept(RID)).toBe(false)
    expect(h.onSent).toHaveBeenCalledWith(SID)
    // Nothing is left to send, whatever comes after.
    h.stops.flush()
    await advance(120_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
  })

  it('is tried again on its own meanwhile, backing off', async () => {
    const h = outbox()
    h.cancelRun.mockImplementation(down)
    await h.stops.stop(SID, RID)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
    await advance(2_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(2)
    await advance(5_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(3)
    h.cancelRun.mockImplementation(async (_sid, runId) => ({ run_id: runId, status: 'cancelled' }))
    await advance(10_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(4)
    expect(h.stops.isKept(RID)).toBe(false)
    await advance(120_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(4)
  })

  it('a cancel with no answer reads as kept after a while and is not sent again while it waits', async () => {
    const h = outbox()
    let answer!: () => void
    h.cancelRun.mockImplementation((_sid, runId) => new Promise((resolve) => (answer = () => resolve({ run_id: runId, status: 'cancelled' }))))
    const outcome = h.stops.stop(SID, RID)
    await advance(STOP_ANSWER_MS)
    expect(await outcome).toBe('kept')
    expect(h.stops.isKept(RID)).toBe(true)
    h.stops.flush()
    await advance(60_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
    // The daemon comes back and answers the request it held.
    answer()
    await advance(0)
    expect(h.stops.isKept(RID)).toBe(false)
    expect(h.onSent).toHaveBeenCalledWith(SID)
    h.stops.flush()
    await advance(60_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
  })

  it('two tabs with the same kept stop send it once; a reload sends what was kept', async () => {
    const backend = memoryBackend()
    const locks = createLocalLocks()
    const first = outbox(backend, locks)
    first.cancelRun.mockImplementation(down)
    await first.stops.stop(SID, RID)
    first.cancelRun.mockClear()
    first.cancelRun.mockImplementation(async (_sid, runId) => ({ run_id: runId, status: 'cancelled' }))
    const second = outbox(backend, locks)
    expect(second.stops.isKept(RID)).toBe(true)
    first.stops.flush()
    second.stops.flush()
    await advance(0)
    expect(first.cancelRun.mock.calls.length + second.cancelRun.mock.calls.length).toBe(1)

    const other = memoryBackend()
    const before = outbox(other)
    before.cancelRun.mockImplementation(down)
    await before.stops.stop(SID, 'run_2')
    // A reload: a new outbox over the same storage, with the daemon back.
    const after = outbox(other)
    await advance(2_000)
    expect(after.cancelRun).toHaveBeenCalledWith(SID, 'run_2')
    expect(after.stops.isKept('run_2')).toBe(false)
  })

  it('a refusal (run_not_found) ends it: nothing is kept', async () => {
    const h = outbox()
    h.cancelRun.mockImplementation(() => Promise.reject(new RefusalError(404, 'run_not_found', 'No such run.')))
    expect(await h.stops.stop(SID, RID)).toBe('refused')
    expect(h.stops.isKept(RID)).toBe(false)
    await advance(120_000)
    expect(h.cancelRun).toHaveBeenCalledTimes(1)
  })
})
