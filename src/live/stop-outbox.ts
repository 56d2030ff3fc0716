/**
 * Stops the daemon has not heard yet. Stop cancels the run on the daemon; when the daemon cannot
 * be reached (no answer in time, a transport error, a 5xx) the stop is kept in the keyed store
 * (shared by the tabs, kept over a reload) and sent when the daemon is heard from again (a run's
 * stream connects again) or on a slow timer meanwhile.
 *
 * Exactly once: one request at a time per run, under a lock shared by the tabs, and the entry is
 * taken out only once the daemon has answered it (a cancel of a run that has ended is answered
 * too) or refused it (run_not_found). A tab that waited for the lock finds the entry gone and
 * sends nothing.
 */
import { z } from 'zod/mini'
import type { KeyedStore } from '../storage/keyed-store'
import { LOCK_PREFIX, type LockManagerLike } from '../storage/locks'
import { RefusalError } from '../wire/errors'
import type { DaemonClient } from '../wire/http'
import { readableList } from '../storage/readable-list'

const entrySchema = z.object({
  runId: z.string(),
  sessionId: z.string(),
  at: z.number(),
  /** The daemon has not answered it yet: the reply says the stop waits for the daemon. */
  kept: z.boolean(),
})
type StopEntry = z.infer<typeof entrySchema>

const entriesSchema = readableList(entrySchema)

export const STOP_OUTBOX_NAMESPACE = 'stop-outbox'
/** How long Stop waits for the daemon's answer before the stop reads as kept (the request goes on). */
export const STOP_ANSWER_MS = 10_000
/** Waits between two sends of kept stops while nothing says the daemon is back. */
const STOP_RETRY_MS = [2_000, 5_000, 10_000, 30_000] as const

/** What became of a Stop: the daemon answered it, it is kept for later, or the daemon refused it. */
export type StopOutcome = 'sent' | 'kept' | 'refused'

export type StopOutboxOptions = {
  store: KeyedStore
  client: Pick<DaemonClient, 'cancelRun'>
  locks: LockManagerLike
  clock: { now(): number }
  /** A kept stop reached the daemon: the session's history has its end. */
  onSent?: (sessionId: string) => void
}

export function createStopOutbox({ store, client, locks, clock, onSent }: StopOutboxOptions) {
  const slot = store.slot(STOP_OUTBOX_NAMESPACE, 'v1', entriesSchema)
  let entries: readonly StopEntry[] = slot.read() ?? []
  const listeners = new Set<() => void>()
  const inFlight = new Map<string, Promise<StopOutcome>>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let retries = 0

  const tell = () => {
    for (const listener of [...listeners]) listener()
  }

  /** Every change starts from the stored list: another tab may have changed it meanwhile. */
  function commit(change: (current: readonly StopEntry[]) => readonly StopEntry[]): void {
    const next = change(slot.read() ?? [])
    entries = next
    slot.write(next.length > 0 ? [...next] : undefined)
    tell()
  }

  const without = (runId: string) => (current: readonly StopEntry[]) => current.filter((e) => e.runId !== runId)
  const markKept = (runId: string) => {
    if (entries.some((e) => e.runId === runId && !e.kept)) commit((current) => current.map((e) => (e.runId === runId ? { ...e, kept: true } : e)))
  }

  /** Tries the kept stops again after a while, for as long as there are any. */
  function schedule(): void {
    if (timer !== undefined || entries.length === 0) return
    const wait = STOP_RETRY_MS[Math.min(retries, STOP_RETRY_MS.length - 1)]
    retries += 1
    timer = setTimeout(() => {
      timer = undefined
      flush()
    }, wait)
  }

  /** Sends the stop of `runId` unless this tab is already sending it; the lock keeps the other tabs out. */
  function send(runId: string): Promise<StopOutcome> {
    const running = inFlight.get(runId)
    if (running) return running
    const attempt = locks
      .request(`${LOCK_PREFIX}stop.${runId}`, {}, async (): Promise<StopOutcome> => {
        // Under the lock: a tab that sent it before us took the entry out.
        const entry = (slot.read() ?? []).find((e) => e.runId === runId)
        if (!entry) return 'sent'
        try {
          await client.cancelRun(entry.sessionId, runId)
          // Kept by now (the answer came late): nobody is waiting on this answer to read history.
          const late = entries.some((e) => e.runId === runId && e.kept)
          commit(without(runId))
          retries = 0
          if (late) onSent?.(entry.sessionId)
          return 'sent'
        } catch (error) {
          if (error instanceof RefusalError && error.status < 500) {
            commit(without(runId))
            return 'refused'
          }
          markKept(runId)
          schedule()
          return 'kept'
        }
      })
      .finally(() => inFlight.delete(runId))
    inFlight.set(runId, attempt)
    return attempt
  }

  /** Sends every kept stop this tab is not sending already (the daemon is back, or a retry is due). */
  function flush(): void {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    for (const entry of slot.read() ?? []) void send(entry.runId)
  }

  // Another tab kept, sent or dropped a stop.
  store.subscribe(STOP_OUTBOX_NAMESPACE, () => {
    entries = slot.read() ?? []
    tell()
    schedule()
  })
  // Stops kept before a reload go out when the daemon answers, as they would have.
  schedule()

  return {
    /**
     * Stop: cancels the run on the daemon, or keeps the stop for when the daemon answers again.
     * Resolves once the daemon answered, or once STOP_ANSWER_MS passed without an answer (the
     * request goes on); never rejects.
     */
    stop(sessionId: string, runId: string): Promise<StopOutcome> {
      if (!entries.some((e) => e.runId === runId)) commit((current) => [...without(runId)(current), { runId, sessionId, at: clock.now(), kept: false }])
      const attempt = send(runId)
      let wait: ReturnType<typeof setTimeout> | undefined
      const late = new Promise<StopOutcome>((resolve) => {
        wait = setTimeout(() => {
          markKept(runId)
          resolve('kept')
        }, STOP_ANSWER_MS)
      })
      return Promise.race([attempt, late]).finally(() => clearTimeout(wait))
    },
    /** The daemon is heard from again: kept stops go now. */
    flush,
    /** A stop of this run is kept for when the daemon answers. */
    isKept: (runId: string | undefined): boolean => runId !== undefined && entries.some((e) => e.runId === runId && e.kept),
    subscribe(listener: () => void): () => void {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
  }
}

export type StopOutbox = ReturnType<typeof createStopOutbox>
