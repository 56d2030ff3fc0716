/**
 * Reading streams in the stream worker: the page's followRun contract holds across the hop. The
 * worker's side (serveStreams) runs here on one end of a MessageChannel, against the mock daemon
 * (MSW in node); the page's side (createWorkerFollow) talks to the other end as it would to a
 * Worker. Frames arrive in order and batched (deltas joined), the text is the daemon's, a dropped
 * connection is picked up again, a refusal is a RefusalError, an abort stops the reading, and a
 * worker that breaks leaves its runs to be read on the page from where it stopped.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startMockDaemonForFile } from '../setup/mock-daemon'
import { isAbortError, RefusalError } from '../../src/wire/errors'
import { followRun, type FollowRunOptions } from '../../src/wire/events'
import { createDaemonClient } from '../../src/wire/http'
import type { FromWorker, ToWorker } from '../../src/wire/stream-protocol'
import { serveStreams, type HostInput, type HostPort, type ServeStreamsOptions } from '../../src/wire/stream-worker-host'
import { parseBlock } from '../../src/markdown/parse'
import { createStreamTrees, type StreamTrees } from '../../src/markdown/stream-trees'
import { splitBlocks } from '../../src/markdown/split-blocks'
import type { StreamFrame } from '../../src/wire/types'
import { createWorkerFollow, type FollowRun, type StreamWorkerLike } from '../../src/wire/worker-follow'

const { daemon } = startMockDaemonForFile()

const BASE = 'http://daemon.test'
const client = createDaemonClient({ baseUrl: BASE })
let ids = 0
const channels: MessageChannel[] = []

afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close()
    channel.port2.close()
  }
})

async function startRun(fault: string) {
  daemon.plan([fault])
  const session = await client.createSession('Worker')
  const receipt = await client.sendMessage(session.id, { content: 'Tell me about workers', client_message_id: `w-${++ids}` })
  return { sessionId: session.id, runId: receipt.run_id }
}

type Wiring = { worker: StreamWorkerLike; toWorker: ToWorker[]; fromWorker: FromWorker[]; fail: () => void; terminated: () => boolean }

/** A worker host on one end of a channel and a Worker-shaped handle on the other. */
function wire(gapMs = 25, trees?: ServeStreamsOptions['trees'], pace?: ServeStreamsOptions['pace']): Wiring {
  const channel = new MessageChannel()
  channels.push(channel)
  const toWorker: ToWorker[] = []
  const fromWorker: FromWorker[] = []
  const hostPort: HostPort = {
    postMessage: (message) => {
      fromWorker.push(message)
      channel.port1.postMessage(message)
    },
    addEventListener: (type, listener) => channel.port1.addEventListener(type, listener as (event: Event) => void),
  }
  serveStreams(hostPort, { gapMs, ...(trees ? { trees } : {}), ...(pace ? { pace } : {}) })
  channel.port1.start()
  const errorListeners: Array<(event: Event) => void> = []
  let terminated = false
  const worker: StreamWorkerLike = {
    postMessage: (message) => {
      toWorker.push(message)
      channel.port2.postMessage(message)
    },
    addEventListener: (type: string, listener: (event: never) => void) => {
      if (type === 'message') channel.port2.addEventListener('message', listener as (event: Event) => void)
      else errorListeners.push(listener as (event: Event) => void)
    },
    terminate: () => {
      terminated = true
      channel.port1.close()
      channel.port2.close()
    },
  }
  channel.port2.start()
  return { worker, toWorker, fromWorker, fail: () => errorListeners.forEach((l) => l(new Event('error'))), terminated: () => terminated }
}

async function read(follow: FollowRun, run: { sessionId: string; runId: string }, options: Partial<FollowRunOptions> = {}) {
  const frames: StreamFrame[] = []
  const terminal = await follow({ client, ...run, signal: new AbortController().signal, onFrame: (f) => frames.push(f), backoffMs: () => 1, ...options })
  const text = frames.flatMap((f) => (f.type === 'delta' ? [f.text] : [])).join('')
  return { terminal, frames, text }
}

const storedReply = (runId: string) => daemon.state().messages.find((m) => m.run_id === runId)!

describe('stream worker', () => {
  it('reads a run to its end: the daemon text, frames in order, deltas joined into fewer messages, Date headers relayed', async () => {
    // Text only, so every message the worker posts is counted against the deltas it joins.
    const run = await startRun('plain')
    const { worker, fromWorker } = wire()
    const observed: Array<string | null> = []
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: (date) => observed.push(date) } })
    const { terminal, frames, text } = await read(follow, run)
    expect(terminal).toEqual({ type: 'done', id: expect.any(Number), message_id: storedReply(run.runId).id })
    expect(text).toBe(storedReply(run.runId).content)
    expect(text.length).toBeGreaterThan(0)
    expect(frames.at(-1)).toEqual(terminal)
    const frameIds = frames.map((f) => f.id)
    expect(frameIds).toEqual([...frameIds].sort((a, b) => a - b))
    expect(new Set(frameIds).size).toBe(frameIds.length)
    // Every event the daemon sent is accounted for: the last id is the daemon's last.
    expect(frameIds.at(-1)).toBe(daemon.events(run.runId)!.at(-1)!.id)
    const deltaEvents = daemon.events(run.runId)!.filter((e) => e.event === 'delta').length
    const deltaFrames = frames.filter((f) => f.type === 'delta').length
    expect(deltaFrames).toBeLessThan(deltaEvents)
    expect(fromWorker.filter((m) => m.type === 'frames').length).toBeLessThan(deltaEvents)
    expect(observed.length).toBeGreaterThan(0)
    expect(observed.every((d) => d === null || Number.isFinite(Date.parse(d)))).toBe(true)
  })

  it('parses the answer in the worker: each block of the reply reaches the page once as a finished tree, before the end', async () => {
    const run = await startRun('plain')
    const { worker } = wire(25, createStreamTrees)
    const offered: Array<{ stream: number; trees: StreamTrees | undefined; ended: boolean; framesSoFar: number }> = []
    let framesSoFar = 0
    const follow = createWorkerFollow({
      spawn: () => worker,
      baseUrl: BASE,
      daemonClock: { observe: () => undefined },
      onTrees: (stream, trees, ended) => offered.push({ stream, trees, ended, framesSoFar }),
    })
    let text = ''
    await read(follow, run, {
      onFrame: (frame) => {
        framesSoFar += 1
        if (frame.type === 'delta') text += frame.text
      },
    })
    expect(text).toBe(storedReply(run.runId).content)
    const finished = offered.flatMap((o) => o.trees?.finished ?? [])
    // Blocks as the page renders a finished reply: each once, its tree the one parse.ts makes here.
    expect(finished.map(([source]) => source)).toEqual(splitBlocks(text))
    for (const [source, tree] of finished) expect(tree).toEqual(parseBlock(source))
    // The growing block came with the batches, before the frames that grew it were handed on: the
    // text the page had then does not yet hold the growing block's last character.
    const growing = offered.filter((o) => o.trees?.live !== undefined)
    expect(growing.length).toBeGreaterThan(1)
    for (const o of growing) expect(o.framesSoFar).toBeLessThan(framesSoFar)
    // The last call says the stream is over, so the page drops its growing block.
    expect(offered.at(-1)?.ended).toBe(true)
    expect(new Set(offered.map((o) => o.stream)).size).toBe(1)
  })

  it('picks a dropped connection up again inside the worker and gets every event once', async () => {
    const run = await startRun('drop')
    const { worker, toWorker } = wire()
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: () => undefined } })
    const { terminal, text } = await read(follow, run)
    expect(terminal.type).toBe('done')
    expect(text).toBe(storedReply(run.runId).content)
    expect(toWorker.filter((m) => m.type === 'follow')).toHaveLength(1)
  })

  it('rejects a refused stream with the RefusalError the page would have seen', async () => {
    const run = await startRun('ok')
    const { worker } = wire()
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: () => undefined } })
    const error = await read(follow, { sessionId: run.sessionId, runId: 'run-that-is-not' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RefusalError)
    expect((error as RefusalError).code).toBe('run_not_found')
    expect((error as RefusalError).status).toBe(404)
  })

  it('stops on abort: rejects as an abort, tells the worker, and hands over nothing after', async () => {
    const run = await startRun('hang')
    const { worker, toWorker } = wire()
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: () => undefined } })
    const controller = new AbortController()
    let started!: () => void
    const startSeen = new Promise<void>((resolve) => (started = resolve))
    const frames: StreamFrame[] = []
    const following = read(follow, run, {
      signal: controller.signal,
      onFrame: (frame) => {
        frames.push(frame)
        if (frame.type === 'start') started()
      },
    })
    await startSeen
    controller.abort()
    expect(isAbortError(await following.catch((e: unknown) => e))).toBe(true)
    expect(toWorker.map((m) => m.type)).toEqual(['follow', 'abort'])
    const seen = frames.length
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(frames).toHaveLength(seen)
  })

  it('an already aborted signal rejects at once and starts nothing', async () => {
    const run = await startRun('ok')
    let spawned = 0
    const follow = createWorkerFollow({ spawn: () => (spawned++, wire().worker), baseUrl: BASE, daemonClock: { observe: () => undefined } })
    const controller = new AbortController()
    controller.abort()
    expect(isAbortError(await read(follow, run, { signal: controller.signal }).catch((e: unknown) => e))).toBe(true)
    expect(spawned).toBe(0)
  })

  it('a worker that breaks mid-run leaves the run to the page, which reads on from the last event handed over', async () => {
    const run = await startRun('ok')
    const wiring = wire()
    const fallbackFrom: Array<number | undefined> = []
    const follow = createWorkerFollow({
      spawn: () => wiring.worker,
      baseUrl: BASE,
      daemonClock: { observe: () => undefined },
      fallback: (options) => {
        fallbackFrom.push(options.lastEventId)
        return followRun(options)
      },
    })
    let broke = false
    const frames: StreamFrame[] = []
    const terminal = await follow({
      client,
      ...run,
      signal: new AbortController().signal,
      backoffMs: () => 1,
      onFrame: (frame) => {
        frames.push(frame)
        if (!broke && frame.type === 'delta') {
          broke = true
          wiring.fail()
        }
      },
    })
    expect(terminal.type).toBe('done')
    expect(wiring.terminated()).toBe(true)
    const text = frames.flatMap((f) => (f.type === 'delta' ? [f.text] : [])).join('')
    expect(text).toBe(storedReply(run.runId).content)
    const frameIds = frames.map((f) => f.id)
    expect(new Set(frameIds).size).toBe(frameIds.length)
    expect(fallbackFrom).toHaveLength(1)
    expect(fallbackFrom[0]).toBeGreaterThan(0)

    // Later runs stay on the page too.
    const next = await startRun('ok')
    const again = await read(follow, next)
    expect(again.text).toBe(storedReply(next.runId).content)
    expect(fallbackFrom).toEqual([fallbackFrom[0], undefined])
  })

  it('warm starts the worker ahead of the first run, once, and that worker reads the runs', async () => {
    const wiring = wire()
    let spawned = 0
    const follow = createWorkerFollow({ spawn: () => (spawned++, wiring.worker), baseUrl: BASE, daemonClock: { observe: () => undefined } })
    follow.warm()
    follow.warm()
    expect(spawned).toBe(1)
    expect(wiring.toWorker).toEqual([])
    const run = await startRun('ok')
    const { text } = await read(follow, run)
    expect(text).toBe(storedReply(run.runId).content)
    expect(spawned).toBe(1)
    expect(wiring.toWorker.map((m) => m.type)).toEqual(['follow'])
  })

  it('tells the worker of the operator’s input when a batch arrives after it, once per input, and never on a page nobody types on', async () => {
    const quiet = wire()
    const idle = { now: () => performance.now(), lastInputAt: () => -Infinity }
    const first = await startRun('plain')
    await read(createWorkerFollow({ spawn: () => quiet.worker, baseUrl: BASE, daemonClock: { observe: () => undefined }, input: idle }), first)
    expect(quiet.toWorker.map((m) => m.type)).toEqual(['follow'])

    // The worker's side: each run's pace is made from the input the page told it of.
    const heard: HostInput[] = []
    const typed = wire(25, undefined, (input) => {
      heard.push(input)
      return { gap: () => 25, posted: () => undefined }
    })
    let typedAt = -Infinity
    const clock = { now: () => performance.now(), lastInputAt: () => typedAt }
    const follow = createWorkerFollow({ spawn: () => typed.worker, baseUrl: BASE, daemonClock: { observe: () => undefined }, input: clock })
    const run = await startRun('plain')
    let deltas = 0
    await read(follow, run, {
      onFrame: (frame) => {
        // A key pressed as the first text arrives, and nothing after.
        if (frame.type === 'delta' && ++deltas === 1) typedAt = performance.now() - 40
      },
    })
    // Batches kept coming after the one the key was pressed in: one notice all the same.
    expect(typed.fromWorker.filter((m) => m.type === 'frames').length).toBeGreaterThan(2)
    const notices = typed.toWorker.filter((m) => m.type === 'input')
    expect(notices).toHaveLength(1)
    expect(notices[0]).toEqual({ type: 'input', agoMs: expect.any(Number) })
    expect((notices[0] as { agoMs: number }).agoMs).toBeGreaterThanOrEqual(40)
    expect(heard).toHaveLength(1)
    expect(heard[0]!.lastInputAt()).toBeLessThanOrEqual(heard[0]!.now() - 40)
    expect(heard[0]!.now() - heard[0]!.lastInputAt()).toBeLessThan(10_000)
  })

  it('a run the worker cannot be asked to read is rejected and kept nowhere: an abort later posts nothing', async () => {
    const wiring = wire()
    const unsendable = new DOMException('could not be cloned', 'DataCloneError')
    const worker: StreamWorkerLike = {
      ...wiring.worker,
      postMessage: (message) => {
        if (message.type === 'follow') throw unsendable
        wiring.worker.postMessage(message)
      },
    }
    let fallbacks = 0
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: () => undefined }, fallback: (options) => (fallbacks++, followRun(options)) })
    const run = await startRun('ok')
    const stop = new AbortController()
    const error = await read(follow, run, { signal: stop.signal }).catch((e: unknown) => e)
    expect(error).toBe(unsendable)
    stop.abort()
    wiring.fail()
    // Nothing was in hand: no abort posted, nothing handed to the page.
    expect(wiring.toWorker).toEqual([])
    expect(fallbacks).toBe(0)
  })

  it('a worker that cannot start leaves every run on the page', async () => {
    const run = await startRun('ok')
    let fallbacks = 0
    const follow = createWorkerFollow({
      spawn: () => {
        throw new Error('Workers are refused here')
      },
      baseUrl: BASE,
      daemonClock: { observe: () => undefined },
      fallback: (options) => (fallbacks++, followRun(options)),
    })
    const { text } = await read(follow, run)
    expect(text).toBe(storedReply(run.runId).content)
    expect(fallbacks).toBe(1)
  })
})

describe('history pages in the stream worker', () => {
  /** A session with one finished exchange whose reply holds agent steps. */
  async function finishedSession() {
    const run = await startRun('tools:2')
    await followRun({ client, ...run, signal: new AbortController().signal, onFrame: () => undefined, backoffMs: () => 1 })
    return run.sessionId
  }
  const onPage = (calls: string[]) => (sessionId: string, page: Parameters<typeof client.listMessagesPage>[1], signal?: AbortSignal) => {
    calls.push(sessionId)
    return client.listMessagesPage(sessionId, page, signal)
  }

  it('reads a page in the worker: the messages the page would read, parts and all, and the Date header relayed', async () => {
    const sessionId = await finishedSession()
    const { worker, toWorker, fromWorker } = wire()
    const observed: Array<string | null> = []
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: (date) => observed.push(date) } })
    const onThePage: string[] = []
    const page = await follow.readPage(onPage(onThePage), sessionId, { limit: 10 })
    expect(page).toEqual(await client.listMessagesPage(sessionId, { limit: 10 }))
    expect(page.messages).toHaveLength(2)
    expect(page.messages[1]!.parts?.some((part) => part.type === 'tool')).toBe(true)
    expect(onThePage).toEqual([])
    expect(toWorker).toEqual([{ type: 'page', id: expect.any(Number), baseUrl: BASE, sessionId, page: { limit: 10 } }])
    expect(fromWorker.filter((m) => m.type === 'page')).toHaveLength(1)
    expect(observed.length).toBeGreaterThan(0)
    // `after` reads the same as on the page.
    const after = await follow.readPage(onPage(onThePage), sessionId, { after: page.messages[0]!.seq })
    expect(after.messages.map((m) => m.id)).toEqual([page.messages[1]!.id])
  })

  it('rejects a refused read with the RefusalError the page would have seen', async () => {
    const { worker } = wire()
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: () => undefined } })
    const error = await follow.readPage(client.listMessagesPage, 'session-that-is-not', { limit: 10 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RefusalError)
    expect((error as RefusalError).code).toBe('session_not_found')
  })

  it('an abort rejects as an abort and tells the worker; an aborted signal starts nothing', async () => {
    const sessionId = await finishedSession()
    const { worker, toWorker } = wire()
    const follow = createWorkerFollow({ spawn: () => worker, baseUrl: BASE, daemonClock: { observe: () => undefined } })
    const controller = new AbortController()
    const reading = follow.readPage(client.listMessagesPage, sessionId, { limit: 10 }, controller.signal)
    controller.abort()
    expect(isAbortError(await reading.catch((e: unknown) => e))).toBe(true)
    expect(toWorker.map((m) => m.type)).toEqual(['page', 'abort'])
    expect(isAbortError(await follow.readPage(client.listMessagesPage, sessionId, { limit: 10 }, controller.signal).catch((e: unknown) => e))).toBe(true)
    expect(toWorker).toHaveLength(2)
  })

  it('a worker that breaks with the read in hand, or cannot start, leaves the read to the page', async () => {
    const sessionId = await finishedSession()
    const wiring = wire()
    // A worker that never answers: the read is still in hand when it breaks.
    const silent: StreamWorkerLike = { ...wiring.worker, postMessage: (message) => void wiring.toWorker.push(message) }
    const follow = createWorkerFollow({ spawn: () => silent, baseUrl: BASE, daemonClock: { observe: () => undefined } })
    const onThePage: string[] = []
    const reading = follow.readPage(onPage(onThePage), sessionId, { limit: 10 })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(onThePage).toEqual([])
    wiring.fail()
    expect((await reading).messages).toHaveLength(2)
    expect(onThePage).toEqual([sessionId])

    const refused = createWorkerFollow({
      spawn: () => {
        throw new Error('Workers are refused here')
      },
      baseUrl: BASE,
      daemonClock: { observe: () => undefined },
    })
    expect((await refused.readPage(onPage(onThePage), sessionId, { limit: 10 })).messages).toHaveLength(2)
    expect(onThePage).toEqual([sessionId, sessionId])
  })
})
