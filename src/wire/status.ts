/**
 * The status predicates every layer shares, so "is this reply still going" has one answer for
 * the live-run store, the follower, the thread and the view.
 */
import type { MessageStatus } from './types'

/** A reply (or its run) is queued or streaming: Stop applies, and its end is still to come. */
export function isActive(status: MessageStatus | undefined): boolean {
  return status === 'queued' || status === 'streaming'
}
