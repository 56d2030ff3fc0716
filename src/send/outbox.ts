/**
 * The outbox: what the operator sent and the daemon has not yet confirmed. Each entry keeps its
 * text and its `client_message_id` in the keyed store, so a reload in the middle of a send neither
 * loses the text nor sends it twice (the same id is sent again and the daemon answers 409).
 */
import { z } from 'zod/mini'
import type { KeyedStore } from '../storage/keyed-store'

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

/** One unreadable entry must not cost the others: each is checked on its own. */
const entriesSchema = z.pipe(
  z.array(z.unknown()),
  z.transform((items: unknown[]) =>
    items.flatMap((item) => {
      const parsed = entrySchema.safeParse(item)
      return parsed.success ? [parsed.data] : []
    }),
  ),
)

export const OUTBOX_NAMESPACE = 'outbox'

/** A small external store (for `useSyncExternalStore`) over one slot of the keyed store. */
export function createOutbox(store: KeyedStore) {
  const slot = store.slot(OUTBOX_NAMESPACE, 'v1', entriesSchema)
  let entries: OutboxEntry[] = slot.read() ?? []
  const listeners = new Set<() => void>()

  function commit(next: OutboxEntry[]) {
    entries = next
    slot.write(entries)
    for (const listener of [...listeners]) listener()
  }

  return {
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    /** The current entries; a new array after each change, so it can be a snapshot. */
    entries: () => entries,
    get: (clientMessageId: string) => entries.find((e) => e.clientMessageId === clientMessageId),
    put(entry: OutboxEntry) {
      commit([...entries.filter((e) => e.clientMessageId !== entry.clientMessageId), entry])
    },
    update(clientMessageId: string, patch: Partial<OutboxEntry>) {
      commit(entries.map((e) => (e.clientMessageId === clientMessageId ? { ...e, ...patch } : e)))
    },
    remove(clientMessageId: string) {
      if (entries.some((e) => e.clientMessageId === clientMessageId)) commit(entries.filter((e) => e.clientMessageId !== clientMessageId))
    },
  }
}

export type Outbox = ReturnType<typeof createOutbox>
