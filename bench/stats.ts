/** Small statistics for the benchmark's figures. */

/** The p-th percentile (0–100) by nearest rank; undefined for no values. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)))
  return sorted[rank - 1]
}

/**
 * The median of the values that are numbers (the mean of the middle two for an even count).
 * Infinity counts: it is a "never" (a marker that did not show in its time), the slowest of all.
 */
export function median(values: ReadonlyArray<number | null | undefined>): number | undefined {
  const xs = values.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v)).sort((a, b) => a - b)
  if (xs.length === 0) return undefined
  const mid = Math.floor(xs.length / 2)
  return xs.length % 2 ? xs[mid] : ((xs[mid - 1] as number) + (xs[mid] as number)) / 2
}

/** Intervals between consecutive timestamps. */
export function intervals(times: readonly number[]): number[] {
  const out: number[] = []
  for (let i = 1; i < times.length; i++) out.push((times[i] as number) - (times[i - 1] as number))
  return out
}

/** Rounds to `digits` decimals (for the JSON, so it stays readable). */
export function round(value: number | undefined, digits = 1): number | undefined {
  if (value === Infinity) return value
  if (value === undefined || !Number.isFinite(value)) return undefined
  const f = 10 ** digits
  return Math.round(value * f) / f
}
