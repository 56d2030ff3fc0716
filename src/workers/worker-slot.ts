/**
 * One dedicated worker the page starts on first use, and the requests it has in hand. The stream
 * worker (wire/worker-follow.ts) and the highlight worker (markdown/highlight-client.ts) both live
 * in one: a worker that cannot start leaves every request to the page from then on; one that
 * fails (its script did not load, a message could not be read) is ended, and each request it had
 * is handed over to be done on the page, once, as is every later one. No React, no imports.
 */

/** The part of a `Worker` a slot uses: `In` is what the page sends, `Out` what the worker answers. */
export type WorkerLike<In, Out> = {
  postMessage(message: In): void
  addEventListener(type: 'message', listener: (event: MessageEvent<Out>) => void): void
  addEventListener(type: 'error' | 'messageerror', listener: () => void): void
  terminate(): void
}

export type WorkerSlotOptions<In, Out, Request> = {
  /** Starts the worker; throwing (no Worker here, a CSP refusal) leaves every request to the page. */
  spawn: () => WorkerLike<In, Out>
  /** Each message the worker sends. */
  onMessage: (message: Out) => void
  /** The worker failed with `request` in hand (taken out of the slot): do it on the page. */
  handOver: (request: Request, id: number) => void
}

export type WorkerSlot<In, Request> = {
  /** Starts the worker if it is not yet; false when none runs, so the caller does the work on the page. */
  start(): boolean
  /**
   * Gives the worker `request` with `message(id)`, `id` new. False, with nothing kept, when no
   * worker runs; a `postMessage` that throws keeps nothing either, and throws.
   */
  send(request: Request, message: (id: number) => In): boolean
  /** Posts to the worker as it is, if one runs (an abort, say). */
  post(message: In): void
  /** The request with this id, if the worker still has it. */
  get(id: number): Request | undefined
  /** Takes the request with this id out of the slot (it was answered or given up): it, or undefined. */
  take(id: number): Request | undefined
}

export function createWorkerSlot<In, Out, Request>({ spawn, onMessage, handOver }: WorkerSlotOptions<In, Out, Request>): WorkerSlot<In, Request> {
  let worker: WorkerLike<In, Out> | undefined
  let broken = false
  let nextId = 1
  const requests = new Map<number, Request>()

  const breakDown = () => {
    if (broken) return
    broken = true
    worker?.terminate()
    worker = undefined
    for (const [id, request] of requests) {
      requests.delete(id)
      handOver(request, id)
    }
  }

  const start = (): WorkerLike<In, Out> | undefined => {
    if (worker || broken) return worker
    try {
      worker = spawn()
    } catch {
      broken = true
      return undefined
    }
    worker.addEventListener('message', ({ data }) => onMessage(data))
    worker.addEventListener('error', breakDown)
    worker.addEventListener('messageerror', breakDown)
    return worker
  }

  return {
    start: () => start() !== undefined,
    send(request, message) {
      const target = start()
      if (!target) return false
      const id = nextId++
      requests.set(id, request)
      try {
        target.postMessage(message(id))
      } catch (reason) {
        requests.delete(id)
        throw reason
      }
      return true
    },
    post: (message) => worker?.postMessage(message),
    get: (id) => requests.get(id),
    take(id) {
      const request = requests.get(id)
      requests.delete(id)
      return request
    },
  }
}
