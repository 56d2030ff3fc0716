import { describe, expect, it } from 'vitest'
import { forgetAbsentSizes, gapHeights, KEPT_ABSENT_SIZES, MIN_GAP_PX } from '../../src/chat/transcript/gap-heights'

const sizesOf = (keys: string[]) => new Map(keys.map((key, i) => [key, 100 + i]))

describe('forgetAbsentSizes', () => {
  it('keeps every measured height while the absent rows are within the bound', () => {
    const sizes = sizesOf(['a', 'b', 'c', 'd'])
    expect(forgetAbsentSizes(sizes, new Set(['d']), 3)).toBe(0)
    expect([...sizes.keys()]).toEqual(['a', 'b', 'c', 'd'])
  })

  it('drops the oldest measured of the absent rows past the bound, never a present one', () => {
    const sizes = sizesOf(['a', 'b', 'c', 'd', 'e', 'f'])
    // `a` and `d` are in the list: of b, c, e, f two may stay, the newest measured.
    expect(forgetAbsentSizes(sizes, new Set(['a', 'd']), 2)).toBe(2)
    expect([...sizes.keys()]).toEqual(['a', 'd', 'e', 'f'])
    expect(sizes.get('a')).toBe(100)
    expect(sizes.get('f')).toBe(105)
  })

  it('bounds what a long scroll leaves behind, whatever the session length', () => {
    const sizes = new Map<string, number>()
    // Pages of 100 rows shown one after the other, each let go as the next lands.
    for (let page = 0; page < 100; page++) {
      const keys = Array.from({ length: 100 }, (_, i) => `m${page * 100 + i}`)
      for (const key of keys) sizes.set(key, 120)
      forgetAbsentSizes(sizes, new Set(keys))
    }
    expect(sizes.size).toBe(KEPT_ABSENT_SIZES + 100)
    // The page on screen and the newest measured before it are what is kept.
    expect(sizes.has('m9999')).toBe(true)
    expect(sizes.has('m0')).toBe(false)
    expect(sizes.has(`m${9900 - KEPT_ABSENT_SIZES}`)).toBe(true)
    expect(sizes.has(`m${9899 - KEPT_ABSENT_SIZES}`)).toBe(false)
  })
})

describe('gapHeights', () => {
  it('estimates every gap by its count with nothing laid out before, never under the least', () => {
    const heights = gapHeights(undefined, [{ key: 'g1', count: 10 }, { key: 'r1' }, { key: 'g2', count: 0 }], () => 100, 50)
    expect(heights.get('g1')).toBe(500)
    expect(heights.get('g2')).toBe(MIN_GAP_PX)
    expect(heights.has('r1')).toBe(false)
  })

  it('gives a page landing in a gap the gap’s height, less its rows, shared by what is left', () => {
    const prev = { items: [{ key: 'top' }, { key: 'gap', count: 300 }, { key: 'end' }], heightOf: (i: number) => [100, 9000, 100][i]! }
    // Rows r1 and r2 (200 px each) landed in the middle of the gap: the two gaps left share 8,600 px by count.
    const next = [{ key: 'top' }, { key: 'gapA', count: 100 }, { key: 'r1' }, { key: 'r2' }, { key: 'gapB', count: 98 }, { key: 'end' }]
    const heights = gapHeights(prev, next, () => 200, 50)
    expect((heights.get('gapA') ?? 0) + (heights.get('gapB') ?? 0) + 400).toBeCloseTo(9000)
    expect(heights.get('gapA')! / heights.get('gapB')!).toBeCloseTo(100 / 98)
  })
})
