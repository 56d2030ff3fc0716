/**
 * The composer's text for each session, in the keyed store so a reload loses nothing typed. It is
 * a store rather than component state: the send logic (deliver.ts) also reads and clears it, so
 * that a text is never both in the box and on its way to the daemon.
 *
 * A keystroke (`type`) changes the draft at once for this page and is written to storage just
 * after the frame that shows it, the keys of that frame in one write: storage and the other tabs
 * are not on the path from a key to its paint. A page going away (hidden, closed, reloaded)
 * writes what it holds first. `write` (a send clearing the box, a quote added) writes at once.
 */
import { z } from 'zod/mini'
import { frameOrTimeout } from '../live/pacing'
import type { KeyedStore, Slot } from '../storage/keyed-store'

export const DRAFT_NAMESPACE = 'draft'

/** Runs `write` soon, off the current task. */
type WriteSoon = (write: () => void) => void

/**
 * Just after the next frame: the frame (or 50 ms, for a tab that gets none), then a task of its
 * own once that frame is painted.
 */
const afterNextFrame: WriteSoon = (write) => void frameOrTimeout(() => setTimeout(write, 0))

/** Calls `write` when the page is hidden or goes away, for as long as the page lives. No window, no calls. */
type PageLeave = (write: () => void) => void

const browserPageLeave: PageLeave = (write) => {
  if (typeof window === 'undefined' || typeof document === 'undefined') return
  window.addEventListener('pagehide', write)
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') write()
  })
}

export type DraftsOptions = { writeSoon?: WriteSoon; pageLeave?: PageLeave }

export function createDrafts(store: KeyedStore, { writeSoon = afterNextFrame, pageLeave = browserPageLeave }: DraftsOptions = {}) {
  const slots = new Map<string, Slot<string>>()
  const slot = (sessionId: string) => {
    let found = slots.get(sessionId)
    if (!found) slots.set(sessionId, (found = store.slot(DRAFT_NAMESPACE, sessionId, z.string())))
    return found
  }
  /** Typed on this page and not in storage yet, by session. */
  const typed = new Map<string, string>()
  const listeners = new Set<() => void>()
  let due = false

  const save = (sessionId: string, value: string) => slot(sessionId).write(value === '' ? undefined : value)
  /** Writes every typed draft (the store tells this page's composers, and the other tabs). */
  const flush = () => {
    due = false
    for (const [sessionId, value] of typed) {
      typed.delete(sessionId)
      save(sessionId, value)
    }
  }
  pageLeave(flush)

  return {
    /** The draft of a session, '' when there is none. */
    read: (sessionId: string): string => typed.get(sessionId) ?? slot(sessionId).read() ?? '',
    /** Replaces the draft of a session ('' removes it) in storage now, and tells every composer showing it. */
    write: (sessionId: string, value: string): void => {
      typed.delete(sessionId)
      save(sessionId, value)
    },
    /** A keystroke: the draft changes now for this page, and reaches storage after the frame (see the module comment). */
    type: (sessionId: string, value: string): void => {
      typed.set(sessionId, value)
      for (const listener of [...listeners]) listener()
      if (due) return
      due = true
      writeSoon(flush)
    },
    subscribe: (listener: () => void) => {
      listeners.add(listener)
      const unsubscribe = store.subscribe(DRAFT_NAMESPACE, listener)
      return () => {
        listeners.delete(listener)
        unsubscribe()
      }
    },
  }
}

export type Drafts = ReturnType<typeof createDrafts>
