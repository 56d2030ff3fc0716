/**
 * The outbox: what the operator sent and the daemon has not yet confirmed. Each entry keeps its
 * text and its `client_message_id` in the keyed store, so a reload in the middle of a send neither
 * loses the text nor sends it twice (the same id is sent again and the daemon answers 409).
 */
import { z } from 'zod/mini'
import type { KeyedStore } from '../storage/keyed-store'
import { readableList } from '../storage/readable-list'

export type OutboxState = 'sending' | 'not_sent'

const entrySchema = z.object({
  clientMessageId: z.string(),
  sessionId: z.string(),
  content: z.string(),
  state: z.enum(['sending', 'not_sent']),
  createdAt: z.number(),
  /** Set once the daemon accepted it, until the message shows up in the transcript. */
  acceptedMessageId: z.optional(z.string()),
})

export type OutboxEntry = z.infer<typeof entrySchema>

const entriesSchema = readableList(entrySchema)

const OUTBOX_NAMESPACE = 'outbox'

/**
 * A small external store (for `useSyncExternalStore`) over one slot of the keyed store. The slot
 * is shared by the tabs (localStorage): a change another tab made is read back when the store
 * says so, and every change here starts from the stored list, not this tab's copy, so two tabs
 * filing entries one after the other lose neither.
 */
export function createOutbox(store: KeyedStore) {
  const slot = store.slot(OUTBOX_NAMESPACE, 'v1', entriesSchema)
  let entries: OutboxEntry[] = slot.read() ?? []
  let text = JSON.stringify(entries)
  const listeners = new Set<() => void>()

  /** Takes the stored list when it differs from this tab's copy; true when it did. */
  function reread(): boolean {
    const stored = slot.read() ?? []
    const storedText = JSON.stringify(stored)
    if (storedText === text) return false
    entries = stored
    text = storedText
    return true
  }

  const tell = () => {
    for (const listener of [...listeners]) listener()
  }

  // Another tab filed, sent or took back an entry (or this one did, through another handle).
  store.subscribe(OUTBOX_NAMESPACE, () => {
    if (reread()) tell()
  })

  function commit(change: (current: OutboxEntry[]) => OutboxEntry[]) {
    reread()
    const next = change(entries)
    entries = next
    text = JSON.stringify(next)
    slot.write(next)
    tell()
  }

  return {
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    /** The current entries; a new array after each change, so it can be a snapshot. */
    entries: () => entries,
    get: (clientMessageId: string) => {
      if (reread()) tell()
      return entries.find((e) => e.clientMessageId === clientMessageId)
    },
    put(entry: OutboxEntry) {
      commit((current) => [...current.filter((e) => e.clientMessageId !== entry.clientMessageId), entry])
    },
    /** Patches an entry; one another tab already removed stays removed. */
    update(clientMessageId: string, patch: Partial<OutboxEntry>) {
      commit((current) => current.map((e) => (e.clientMessageId === clientMessageId ? { ...e, ...patch } : e)))
    },
    remove(clientMessageId: string) {
      if (reread()) tell()
      if (entries.some((e) => e.clientMessageId === clientMessageId)) commit((current) => current.filter((e) => e.clientMessageId !== clientMessageId))
    },
    /** Reads the stored list again (another tab may have changed it); true when it changed. */
    refresh(): boolean {
      const changed = reread()
      if (changed) tell()
      return changed
    },
  }
}

export type Outbox = ReturnType<typeof createOutbox>
