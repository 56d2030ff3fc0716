/**
 * The outbox: what the operator sent and the daemon has not yet confirmed. Each entry keeps its
 * text and its `client_message_id` in sessionStorage, so a reload in the middle of a send neither
 * loses the text nor sends it twice (the same id is sent again and the daemon answers 409).
 */

export type OutboxState = 'sending' | 'not_sent'

export type OutboxEntry = {
  clientMessageId: string
  sessionId: string
  content: string
  state: OutboxState
  createdAt: number
  /** Set once the daemon accepted it, until the message shows up in the transcript. */
  acceptedMessageId?: string
}

export type OutboxStorage = Pick<Storage, 'getItem' | 'setItem'>

const KEY = 'rebound.outbox.v1'

/** A small external store (for `useSyncExternalStore`) over one storage key. */
export function createOutbox(storage: OutboxStorage | undefined) {
  let entries: OutboxEntry[] = load(storage)
  const listeners = new Set<() => void>()

  function commit(next: OutboxEntry[]) {
    entries = next
    try {
      storage?.setItem(KEY, JSON.stringify(entries))
    } catch {
      // Storage full or blocked: the entry still lives in memory for this tab.
    }
    for (const listener of listeners) listener()
  }

  return {
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
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

function load(storage: OutboxStorage | undefined): OutboxEntry[] {
  try {
    const raw = storage?.getItem(KEY)
    if (!raw) return []
    const parsed: unknown = JSON.parse(raw)
    return Array.isArray(parsed) ? parsed.filter(isEntry) : []
  } catch {
    return []
  }
}

function isEntry(value: unknown): value is OutboxEntry {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    typeof v.clientMessageId === 'string' &&
    typeof v.sessionId === 'string' &&
    typeof v.content === 'string' &&
    (v.state === 'sending' || v.state === 'not_sent') &&
    typeof v.createdAt === 'number'
  )
}
