/**
 * The tier 2 scheduler, loaded after the page: the scheduler, its machine and XState are a chunk
 * of their own (a tenth of the initial script), not needed to paint the first screen. The runtime
 * gets this stand-in at once; it starts fetching the chunk as it is made, and from then on every
 * call goes to the scheduler itself.
 *
 * Until then nothing can be armed, so nothing is shown and nothing can be retried or cancelled:
 * the stand-in keeps each session's latest history and the regenerates by hand (`dismiss`), and
 * hands them to the scheduler once it exists, so a failure read meanwhile arms then, as it would
 * have on arrival. Listeners move over to the scheduler and hear its first snapshot.
 */
import type { Message } from '../wire/types'
import type { RetryScheduler, RetrySchedulerOptions, SessionRetries } from './scheduler'

type SchedulerModule = typeof import('./scheduler')

/** The chunk once it has arrived: a runtime made after that gets the scheduler itself. */
let loaded: SchedulerModule | undefined
let loading: Promise<SchedulerModule> | undefined

/**
 * Fetches the scheduler's chunk, once; a fetch that failed (a network blip, a deploy that replaced
 * the chunk) is tried again by the next call. Tests wait for it before they make a runtime.
 */
export function loadRetryScheduler(): Promise<SchedulerModule> {
  if (!loading) {
    const attempt = import('./scheduler').then((module) => (loaded = module))
    attempt.catch(() => {
      if (loading === attempt) loading = undefined
    })
    loading = attempt
  }
  return loading
}

const NOTHING_ARMED: SessionRetries = new Map()

type Waiting = { sessionId: string; listener: () => void; moved?: () => void }

/** The scheduler, or a stand-in that becomes it once its chunk has arrived (see the module comment). */
export function createLazyRetryScheduler(options: RetrySchedulerOptions): RetryScheduler {
  return loaded ? loaded.createRetryScheduler(options) : createRetrySchedulerStandIn(options, loadRetryScheduler)
}

/** The stand-in: becomes the scheduler of `fetchModule` once it resolves. */
export function createRetrySchedulerStandIn(options: RetrySchedulerOptions, fetchModule: () => Promise<SchedulerModule>): RetryScheduler {
  let scheduler: RetryScheduler | undefined
  let disposed = false
  let fetching = false
  /** Each session's latest history, as fed: what the scheduler is fed first. */
  const histories = new Map<string, readonly Message[]>()
  const dismissed: Array<{ sessionId: string; anchorId: string }> = []
  /** The listeners, each moved over to the scheduler (with its unsubscribe there) once it exists. */
  const waiting = new Set<Waiting>()

  const become = (module: SchedulerModule) => {
    if (disposed || scheduler) return
    const real = module.createRetryScheduler(options)
    scheduler = real
    for (const entry of waiting) entry.moved = real.subscribe(entry.sessionId, entry.listener)
    for (const { sessionId, anchorId } of dismissed.splice(0)) real.dismiss(sessionId, anchorId)
    for (const [sessionId, history] of histories) real.feed(sessionId, history)
    histories.clear()
    // The sessions' snapshots are the scheduler's from now on: every listener reads them once.
    for (const entry of [...waiting]) entry.listener()
  }
  // A chunk that could not be fetched is asked for again by the next history read.
  const load = () => {
    if (fetching || scheduler || disposed) return
    fetching = true
    fetchModule().then(become, () => undefined).finally(() => (fetching = false))
  }
  load()

  return {
    feed(sessionId, history) {
      if (scheduler) return scheduler.feed(sessionId, history)
      histories.set(sessionId, history)
      load()
    },
    // Nothing is armed before the scheduler exists, so no control offers these.
    retryNow(sessionId, anchorId) {
      scheduler?.retryNow(sessionId, anchorId)
    },
    cancel(sessionId, anchorId) {
      scheduler?.cancel(sessionId, anchorId)
    },
    dismiss(sessionId, anchorId) {
      if (scheduler) return scheduler.dismiss(sessionId, anchorId)
      dismissed.push({ sessionId, anchorId })
    },
    release(sessionId) {
      if (scheduler) return scheduler.release(sessionId)
      histories.delete(sessionId)
    },
    snapshot(sessionId) {
      return scheduler ? scheduler.snapshot(sessionId) : NOTHING_ARMED
    },
    subscribe(sessionId, listener) {
      if (scheduler) return scheduler.subscribe(sessionId, listener)
      const entry: Waiting = { sessionId, listener }
      waiting.add(entry)
      return () => {
        waiting.delete(entry)
        entry.moved?.()
      }
    },
    dispose() {
      disposed = true
      scheduler?.dispose()
      histories.clear()
      waiting.clear()
    },
  }
}
