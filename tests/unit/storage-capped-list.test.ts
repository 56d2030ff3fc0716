/**
 * A capped id list in the keyed store: ids kept oldest first, the newest `limit` of them; filing an
 * id again moves it to the newest; an id the caller will not let go stays however old it is, and
 * the id just filed never goes; an unreadable slot reads as empty.
 */
import { describe, expect, it } from 'vitest'
import { createCappedList } from '../../src/storage/capped-list'
import { createKeyedStore, storageKey } from '../../src/storage/keyed-store'
import { memoryBackend } from './memory-backend'

describe('createCappedList', () => {
  it('keeps the newest ids, oldest first, in one slot of the store', () => {
    const backend = memoryBackend()
    const list = createCappedList(createKeyedStore(backend), 'ids', { limit: 3 })
    expect(list.read()).toEqual([])
    for (const id of ['a', 'b', 'c', 'd', 'e']) list.add(id)
    expect(list.read()).toEqual(['c', 'd', 'e'])
    expect(JSON.parse(backend.items.get(storageKey('ids', 'v1'))!)).toEqual(['c', 'd', 'e'])
    // Another handle on the same store reads the same list.
    expect(createCappedList(createKeyedStore(backend), 'ids', { limit: 3 }).read()).toEqual(['c', 'd', 'e'])
  })

  it('moves an id filed again to the newest, so it goes last', () => {
    const list = createCappedList(createKeyedStore(undefined), 'ids', { limit: 3, key: 'k' })
    for (const id of ['a', 'b', 'c', 'a', 'd']) list.add(id)
    expect(list.read()).toEqual(['c', 'a', 'd'])
  })

  it('asks before letting an id go: one still wanted stays, and the next oldest goes instead', () => {
    const wanted = new Set(['a'])
    const asked: string[] = []
    const list = createCappedList(createKeyedStore(undefined), 'ids', {
      limit: 2,
      letGo: (id) => {
        asked.push(id)
        return !wanted.has(id)
      },
    })
    for (const id of ['a', 'b', 'c']) list.add(id)
    expect(list.read()).toEqual(['a', 'c'])
    expect(asked).toEqual(['a', 'b'])
    // Nothing may go: the list runs over its limit rather than drop what is still wanted, or the new id.
    wanted.add('c')
    list.add('d')
    expect(list.read()).toEqual(['a', 'c', 'd'])
  })

  it('reads an unreadable slot as empty and starts it again', () => {
    const backend = memoryBackend()
    backend.items.set(storageKey('ids', 'v1'), '{"not":"a list"}')
    const list = createCappedList(createKeyedStore(backend), 'ids', { limit: 2 })
    expect(list.read()).toEqual([])
    list.add('a')
    expect(list.read()).toEqual(['a'])
  })
})
