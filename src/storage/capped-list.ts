/**
 * A list of ids in one slot of the keyed store, oldest first, kept to the newest `limit`: what the
 * client remembers of a stream of ids that never ends (the failures an operator cancelled, the
 * board's keys) without storage growing for ever.
 */
import { z } from 'zod/mini'
import type { KeyedStore } from './keyed-store'

export type CappedList = {
  /** The ids, oldest first; none when the slot is absent or unreadable. */
  read(): string[]
  /**
   * Files `id` as the newest (moving it there when it is already in), then lets the oldest go
   * while the list is over its limit: each one `letGo` agrees to, never `id` itself.
   */
  add(id: string): void
}

export type CappedListOptions = {
  limit: number
  /** The slot's key within `namespace`. */
  key?: string
  /**
   * Asked, oldest first, for each id the list is over its limit by; true when the id may go (and
   * whatever it names is let go too). Without it the oldest always go.
   */
  letGo?: (id: string) => boolean
}

export function createCappedList(store: KeyedStore, namespace: string, { limit, key = 'v1', letGo = () => true }: CappedListOptions): CappedList {
  const slot = store.slot(namespace, key, z.array(z.string()))
  return {
    read: () => slot.read() ?? [],
    add(id) {
      const ids = (slot.read() ?? []).filter((k) => k !== id)
      ids.push(id)
      let excess = ids.length - limit
      const kept: string[] = []
      for (const k of ids) {
        if (excess > 0 && k !== id && letGo(k)) excess--
        else kept.push(k)
      }
      slot.write(kept)
    },
  }
}
