/**
 * Find-in-session's rules, no React: which rows held match, how they merge with the daemon's
 * hits for what is not held, where Enter and Shift+Enter go, and what the status may say. The
 * daemon answers oldest first, at most a page of hits, with no way to ask for hits after a seq:
 * past its last hit, when it had more, a match has hits before it that are not known, and no
 * true number. chat/transcript/find-bar.tsx draws them.
 */

/** A match: a row held (its index, its seq when it has one), or a daemon hit not held (its seq). */
export type Match = { index: number; seq: number | undefined } | { index: undefined; seq: number }

/** The rows held whose text holds `needle` (lower case in `language`), in row order. */
export function heldMatches<Item>(
  items: readonly Item[],
  itemText: (item: Item) => string,
  itemSeq: ((item: Item) => number | undefined) | undefined,
  needle: string,
  language: string,
): Match[] {
  if (!needle) return []
  const out: Match[] = []
  items.forEach((item, index) => {
    if (itemText(item).toLocaleLowerCase(language).includes(needle)) out.push({ index, seq: itemSeq?.(item) })
  })
  return out
}

/**
 * The held matches and the daemon's hits not held, in one order: by seq, rows without one (sends
 * not confirmed) last, in their order.
 */
export function mergeMatches(held: readonly Match[], hits: readonly number[], isHeld: (seq: number) => boolean): readonly Match[] {
  const unheld = hits.filter((seq) => !isHeld(seq))
  if (unheld.length === 0) return held
  const merged: Match[] = [...held, ...unheld.map((seq) => ({ index: undefined, seq }))]
  return merged.sort((a, b) => (a.seq ?? Number.POSITIVE_INFINITY) - (b.seq ?? Number.POSITIVE_INFINITY) || (a.index ?? 0) - (b.index ?? 0))
}

/**
 * How many matches have a true number: all of them, unless the daemon had more hits than it gave;
 * then those up to its last hit.
 */
export function knownCount(matches: readonly Match[], hits: readonly number[], more: boolean): number {
  const lastHit = more ? hits.at(-1) : undefined
  return lastHit === undefined ? matches.length : matches.filter((m) => m.seq !== undefined && m.seq <= lastHit).length
}

/** The match gone to, by what it is (its seq, or its row's index without one): rows come and go above it as pages are read. */
export type FindPlace = { seq: number | undefined; index: number }

export const placeOf = (match: Match): FindPlace => ({ seq: match.seq, index: match.index ?? -1 })

/** Where `place` is among `matches`, -1 when it is not (none gone to, or the matches changed). */
export function positionOf(matches: readonly Match[], place: FindPlace | undefined): number {
  if (place === undefined) return -1
  return matches.findIndex((m) => (place.seq !== undefined ? m.seq === place.seq : m.index === place.index))
}

/** The match Enter (1) or Shift+Enter (-1) goes to from `position`: the first or last from none, round the ends. */
export function stepTo(position: number, step: 1 | -1, count: number): number {
  if (position < 0) return step === 1 ? 0 : count - 1
  return (position + step + count) % count
}

/** What the status says, as the key of its words and their values. */
export type FindStatus =
  | { key: 'find.searching' | 'find.none' }
  | { key: 'find.found' | 'find.foundMore'; count: number }
  | { key: 'find.countPast'; count: number }
  | { key: 'find.count' | 'find.countMore'; current: number; total: number }

/**
 * The status for `matches`, the one at `position` gone to (-1: none yet), with `known` of them
 * numbered truly and `more` hits on the daemon than it gave.
 */
export function findStatus({ matches, position, known, more, searching }: { matches: number; position: number; known: number; more: boolean; searching: boolean }): FindStatus {
  if (matches === 0) return { key: searching ? 'find.searching' : 'find.none' }
  // Found, not gone to yet (Enter goes to the first): how many, not "0 of N".
  if (position < 0) return { key: more ? 'find.foundMore' : 'find.found', count: matches }
  const current = position + 1
  if (!more) return { key: 'find.count', current, total: matches }
  return current > known ? { key: 'find.countPast', count: known } : { key: 'find.countMore', current, total: matches }
}
