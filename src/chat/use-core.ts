/**
 * Small hooks over the React-free core: each subscribes to the one thing it shows, so a delta
 * re-renders the reply that grew and a countdown tick re-renders one line.
 */
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { LiveRun } from '../live/live-runs'
import type { RetrySnapshot } from '../retry/machine'
import type { SessionRetries } from '../retry/scheduler'
import type { DraftBinding } from './composer'
import { useChatRuntime } from './runtime'
import { isApple, keyPressOf, shortcutFor, type ShortcutId } from './shortcuts'

/** The live record of a run while this page follows it; undefined otherwise. */
export function useLiveRun(runId: string | undefined): LiveRun | undefined {
  const { live } = useChatRuntime()
  const subscribe = useCallback((listener: () => void) => (runId ? live.subscribe(runId, listener) : () => {}), [live, runId])
  const get = () => live.get(runId)
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

/**
 * Re-renders the calling component when `nextTickIn` says the time it shows changes (null: no
 * ticking). The component reads the clock as it renders, so its first frame is already right;
 * living in the component that shows the time, a tick re-renders that line alone.
 */
export function useTicker(nextTickIn: (now: number) => number | null): void {
  const { clock } = useChatRuntime()
  const [, setTick] = useState(0)
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const schedule = () => {
      const delay = nextTickIn(clock.now())
      if (delay === null) return
      timer = setTimeout(() => {
        setTick((n) => n + 1)
        schedule()
      }, delay)
    }
    schedule()
    return () => clearTimeout(timer)
  }, [clock, nextTickIn])
}

/**
 * Listens for the keyboard shortcuts on the whole page; `handle` returns true for one it acted
 * on, and the browser's default for that key is then prevented.
 */
export function useShortcuts(handle: (id: ShortcutId) => boolean): void {
  const latest = useRef(handle)
  useEffect(() => {
    latest.current = handle
  }, [handle])
  useEffect(() => {
    const apple = isApple(navigator.platform || navigator.userAgent)
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return
      const id = shortcutFor(keyPressOf(event), apple)
      // A modal dialog has the page to itself: nothing behind it acts on a key. Asked only of a
      // shortcut: a typed letter does not search the whole page.
      if (!id || document.querySelector('dialog[open], [aria-modal="true"]')) return
      if (latest.current(id)) event.preventDefault()
    }
    document.addEventListener('keydown', onKeyDown)
    return () => document.removeEventListener('keydown', onKeyDown)
  }, [])
}
