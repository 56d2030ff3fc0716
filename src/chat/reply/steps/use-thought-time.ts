import { useEffect, useRef, useSyncExternalStore } from 'react'
import { setNewest } from '../../../storage/bounded'

/**
 * How long reasoning this page watched being written took. The wire carries no times for
 * reasoning, so the client measures what it saw: from when the step first showed live to when
 * the next step started. Kept by key (message id and part index) for the page's lifetime, so a
 * reply scrolled out of the windowed transcript and back still says it.
 */
const startedAt = new Map<string, number>()
const measured = new Map<string, number>()
const listeners = new Set<() => void>()
/** Enough for every reasoning step of a long session; the oldest are dropped first. */
const LIMIT = 500

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

function remember(map: Map<string, number>, key: string, value: number): void {
  setNewest(map, key, value, LIMIT)
}

/** The measured duration of the reasoning at `key` in ms, once it ended in this mount's view; undefined otherwise. */
export function useThoughtTime(key: string, live: boolean): number | undefined {
  const ms = useSyncExternalStore(subscribe, () => measured.get(key))
  // Only an end this mount saw counts: reasoning that ended while its reply was scrolled away
  // would otherwise be timed to when it came back into view.
  const sawLive = useRef(false)
  useEffect(() => {
    if (live) {
      sawLive.current = true
      if (!startedAt.has(key)) remember(startedAt, key, Date.now())
      return
    }
    const start = startedAt.get(key)
    if (!sawLive.current || start === undefined || measured.has(key)) return
    startedAt.delete(key)
    remember(measured, key, Date.now() - start)
    for (const listener of listeners) listener()
  }, [key, live])
  return ms
}
