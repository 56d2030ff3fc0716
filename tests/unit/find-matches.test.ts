import { describe, expect, it } from 'vitest'
import { findStatus, heldMatches, knownCount, mergeMatches, placeOf, positionOf, stepTo } from '../../src/thread/find-matches'

type Row = { text: string; seq?: number }
const rows: Row[] = [{ text: 'Apple pie', seq: 10 }, { text: 'Banana', seq: 11 }, { text: 'APPLE tart', seq: 12 }, { text: 'apple, not sent yet' }]
const text = (row: Row) => row.text
const seq = (row: Row) => row.seq

describe('find-in-session rules', () => {
  it('matches the rows held in the interface language, case aside, in row order', () => {
    expect(heldMatches(rows, text, seq, 'apple', 'en')).toEqual([
      { index: 0, seq: 10 },
      { index: 2, seq: 12 },
      { index: 3, seq: undefined },
    ])
    expect(heldMatches(rows, text, seq, '', 'en')).toEqual([])
    // Turkish lower case: the dotted capital İ is i.
    expect(heldMatches([{ text: 'İSTANBUL' }], text, seq, 'istanbul', 'tr')).toHaveLength(1)
  })

  it('merges the daemon hits not held by seq, rows not yet numbered last', () => {
    const held = heldMatches(rows, text, seq, 'apple', 'en')
    const merged = mergeMatches(held, [2, 10, 12, 30], (s) => s >= 10 && s <= 12)
    expect(merged.map((m) => [m.index, m.seq])).toEqual([
      [undefined, 2],
      [0, 10],
      [2, 12],
      [undefined, 30],
      [3, undefined],
    ])
    // Every hit held: the held matches as they were.
    expect(mergeMatches(held, [10, 12], () => true)).toBe(held)
  })

  it('numbers truly only up to the daemon’s last hit when it had more', () => {
    const matches = mergeMatches(heldMatches(rows, text, seq, 'apple', 'en'), [1, 2, 3], () => false)
    expect(knownCount(matches, [1, 2, 3], false)).toBe(matches.length)
    // Hits 1–3 given, more there: the held matches (10, 12, unnumbered) follow unknown ones.
    expect(knownCount(matches, [1, 2, 3], true)).toBe(3)
  })

  it('goes round the ends, and starts from the first or the last', () => {
    expect(stepTo(-1, 1, 5)).toBe(0)
    expect(stepTo(-1, -1, 5)).toBe(4)
    expect(stepTo(4, 1, 5)).toBe(0)
    expect(stepTo(0, -1, 5)).toBe(4)
    expect(stepTo(2, 1, 5)).toBe(3)
  })

  it('finds the match gone to by its seq as rows come and go above it, by its row without one', () => {
    const before = mergeMatches(heldMatches(rows, text, seq, 'apple', 'en'), [], () => true)
    const place = placeOf(before[1]!)
    // A page read above: every row moves down by two, the seq stays.
    const after = heldMatches([{ text: 'apple', seq: 1 }, { text: 'x', seq: 2 }, ...rows], text, seq, 'apple', 'en')
    expect(after[positionOf(after, place)]).toEqual({ index: 4, seq: 12 })
    // A row without a seq (a send not confirmed) is known by its row.
    expect(positionOf(before, placeOf(before[2]!))).toBe(2)
    expect(positionOf(after, undefined)).toBe(-1)
  })

  it('says searching, none, how many found, which one, or past what is known', () => {
    expect(findStatus({ matches: 0, position: -1, known: 0, more: false, searching: true })).toEqual({ key: 'find.searching' })
    expect(findStatus({ matches: 0, position: -1, known: 0, more: false, searching: false })).toEqual({ key: 'find.none' })
    expect(findStatus({ matches: 7, position: -1, known: 7, more: false, searching: false })).toEqual({ key: 'find.found', count: 7 })
    expect(findStatus({ matches: 7, position: -1, known: 5, more: true, searching: false })).toEqual({ key: 'find.foundMore', count: 7 })
    expect(findStatus({ matches: 7, position: 2, known: 7, more: false, searching: false })).toEqual({ key: 'find.count', current: 3, total: 7 })
    expect(findStatus({ matches: 7, position: 4, known: 5, more: true, searching: false })).toEqual({ key: 'find.countMore', current: 5, total: 7 })
    expect(findStatus({ matches: 7, position: 5, known: 5, more: true, searching: false })).toEqual({ key: 'find.countPast', count: 5 })
  })
})
