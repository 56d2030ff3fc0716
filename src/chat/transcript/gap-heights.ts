/**
 * How tall the transcript draws each gap (messages not held), so that a page landing in a gap, or
 * a page let go, moves nothing outside the span it changes: the span between two rows that were
 * there before and are there after keeps its height, its new rows take theirs and its gaps share
 * what is left. The row under the operator's eye then stays where it is, whichever row the
 * virtualizer anchors to, and a scrollbar dragged into a gap finds its page where it let go.
 */

/** An item as the transcript lays it out: a row (`count` undefined) or a gap of `count` messages. */
export type LaidItem = { key: string; count?: number }

/** The least a gap is drawn: its line and its button. */
export const MIN_GAP_PX = 56
/** The most all gaps take: browsers cap an element's height (Chromium near 33.5 million px). */
const MAX_GAPS_PX = 16_000_000

/**
 * The heights of the gaps of `next`, given the layout before (`prev` with each item's height, or
 * undefined at first): gaps already there keep theirs; a new gap shares, with the other new gaps of
 * its span, the height its span had less that of its rows (each by its count, never under
 * `MIN_GAP_PX`). With nothing to go by, a gap is `estimate` per message.
 */
export function gapHeights(
  prev: { items: readonly LaidItem[]; heightOf: (index: number) => number } | undefined,
  next: readonly LaidItem[],
  rowHeight: (key: string) => number,
  estimate: number,
): Map<string, number> {
  const heights = new Map<string, number>()
  const fresh = (count: number) => Math.max(MIN_GAP_PX, Math.min(MAX_GAPS_PX, count * estimate))
  if (!prev || prev.items.length === 0) {
    for (const item of next) if (item.count !== undefined) heights.set(item.key, fresh(item.count))
    return heights
  }
  const before = new Map<string, number>()
  prev.items.forEach((item, index) => before.set(item.key, index))
  // Rows kept from before, in an order that agrees with it: the fixed points between spans.
  const fixed: Array<{ prev: number; next: number }> = []
  let last = -1
  next.forEach((item, index) => {
    if (item.count !== undefined) return
    const at = before.get(item.key)
    if (at === undefined || at <= last) return
    fixed.push({ prev: at, next: index })
    last = at
  })
  const prevTop: number[] = [0]
  for (let i = 0; i < prev.items.length; i++) prevTop.push(prevTop[i]! + prev.heightOf(i))
  const spans = [{ prev: -1, next: -1 }, ...fixed, { prev: prev.items.length, next: next.length }]
  for (let s = 0; s + 1 < spans.length; s++) {
    const from = spans[s]!
    const to = spans[s + 1]!
    const oldHeight = prevTop[to.prev]! - prevTop[from.prev + 1]!
    let taken = 0
    const newGaps: LaidItem[] = []
    for (let i = from.next + 1; i < to.next; i++) {
      const item = next[i]!
      if (item.count === undefined) {
        taken += rowHeight(item.key)
        continue
      }
      const at = before.get(item.key)
      if (at !== undefined && at > from.prev && at < to.prev) {
        // The same gap, in the same span: its height stands.
        const kept = prev.heightOf(at)
        heights.set(item.key, kept)
        taken += kept
      } else newGaps.push(item)
    }
    if (newGaps.length === 0) continue
    const counted = newGaps.reduce((n, gap) => n + (gap.count as number), 0)
    const left = oldHeight - taken
    for (const gap of newGaps) {
      // A span that had no height (a gap where nothing was) is estimated.
      const share = oldHeight > 0 ? (left * (gap.count as number)) / counted : fresh(gap.count as number)
      heights.set(gap.key, Math.max(MIN_GAP_PX, Math.min(MAX_GAPS_PX, share)))
    }
  }
  return heights
}

/**
 * Measured heights kept for rows that are not in the list (their page let go): a page read again
 * lays its rows out at the heights they had, so nothing moves as they land. About twenty pages'
 * worth; beyond it the oldest measured go, so a long scroll through a session does not keep one
 * entry per message it ever showed.
 */
export const KEPT_ABSENT_SIZES = 2000

/**
 * Drops from `sizes` (the virtualizer's measured heights by row key, in the order measured) the
 * oldest entries for keys not in `present`, until at most `keep` absent ones are left. Rows in
 * the list keep theirs. Returns how many it dropped.
 */
export function forgetAbsentSizes<K>(sizes: Map<K, number>, present: ReadonlySet<K>, keep = KEPT_ABSENT_SIZES): number {
  let absent = 0
  for (const key of sizes.keys()) if (!present.has(key)) absent++
  let drop = absent - keep
  if (drop <= 0) return 0
  const dropped = drop
  for (const key of sizes.keys()) {
    if (drop === 0) break
    if (present.has(key)) continue
    sizes.delete(key)
    drop--
  }
  return dropped
}
