/**
 * Small hooks over the React-free core: each subscribes to the one thing it shows, so a delta
 * re-renders the reply that grew and a countdown tick re-renders one line.
 */
import { useCallback, useMemo, useSyncExternalStore } from 'react'
import type { LiveRun } from '../live/live-runs'
import type { RetrySnapshot } from '../retry/machine'
import type { SessionRetries } from '../retry/scheduler'
import type { DraftBinding } from './composer/composer'
import { useChatRuntime } from './runtime'

const wholeRun = (run: LiveRun | undefined) => run

/** The live record of a run while this page follows it; undefined otherwise. */
export function useLiveRun(runId: string | undefined): LiveRun | undefined {
  return useLiveRunSelect(runId, wholeRun)
}

/**
 * What `select` reads of a run's live record: re-renders when that changes, not at every flush of
 * the run's text (`select` returns a part of the record, kept the same object until it changes).
 */
export function useLiveRunSelect<T>(runId: string | undefined, select: (run: LiveRun | undefined) => T): T {
  const { live } = useChatRuntime()
  const subscribe = useCallback((listener: () => void) => (runId ? live.subscribe(runId, listener) : () => {}), [live, runId])
  const get = () => select(live.get(runId))
  return useSyncExternalStore(subscribe, get, get)
}

/** Every tier 2 scheduler of a session, by anchor. */
export function useSessionRetries(sessionId: string): SessionRetries {
  const { retry } = useChatRuntime()
  const subscribe = useCallback((listener: () => void) => retry.subscribe(sessionId, listener), [retry, sessionId])
  const get = () => retry.snapshot(sessionId)
  return useSyncExternalStore(subscribe, get, get)
}

/** One anchor's scheduler snapshot: re-renders only when that machine changes. */
export function useRetryFor(sessionId: string, anchorId: string | undefined): RetrySnapshot | undefined {
  const { retry } = useChatRuntime()
  const subscribe = useCallback((listener: () => void) => retry.subscribe(sessionId, listener), [retry, sessionId])
  const get = () => (anchorId ? retry.snapshot(sessionId).get(anchorId) : undefined)
  return useSyncExternalStore(subscribe, get, get)
}

/**
 * The composer's binding to a session's draft: switching sessions shows that session's own draft.
 * It does not re-render the caller as the text changes (the box subscribes to what it needs).
 */
export function useDraft(sessionId: string): DraftBinding & { write(value: string): void } {
  const { drafts } = useChatRuntime()
  return useMemo(
    () => ({
      read: () => drafts.read(sessionId),
      type: (value: string) => drafts.type(sessionId, value),
      write: (value: string) => drafts.write(sessionId, value),
      subscribe: drafts.subscribe,
    }),
    [drafts, sessionId],
  )
}
