/**
 * The thread of a session, connected while the calling view is mounted, and selectors on its
 * snapshot: a component re-renders when what it selects changes, not on every change of the
 * session.
 */
import { useEffect, useSyncExternalStore } from 'react'
import type { Thread, ThreadSnapshot } from '../thread/thread'
import { useThreads } from './runtime'

export function useThread(sessionId: string): Thread {
  const thread = useThreads().get(sessionId)
  useEffect(() => thread.connect(), [thread])
  return thread
}

/**
 * One value of the thread's snapshot. `select` must return a value the snapshot already holds
 * (a field, not a new object), or every read would look like a change.
 */
export function useThreadState<T>(thread: Thread, select: (snapshot: ThreadSnapshot) => T): T {
  const get = () => select(thread.getState())
  return useSyncExternalStore(thread.subscribe, get, get)
}
