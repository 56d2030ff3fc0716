import { describe, expect, it } from 'vitest'
import { setNewest } from '../../src/storage/bounded'

describe('setNewest', () => {
  it('keeps at most `limit` entries, letting the oldest go', () => {
    const map = new Map<string, number>()
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) setNewest(map, key, i, 3)
    expect([...map.keys()]).toEqual(['b', 'c', 'd'])
  })

  it('makes a key set again the newest, so it is the last to go', () => {
    const map = new Map<string, number>()
    setNewest(map, 'a', 1, 2)
    setNewest(map, 'b', 2, 2)
    setNewest(map, 'a', 3, 2)
    setNewest(map, 'c', 4, 2)
    expect([...map]).toEqual([
      ['a', 3],
      ['c', 4],
    ])
  })
})
