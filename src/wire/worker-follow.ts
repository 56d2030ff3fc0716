/**
 * The page's side of the stream worker: a `followRun` that has the worker read the run's event
 * stream (see stream-worker-host.ts) and passes its frames on as they come. It keeps
 * `followRun`'s contract: frames in order, the terminal frame returned, the same error classes,
 * an abort rejecting with the signal's reason.
 *
 * The worker starts on the first run followed. If it cannot start, or breaks, the runs it was
 * reading carry on here on the page, from the last event it handed over, and so does every run
 * after them: a stream is never lost to the worker.
 *
 * Pages of history are read there too (`readPage`): an agent's reply is megabytes of JSON, read,
 * decoded and parsed in the worker instead of on the page's main thread. A page the worker had in
 * hand when it broke is read again on the page.
 */
import { abortedBy, followRun, type FollowRunOptions, type TerminalFrame } from './events'
import type { DaemonClock } from './clock'
import { fromFailure, type FromWorker, type PageReadRequest, type ToWorker } from './stream-protocol'
import type { HostInput } from './stream-worker-host'
import type { StreamTrees } from '../markdown/stream-trees'
import type { DaemonClient } from './http'
import type { MessagePage } from './types'
import { createWorkerSlot, type WorkerLike } from '../workers/worker-slot'

/** `followRun`'s shape: what the run follower calls to read a run's stream. */
export type FollowRun = (options: FollowRunOptions) => Promise<TerminalFrame>

/** `DaemonClient.listMessagesPage`'s shape. */
export type ReadPage = DaemonClient['listMessagesPage']

/** The worker's followRun, its page reads, and a way to start the worker ahead of the first run. */
export type WorkerFollow = FollowRun & {
  /** Starts the worker now (its script loads off the main thread), so the first run waits on nothing. */
  warm(): void
  /**
   * Reads a page of history in the worker (fetched, decoded, parsed and checked there; the page
   * gets the messages in one message), or with `fallback` on the page when no worker runs or the
   * worker breaks with the read in hand. Same answers and errors as `listMessagesPage`.
   */
  readPage(fallback: ReadPage, ...args: Parameters<ReadPage>): ReturnType<ReadPage>
}

/** The part of a `Worker` used here. */
export type StreamWorkerLike = WorkerLike<ToWorker, FromWorker>

export type WorkerFollowOptions = {
  /** Starts the worker; throwing (no Worker, a CSP refusal) leaves every stream on the page. */
  spawn: () => StreamWorkerLike
  /** The daemon's origin, as the page's client has it. */
  baseUrl: string
  /** Where the `Date` headers of the worker's answers go. */
  daemonClock: Pick<DaemonClock, 'observe'>
  /** Reads a stream on the page: before the worker is up, and when it cannot be. */
  fallback?: FollowRun
  /**
   * Where the Markdown trees the worker parsed go (markdown/worker-trees.ts), before the frames
   * they were parsed for; `ended` when the stream's last have come.
   */
  onTrees?: (stream: number, trees: StreamTrees | undefined, ended: boolean) => void
  /**
   * The operator's last key or click (live/pacing.ts's browserInput): the worker batches as often
   * as the page commits, and the page commits more often while the operator types. Told to the
   * worker when a batch arrives after a new input, so a page nobody types on sends nothing.
   */
  input?: HostInput
}

type PendingFollow = {
  kind: 'follow'
  options: FollowRunOptions
  lastEventId: number | undefined
  resolve: (terminal: TerminalFrame) => void
  reject: (error: unknown) => void
  detach: () => void
}

/** A page read in the worker's hands; `onPage` reads it on the page instead. */
type PendingPage = {
  kind: 'page'
  resolve: (page: MessagePage) => void
  reject: (error: unknown) => void
  detach: () => void
  onPage: () => void
}

type Pending = PendingFollow | PendingPage

/** A `followRun` that reads streams in a worker (see the module comment). */
export function createWorkerFollow({ spawn, baseUrl, daemonClock, fallback = followRun, onTrees, input }: WorkerFollowOptions): WorkerFollow {
  /** The input last told to the worker. */
  let toldInputAt = -Infinity
  const tellInput = () => {
    const at = input?.lastInputAt() ?? -Infinity
    if (at <= toldInputAt) return
    toldInputAt = at
    slot.post({ type: 'input', agoMs: Math.max(0, input!.now() - at) })
  }

  /** The worker failed: what it was reading goes on here, from the last frame it handed over. */
  const handOver = (entry: Pending, id: number) => {
    entry.detach()
    if (entry.kind === 'page') return entry.onPage()
    onTrees?.(id, undefined, true)
    const options = entry.lastEventId === undefined ? entry.options : { ...entry.options, lastEventId: entry.lastEventId }
    fallback(options).then(entry.resolve, entry.reject)
  }

  const onMessage = (message: FromWorker) => {
    if (message.type === 'clock') return daemonClock.observe(message.date, message.sentAt, message.receivedAt)
    const entry = slot.get(message.id)
    if (!entry) return
    if (entry.kind === 'page') {
      if (message.type !== 'page' && message.type !== 'failed') return
      slot.take(message.id)
      entry.detach()
      return message.type === 'page' ? entry.resolve(message.page) : entry.reject(fromFailure(message.error))
    }
    if (message.type === 'page') return
    if (message.type === 'link') return entry.options.onLink?.(message.state)
    if (message.type === 'frames') {
      tellInput()
      if (message.trees) onTrees?.(message.id, message.trees, false)
      for (const frame of message.frames) {
        entry.lastEventId = frame.id
        entry.options.onFrame(frame)
      }
      return
    }
    slot.take(message.id)
    entry.detach()
    onTrees?.(message.id, message.type === 'end' ? message.trees : undefined, true)
    if (message.type === 'end') entry.resolve(message.terminal)
    else entry.reject(fromFailure(message.error))
  }

  const slot = createWorkerSlot<ToWorker, FromWorker, Pending>({ spawn, onMessage, handOver })

  const follow: FollowRun = (options) => {
    const { signal } = options
    if (signal.aborted) return Promise.reject(abortedBy(signal))
    if (!slot.start()) return fallback(options)
    return new Promise<TerminalFrame>((resolve, reject) => {
      let id = 0
      const onAbort = () => {
        if (!slot.take(id)) return
        slot.post({ type: 'abort', id })
        onTrees?.(id, undefined, true)
        reject(abortedBy(signal))
      }
      signal.addEventListener('abort', onAbort, { once: true })
      const detach = () => signal.removeEventListener('abort', onAbort)
      const entry: PendingFollow = { kind: 'follow', options, lastEventId: options.lastEventId, resolve, reject, detach }
      try {
        slot.send(entry, (given) => {
          id = given
          return {
            type: 'follow',
            id,
            baseUrl,
            sessionId: options.sessionId,
            runId: options.runId,
            ...(options.lastEventId === undefined ? {} : { lastEventId: options.lastEventId }),
            ...(options.maxReattach === undefined ? {} : { maxReattach: options.maxReattach }),
            ...(options.maxLagged === undefined ? {} : { maxLagged: options.maxLagged }),
          }
        })
      } catch (reason) {
        // Nothing is kept of a run the worker could not be asked to read.
        detach()
        reject(reason)
      }
    })
  }
  const readPage: WorkerFollow['readPage'] = (fallback, sessionId, page, signal) => {
    if (signal?.aborted) return Promise.reject(abortedBy(signal))
    if (!slot.start()) return fallback(sessionId, page, signal)
    return new Promise<MessagePage>((resolve, reject) => {
      let id = 0
      const onAbort = () => {
        if (!slot.take(id)) return
        slot.post({ type: 'abort', id })
        reject(abortedBy(signal!))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      const detach = () => signal?.removeEventListener('abort', onAbort)
      const onPage = () => fallback(sessionId, page, signal).then(resolve, reject)
      let sent = false
      try {
        sent = slot.send({ kind: 'page', resolve, reject, detach, onPage }, (given): PageReadRequest => {
          id = given
          return { type: 'page', id, baseUrl, sessionId, page }
        })
      } catch {
        // Not sent (the message could not be posted): nothing of it is kept in the slot.
      }
      if (!sent) {
        // A read the worker could not be asked for is done on the page.
        detach()
        onPage()
      }
    })
  }
  return Object.assign(follow, { warm: () => void slot.start(), readPage })
}
