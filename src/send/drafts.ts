/**
 * The composer's text for each session, in the keyed store so a reload loses nothing typed. It is
 * a store rather than component state: the send logic (deliver.ts) also reads and clears it, so
 * that a text is never both in the box and on its way to the daemon.
 */
import { z } from 'zod/mini'
import type { KeyedStore } from '../storage/keyed-store'

export const DRAFT_NAMESPACE = 'draft'

export function createDrafts(store: KeyedStore) {
  const slot = (sessionId: string) => store.slot(DRAFT_NAMESPACE, sessionId, z.string())
  return {
    /** The draft of a session, '' when there is none. */
    read: (sessionId: string): string => slot(sessionId).read() ?? '',
    /** Replaces the draft of a session ('' removes it) and tells every composer showing it. */
    write: (sessionId: string, value: string): void => slot(sessionId).write(value === '' ? undefined : value),
    subscribe: (listener: () => void) => store.subscribe(DRAFT_NAMESPACE, listener),
  }
}

export type Drafts = ReturnType<typeof createDrafts>
