/**
 * How far the browser's clock is from the daemon's, estimated from `Date` headers. Times on the
 * wire (`retry_after_until`, tier 1's `retry_at`) are the daemon's; `toLocal` places them on the
 * browser's clock, so a browser clock minutes off neither fires early nor waits too long.
 */
export type DaemonClock = {
  /** daemon time − browser time, in ms (0 until a `Date` header was read). */
  offsetMs(): number
  /** A daemon time on the browser's clock. Not a number in, the same out. */
  toLocal(daemonMs: number): number
  /** Records one response: its `Date` header and when the request went out and the answer came in (browser clock). */
  observe(dateHeader: string | null, sentAt: number, receivedAt: number): void
  /** How many samples the estimate rests on. */
  samples(): number
}

/** Samples kept for the estimate: enough to narrow it, few enough to follow a clock that was set. */
const CLOCK_SAMPLES = 15
/** An answer slower than this says little about when the daemon stamped it. */
const CLOCK_MAX_RTT_MS = 10_000

/**
 * The offset estimator. `Date` has a resolution of one second and is truncated, so the daemon's
 * time at stamping is in [D, D + 1000); it stamped between sending and receiving. So each answer
 * bounds the offset: daemon − browser ∈ [D − receivedAt, D + 1000 − sentAt]. The estimate is the
 * intersection of the recent answers' bounds, which narrows towards the true offset as the
 * requests' sub-second phases vary; when answers disagree (the browser's clock was set, a proxy
 * sent a stale `Date`) the newest answers that agree win. Within the bounds it takes 0 when 0 is
 * possible (clocks in sync stay uncorrected), else the lower bound: a wait is then never placed
 * earlier than the daemon meant, at worst a fraction of a second later.
 */
export function createDaemonClock(): DaemonClock {
  const samples: { lo: number; hi: number }[] = []
  let estimate = 0
  const recompute = () => {
    let lo = -Infinity
    let hi = Infinity
    // Newest first: stop at the first answer that contradicts the newer ones.
    for (let i = samples.length - 1; i >= 0; i--) {
      const sample = samples[i]!
      const nextLo = Math.max(lo, sample.lo)
      const nextHi = Math.min(hi, sample.hi)
      if (nextLo > nextHi) {
        samples.splice(0, i + 1)
        break
      }
      lo = nextLo
      hi = nextHi
    }
    estimate = lo <= 0 && 0 <= hi ? 0 : Math.round(lo)
  }
  return {
    offsetMs: () => estimate,
    toLocal: (daemonMs) => (Number.isFinite(daemonMs) ? daemonMs - estimate : daemonMs),
    observe(dateHeader, sentAt, receivedAt) {
      if (!dateHeader) return
      const stamped = Date.parse(dateHeader)
      if (!Number.isFinite(stamped) || !Number.isFinite(sentAt) || !Number.isFinite(receivedAt)) return
      if (receivedAt < sentAt || receivedAt - sentAt > CLOCK_MAX_RTT_MS) return
      samples.push({ lo: stamped - receivedAt, hi: stamped + 1000 - sentAt })
      if (samples.length > CLOCK_SAMPLES) samples.shift()
      recompute()
    },
    samples: () => samples.length,
  }
}
