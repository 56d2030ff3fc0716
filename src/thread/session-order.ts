/**
 * Which session comes next in the list (newest first): for the previous/next shortcuts, and for
 * the session that takes the place of one deleted while open.
 */
import type { Session } from '../wire/types'

/** The session after `id` (`next`) or before it; from nowhere, `previous` is the last one. */
export function neighbourOf(list: readonly Session[], id: string | undefined, direction: 'next' | 'previous'): Session | undefined {
  const index = list.findIndex((s) => s.id === id)
  if (direction === 'next') return list[index + 1]
  return list[index < 0 ? list.length - 1 : index - 1]
}

/** The session that takes a deleted one's place: the next, or the one before it at the end of the list. */
export function successorOf(list: readonly Session[], id: string): Session | undefined {
  const index = list.findIndex((s) => s.id === id)
  if (index < 0) return undefined
  return list[index + 1] ?? list[index - 1]
}
