/**
 * The one view of the tier 2 scheduler the UI reads: its status for an anchor, derived from a
 * machine snapshot and the clock, and which reply it belongs to. What the live region says of it
 * is announcer.ts. Values only: the UI words them.
 */
import type { Message } from '../wire/types'
import type { RegenerateRefusal, RetrySnapshot } from './machine'
import { remainingMs } from './schedule'

/**
 * The statuses the UI distinguishes. `paused` is the armed state with a wait beyond the cap;
 * `held` waits for the operator's Retry now, since regenerating would run a `write` tool again.
 */
export type RetryStatus = 'idle' | 'armed' | 'paused' | 'held' | 'dispatching' | 'watching' | 'cancelled' | 'refused'

/** What the UI shows for one anchor's scheduler. */
export type RetryView = {
  status: RetryStatus
  /** The upcoming automatic attempt, 1-based. */
  attempt: number
  /** When the attempt fires, while `armed` or `paused`; null otherwise (`held` fires on Retry now only). */
  deadline: number | null
  /** Milliseconds left until `deadline`; 0 when nothing is counting down. */
  remainingMs: number
  /** Show "retry after HH:MM" with no ticking instead of a countdown. */
  paused: boolean
  /** The refusal to word, in `refused`. */
  refusal: RegenerateRefusal | null
  /**
   * Armed or paused while the browser is offline: the countdown waits for the network and burns
   * no attempt (`robust.waitingForNetwork`); back online an overdue attempt fires at once.
   */
  waitingForNetwork: boolean
  /** In `held` only: the `write` tools Retry now would run again, in the order they ran. */
  rerun?: readonly string[]
}

function statusOf(snapshot: RetrySnapshot): RetryStatus {
  if (snapshot.matches('armed')) return snapshot.context.paused ? 'paused' : 'armed'
  if (snapshot.matches('held')) return 'held'
  if (snapshot.matches('dispatching')) return 'dispatching'
  if (snapshot.matches('watching')) return 'watching'
  if (snapshot.matches('cancelled')) return 'cancelled'
  if (snapshot.matches('refused')) return 'refused'
  return 'idle'
}

/**
 * Derives the UI's view from a snapshot and the clock. The countdown comes from the deadline and
 * `now`, so re-deriving on every tick (or after a sleep) is always right.
 */
export function retryView(snapshot: RetrySnapshot, now: number): RetryView {
  const status = statusOf(snapshot)
  const { context } = snapshot
  // Only a countdown has a deadline in force and waits for the network; a held attempt waits for
  // the operator alone.
  const counting = status === 'armed' || status === 'paused'
  const deadline = counting ? context.deadline : null
  return {
    status,
    attempt: context.attempt,
    deadline,
    remainingMs: deadline === null ? 0 : remainingMs(deadline, now),
    paused: status === 'paused',
    refusal: status === 'refused' ? context.lastError : null,
    waitingForNetwork: counting && !context.online,
    ...(status === 'held' ? { rerun: context.rerun } : {}),
  }
}

/**
 * True while an attempt is waiting to fire — counting down, paused until a provider's time, or
 * held for the operator — so Retry now applies and the view sits on the failed reply.
 */
export function isWaiting(status: RetryStatus): boolean {
  return status === 'armed' || status === 'paused' || status === 'held'
}

/** True while the scheduler owns the anchor: its own Cancel (and Retry now) are the way to act. */
export function isCancellable(status: RetryStatus): boolean {
  return isWaiting(status) || status === 'dispatching' || status === 'watching'
}

/**
 * Whether the scheduler's status belongs on `reply`: waiting belongs to the failed reply that
 * armed it; watching to the reply of the run in flight and, until history shows that reply, to
 * the failed one it replaces (from the regenerate's receipt to the next history read the failed
 * reply is still the anchor's latest: it shows the retry with Cancel, never a second Regenerate);
 * the rest to whichever reply is shown.
 */
export function belongsTo(snapshot: RetrySnapshot, reply: Pick<Message, 'id' | 'run_id'> & { superseded?: boolean }): boolean {
  const status = statusOf(snapshot)
  if (status === 'idle') return false
  if (isWaiting(status)) return reply.id === snapshot.context.failedMessageId
  if (status === 'watching') return reply.run_id === snapshot.context.runId || (reply.superseded !== true && reply.id === snapshot.context.failedMessageId)
  return true
}
