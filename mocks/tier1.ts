/**
 * Tier 1, the daemon's own fast retry inside a run (`shared/design/daemon-wire.md`, "Runs and
 * their outcome"): what it does after an attempt failed before the run's first delta. A pure
 * function, so the policy has its own tests and the model only follows it.
 */
import { TIER1_MAX_ATTEMPTS, TIER1_WINDOW_MS } from '../src/wire/types'

/** The first wait; each later one doubles, capped at the window. */
export const TIER1_BASE_MS = 1000

/**
 * - `wait`: wait `ms`, then make attempt `attempt + 1`.
 * - `give_up`: the attempts ran out; the run fails with this failure as it is.
 * - `hand_over`: the provider asked for longer than the window; the run fails at once, with the
 *   provider's time (`retry_after_until`) for tier 2. No attempt is spent waiting.
 */
export type Tier1Decision = { kind: 'wait'; ms: number } | { kind: 'give_up' } | { kind: 'hand_over'; retryAfterMs: number }

/**
 * What tier 1 does after attempt `attempt` (1-based) failed, given the provider's Retry-After in
 * milliseconds if it sent one. `published`: the run had already put out a `delta`, `reasoning`
 * or `tool_call`. A stream that has started is never replayed (a tool may have changed
 * something), so such a failure ends the run at once.
 */
export function tier1After(attempt: number, retryAfterMs?: number, published = false): Tier1Decision {
  // Checked first: a long Retry-After hands over even on the last attempt, so tier 2 learns the time.
  if (retryAfterMs !== undefined && retryAfterMs > TIER1_WINDOW_MS) return { kind: 'hand_over', retryAfterMs }
  if (published || attempt >= TIER1_MAX_ATTEMPTS) return { kind: 'give_up' }
  const backoff = TIER1_BASE_MS * 2 ** (attempt - 1)
  return { kind: 'wait', ms: Math.min(retryAfterMs ?? backoff, TIER1_WINDOW_MS) }
}
