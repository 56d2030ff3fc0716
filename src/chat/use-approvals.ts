/**
 * The tools of a session that wait for approval, for the views that need them all (the live
 * region): re-read when the thread's snapshot changes or one of its running replies streams, and
 * the same array while the same tools wait, so a delta that changes no tool re-renders nothing.
 */
import { useCallback, useSyncExternalStore } from 'react'
import type { AwaitingTool } from '../thread/approvals'
import type { Thread } from '../thread/thread'
import { useChatRuntime } from './runtime'
import { useThreadState } from './use-thread'

export function useAwaitingApprovals(thread: Thread): readonly AwaitingTool[] {
  const { live } = useChatRuntime()
  const activeRuns = useThreadState(thread, (snapshot) => snapshot.activeRuns)
  const subscribe = useCallback(
    (listener: () => void) => {
      const stops = [thread.subscribe(listener), ...activeRuns.map((runId) => live.subscribe(runId, listener))]
      return () => {
        for (const stop of stops) stop()
      }
    },
    [thread, live, activeRuns],
  )
  return useSyncExternalStore(subscribe, thread.awaitingApprovals, thread.awaitingApprovals)
}
