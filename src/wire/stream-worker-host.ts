/**
 * The stream worker's side: follows runs for the page with the same `followRun` the page would
 * use (reattaching with `Last-Event-ID`, backing off, dropping a connection silent for too long),
 * and hands the frames over in batches (frame-batch.ts) with the connection's state between them.
 * Reading the network and parsing the event stream here keeps thousands of small tasks a second
 * off the page's main thread while a reply streams.
 */
import { createFrameBatcher } from './frame-batch'
import { followRun } from './events'
import type { DaemonClock } from './clock'
import { createDaemonClient } from './http'
import { toFailure, type FromWorker, type ToWorker } from './stream-protocol'
import type { StreamTreesTracker } from '../markdown/stream-trees'
import type { StreamFrame } from './types'

/** Shortest gap between two batches of pieces when no pace is given: the page's own shortest gap between commits. */
const BATCH_GAP_MS = 50

/** When a key or a click was last heard, by the clock it is read on: the page's own (browserInput), or here what the page told (ToWorker's `input`). */
export type HostInput = { lastInputAt(): number; now(): number }

/** One run's gap between batches, read as its batches go out (live/pacing.ts's batchPace). */
type BatchPace = { gap(): number; posted(frames: readonly StreamFrame[]): void }

/** The part of a worker's global scope (or a MessagePort) the host talks through. */
export type HostPort = {
  postMessage(message: FromWorker): void
  addEventListener(type: 'message', listener: (event: MessageEvent<ToWorker>) => void): void
}

export type ServeStreamsOptions = {
  fetch?: typeof fetch
  /** Shortest gap between two batches of pieces, fixed (tests); without it or `pace`, 50 ms. */
  gapMs?: number
  /**
   * Each run's gap, made per run from the page's input: stream.worker.ts hands in live/pacing.ts's
   * batchPace, the page's own gap between commits (50 ms at a model's usual pace and while the
   * operator types, up to 100 ms for a fast stream and 250 ms for a flood). A batch the page would
   * only hold until its next commit is a task on its main thread, and a parse of the growing block
   * here, that nothing shows.
   */
  pace?: (input: HostInput) => BatchPace
  /**
   * One per run followed: parses the answer's Markdown as it streams, so the page renders trees
   * instead of parsing (stream.worker.ts hands in markdown/stream-trees.ts). Without it, frames only.
   */
  trees?: () => StreamTreesTracker
}

/**
 * Answers follow, page and abort requests arriving on `port`. A page of history is read here too:
 * a reply of an agent's run is megabytes of JSON (its tools' inputs and outputs), and reading,
 * decoding and parsing that on the page took the main thread for as long as 80 ms at the end of
 * every such run. What crosses to the page is the messages, checked, in one structured clone.
 */
export function serveStreams(port: HostPort, { fetch: fetchImpl, gapMs = BATCH_GAP_MS, pace: startPace, trees: startTrees }: ServeStreamsOptions = {}): void {
  const now = () => Date.now()
  const running = new Map<number, AbortController>()
  /** When the page last said the operator pressed a key, on this side's clock. */
  let inputAt = -Infinity
  const input: HostInput = { now, lastInputAt: () => inputAt }
  // The page keeps the one estimate of the daemon's clock: every answer's Date header goes there.
  const relayClock: DaemonClock = {
    offsetMs: () => 0,
    toLocal: (daemonMs) => daemonMs,
    observe: (date, sentAt, receivedAt) => port.postMessage({ type: 'clock', date, sentAt, receivedAt }),
    samples: () => 0,
  }
  const clients = new Map<string, ReturnType<typeof createDaemonClient>>()
  const clientFor = (baseUrl: string) => {
    let client = clients.get(baseUrl)
    if (!client) {
      client = createDaemonClient({ baseUrl, daemonClock: relayClock, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
      clients.set(baseUrl, client)
    }
    return client
  }

  port.addEventListener('message', (event) => {
    const message = event.data
    if (message.type === 'input') {
      inputAt = Math.max(inputAt, now() - message.agoMs)
      return
    }
    if (message.type === 'abort') {
      running.get(message.id)?.abort()
      running.delete(message.id)
      return
    }
    const { id } = message
    const controller = new AbortController()
    running.set(id, controller)
    if (message.type === 'page') {
      clientFor(message.baseUrl)
        .listMessagesPage(message.sessionId, message.page, controller.signal)
        .then(
          (page) => port.postMessage({ type: 'page', id, page }),
          (error: unknown) => {
            if (!controller.signal.aborted) port.postMessage({ type: 'failed', id, error: toFailure(error) })
          },
        )
        .finally(() => {
          if (running.get(id) === controller) running.delete(id)
        })
      return
    }
    const tracker = startTrees?.()
    const pace = startPace?.(input)
    const batcher = createFrameBatcher({
      gapMs: pace ? pace.gap : gapMs,
      now,
      post: (frames) => {
        pace?.posted(frames)
        const trees = tracker?.batch(frames)
        port.postMessage(trees ? { type: 'frames', id, frames, trees } : { type: 'frames', id, frames })
      },
    })
    followRun({
      client: clientFor(message.baseUrl),
      sessionId: message.sessionId,
      runId: message.runId,
      signal: controller.signal,
      onFrame: (frame) => batcher.push(frame),
      // The frames held go first: the page hears of the connection in the order it happened.
      onLink: (state) => {
        batcher.flush()
        port.postMessage({ type: 'link', id, state })
      },
      ...(message.lastEventId === undefined ? {} : { lastEventId: message.lastEventId }),
      ...(message.maxReattach === undefined ? {} : { maxReattach: message.maxReattach }),
      ...(message.maxLagged === undefined ? {} : { maxLagged: message.maxLagged }),
    }).then(
      (terminal) => {
        batcher.flush()
        const trees = tracker?.end()
        port.postMessage(trees ? { type: 'end', id, terminal, trees } : { type: 'end', id, terminal })
      },
      (error: unknown) => {
        // An abort was asked for by the page, which has stopped listening already.
        if (controller.signal.aborted) return batcher.dispose()
        batcher.flush()
        port.postMessage({ type: 'failed', id, error: toFailure(error) })
      },
    ).finally(() => {
      if (running.get(id) === controller) running.delete(id)
    })
  })
}
