/**
 * The tier 2 schedule: how long to wait before each automatic regenerate. Pure functions of their
 * arguments; the machine in `machine.ts` calls them and owns the timers. Whether a failure arms at
 * all is eligibility.ts.
 */
import { isValidTime } from '../wire/types'

/** The wait before the first automatic attempt. */
export const BASE_WAIT_MS = 2000
/** The longest backoff wait; a longer wait (a provider's `retry_after_until`) pauses the countdown. */
export const MAX_WAIT_MS = 300_000

// 2 s × 2^8 = 512 s is already past the cap, so any attempt from here on waits the cap; checking
// this first keeps 2 ** (attempt − 1) from ever being evaluated for a huge attempt number.
const FIRST_CAPPED_ATTEMPT = 1 + Math.ceil(Math.log2(MAX_WAIT_MS / BASE_WAIT_MS))

/**
 * The backoff wait before automatic attempt `attempt` (1-based): 2 s, then doubling, capped at
 * 300 s — 2, 4, 8, 16, 32, 64, 128, 256, 300, 300… seconds. Attempts are unlimited, so any
 * attempt number is accepted; anything below 2 (or not a number) waits the base.
 */
export function backoffMs(attempt: number): number {
  if (!(attempt > 1)) return BASE_WAIT_MS
  if (attempt >= FIRST_CAPPED_ATTEMPT) return MAX_WAIT_MS
  return Math.min(MAX_WAIT_MS, BASE_WAIT_MS * 2 ** (Math.floor(attempt) - 1))
}

/** What `retryDeadline` needs to know. All times are epoch milliseconds. */
export type RetryDeadlineInput = {
  /** The upcoming automatic attempt, 1-based. */
  attempt: number
  /** The backoff counts from here. */
  now: number
  /** The provider's "not before this time", straight from the wire; trusted only when sane. */
  retryAfterUntil?: unknown
}

/** When the next automatic attempt fires, and whether the countdown is shown paused. */
export type RetryDeadline = {
  deadline: number
  /** The wait is longer than the backoff cap: show "retry after HH:MM" with no ticking. */
  paused: boolean
}

/**
 * The deadline of the next automatic attempt: the backoff wait, but never before the provider's
 * `retry_after_until`. That time is trusted only when it is a time a Date can hold, in the future —
 * a past time has already been honoured, and anything else is a malformed wire value. The caller
 * has already placed it on the browser's clock (`RetryClock.fromDaemon`).
 */
export function retryDeadline({ attempt, now, retryAfterUntil }: RetryDeadlineInput): RetryDeadline {
  let deadline = now + backoffMs(attempt)
  // A time past the last valid Date is no time: the normal wait applies, and nothing formats it.
  if (isValidTime(retryAfterUntil) && retryAfterUntil > now) {
    deadline = Math.max(deadline, retryAfterUntil)
  }
  return { deadline, paused: deadline - now > MAX_WAIT_MS }
}

/**
 * Milliseconds left until `deadline`, never negative. The countdown is always derived from the
 * deadline and the clock, never decremented, so a throttled or sleeping tab cannot drift.
 */
export function remainingMs(deadline: number, now: number): number {
  const left = deadline - now
  return left > 0 ? left : 0
}
