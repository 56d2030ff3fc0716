/**
 * Word between the tabs of one browser on this origin: a keyed-store write another tab must
 * re-read, a session whose history changed. `BroadcastChannel` where there is one, else the
 * `storage` event (a key written and removed at once reaches every other tab); injectable, so
 * node tests put two "tabs" on one fake hub.
 */

/** What the tabs tell each other. Only ids: the values themselves live in the keyed store. */
export type TabMessage =
  /** A key of the keyed store was written: re-read it. */
  | { kind: 'store'; namespace: string; key: string }
  /** A session's history changed on the daemon (a send, a regenerate, a stop): read it again. */
  | { kind: 'history'; sessionId: string }

export type TabChannel = {
  /** Tells every other tab; never this one. */
  post(message: TabMessage): void
  /** Hears the other tabs. Returns the unsubscribe. */
  subscribe(listener: (message: TabMessage) => void): () => void
  close(): void
}

const CHANNEL_NAME = 'rebound'
/** The key the storage-event fallback writes and removes at once. */
const STORAGE_RELAY_KEY = 'rebound.__tabs'

function isTabMessage(value: unknown): value is TabMessage {
  if (typeof value !== 'object' || value === null) return false
  const m = value as Record<string, unknown>
  if (m.kind === 'store') return typeof m.namespace === 'string' && typeof m.key === 'string'
  if (m.kind === 'history') return typeof m.sessionId === 'string'
  return false
}

/** A channel with nobody on the other side (no DOM, or nothing to talk over). */
export const noTabs: TabChannel = { post() {}, subscribe: () => () => {}, close() {} }

/** The browser's channel between tabs: BroadcastChannel, or storage events where it is missing. */
export function browserTabChannel(name = CHANNEL_NAME): TabChannel {
  const listeners = new Set<(message: TabMessage) => void>()
  const hear = (data: unknown) => {
    if (!isTabMessage(data)) return
    for (const listener of [...listeners]) listener(data)
  }
  // Outside a page (node) there are no other tabs; node's own BroadcastChannel would join every
  // runtime of the process into one "browser".
  if (typeof window === 'undefined') return noTabs
  if (typeof BroadcastChannel === 'function') {
    const channel = new BroadcastChannel(name)
    channel.onmessage = (event: MessageEvent) => hear(event.data)
    return {
      post: (message) => {
        try {
          channel.postMessage(message)
        } catch {
          // A closed channel (the page is going away): nobody left to tell.
        }
      },
      subscribe(listener) {
        listeners.add(listener)
        return () => void listeners.delete(listener)
      },
      close: () => channel.close(),
    }
  }
  if (typeof localStorage === 'undefined') return noTabs
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_RELAY_KEY || !event.newValue) return
    try {
      hear((JSON.parse(event.newValue) as { message?: unknown }).message)
    } catch {
      // not ours
    }
  }
  window.addEventListener('storage', onStorage)
  let nonce = 0
  return {
    post(message) {
      try {
        // The nonce makes every write a change, so two equal messages in a row both arrive.
        localStorage.setItem(STORAGE_RELAY_KEY, JSON.stringify({ message, nonce: `${Date.now()}.${++nonce}.${Math.random()}` }))
        localStorage.removeItem(STORAGE_RELAY_KEY)
      } catch {
        // Storage blocked: this tab is on its own.
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    close: () => window.removeEventListener('storage', onStorage),
  }
}

/**
 * Tabs in one process, for tests: every channel from one hub hears the others' posts, never its
 * own, like BroadcastChannel. Delivery is asynchronous (a microtask) unless `sync` is set, and
 * `hold()` queues messages until `release()`, so a test can interleave them as it likes.
 */
export function createTabHub({ sync = false }: { sync?: boolean } = {}) {
  const members = new Set<{ listeners: Set<(message: TabMessage) => void> }>()
  let held: (() => void)[] | undefined
  return {
    channel(): TabChannel {
      const member = { listeners: new Set<(message: TabMessage) => void>() }
      members.add(member)
      return {
        post(message) {
          for (const other of members) {
            if (other === member) continue
            const deliver = () => {
              for (const listener of [...other.listeners]) listener(structuredClone(message))
            }
            if (held) held.push(deliver)
            else if (sync) deliver()
            else queueMicrotask(deliver)
          }
        },
        subscribe(listener) {
          member.listeners.add(listener)
          return () => void member.listeners.delete(listener)
        },
        close: () => void members.delete(member),
      }
    },
    hold() {
      held ??= []
    },
    release() {
      const queue = held ?? []
      held = undefined
      for (const deliver of queue) deliver()
    },
  }
}

export type TabHub = ReturnType<typeof createTabHub>
