/**
 * The composer's text for each session, kept in sessionStorage so a reload loses nothing typed.
 * It is a small external store rather than component state: the send logic (use-send.ts) also
 * reads and clears it, so that a text is never both in the box and on its way to the daemon.
 */
import { useCallback, useSyncExternalStore } from 'react'

const KEY_PREFIX = 'rebound.draft.'

/** Drafts whose storage write failed (storage full or blocked): they live on in memory for this page. */
const memory = new Map<string, string>()
const listeners = new Set<() => void>()

function storage(): Storage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage
  } catch {
    return undefined
  }
}

/** The draft of a session, '' when there is none. */
export function readDraft(sessionId: string): string {
  const kept = memory.get(sessionId)
  if (kept !== undefined) return kept
  try {
    return storage()?.getItem(KEY_PREFIX + sessionId) ?? ''
  } catch {
    return ''
  }
}

/** Replaces the draft of a session ('' removes it) and tells every composer showing it. */
export function writeDraft(sessionId: string, value: string): void {
  try {
    const store = storage()
    if (!store) throw new Error('no sessionStorage')
    if (value) store.setItem(KEY_PREFIX + sessionId, value)
    else store.removeItem(KEY_PREFIX + sessionId)
    memory.delete(sessionId)
  } catch {
    if (value) memory.set(sessionId, value)
    else memory.delete(sessionId)
  }
  for (const listener of [...listeners]) listener()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** The composer's text for a session and its setter; switching sessions shows that session's own draft. */
export function useDraft(sessionId: string): [string, (value: string) => void] {
  const value = useSyncExternalStore(
    subscribe,
    () => readDraft(sessionId),
    () => '',
  )
  const set = useCallback((next: string) => writeDraft(sessionId, next), [sessionId])
  return [value, set]
}
