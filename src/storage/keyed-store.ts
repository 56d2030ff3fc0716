/**
 * One small keyed store over the browser's storage, shared by everything the client keeps across
 * a reload: the outbox, the drafts, the live runs' reattach points and the retry scheduler's
 * memory. Values are JSON, read back through a zod schema, so a stale or hand-edited entry reads
 * as absent instead of breaking the page. When the browser's storage throws (blocked, full,
 * private mode) the value lives on in memory for as long as the page does.
 */
import type { z } from 'zod/mini'
import { createListeners } from './listeners'
import { noTabs, type TabChannel } from './tab-channel'

/** The part of the Web Storage API the store uses. */
export type StorageBackend = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

/** Every key the client writes starts with this, so nothing collides with other apps on the origin. */
export const KEY_PREFIX = 'rebound.'

/** One value in the store: a namespace, a key within it, and the schema its JSON must match. */
export type Slot<T> = {
  /** The value, or undefined when it is absent or no longer matches the schema. */
  read(): T | undefined
  /** Replaces the value; `undefined` removes it. */
  write(value: T | undefined): void
}

export type KeyedStore = {
  /** A handle on `namespace`/`key`, read back through `schema`. */
  slot<S extends z.ZodMiniType>(namespace: string, key: string, schema: S): Slot<z.infer<S>>
  /**
   * Calls `listener` after any write to `namespace` through this store, or through another tab's
   * store on the same backend (told over the tab channel). Returns the unsubscribe.
   */
  subscribe(namespace: string, listener: (key: string) => void): () => void
}

/** Calls `listener` when another tab changed a key of this store in the shared backend. */
export type StorageWatcher = (listener: (namespace: string, key: string) => void) => () => void

export type KeyedStoreOptions = {
  /**
   * How the other tabs' writes are heard. `watcher` (the browser's `storage` event, which fires
   * once the new value is readable in this tab) is preferred; without it, writes are told over
   * `channel` (tests, where the backend is shared at once).
   */
  channel?: TabChannel
  watcher?: StorageWatcher
}

/** The full storage key of a slot: `rebound.<namespace>.<key>`. */
export function storageKey(namespace: string, key: string): string {
  return `${KEY_PREFIX}${namespace}.${key}`
}

/**
 * Builds the store over `backend`; with no backend (no DOM, storage disabled) it is memory only.
 * A key whose write failed is kept in memory and wins over the backend until a write succeeds.
 */
export function createKeyedStore(backend: StorageBackend | undefined, { channel = noTabs, watcher }: KeyedStoreOptions = {}): KeyedStore {
  const memory = new Map<string, string | null>()
  const listeners = createListeners<string, [key: string]>()
  const notify = (namespace: string, key: string) => listeners.notify(namespace, key)
  // Another tab wrote: the value is in the shared backend already; whoever shows it reads again.
  // A message on a channel can overtake the write it announces between browser processes, so
  // the storage event is the cue when there is one.
  const told = watcher ? noTabs : channel
  if (watcher) watcher(notify)
  else
    channel.subscribe((message) => {
      if (message.kind === 'store') notify(message.namespace, message.key)
    })

  const rawRead = (key: string): string | null => {
    if (memory.has(key)) return memory.get(key) ?? null
    try {
      return backend?.getItem(key) ?? null
    } catch {
      return null
    }
  }

  const rawWrite = (key: string, text: string | null) => {
    try {
      if (!backend) throw new Error('no storage')
      if (text === null) backend.removeItem(key)
      else backend.setItem(key, text)
      memory.delete(key)
    } catch {
      // Storage full or blocked: the value still holds for this page.
      memory.set(key, text)
    }
  }

  return {
    slot(namespace, key, schema) {
      const full = storageKey(namespace, key)
      return {
        read() {
          const text = rawRead(full)
          if (text === null) return undefined
          try {
            const parsed = schema.safeParse(JSON.parse(text))
            return parsed.success ? parsed.data : undefined
          } catch {
            return undefined
          }
        },
        write(value) {
          rawWrite(full, value === undefined ? null : JSON.stringify(value))
          notify(namespace, key)
          told.post({ kind: 'store', namespace, key })
        },
      }
    },
    subscribe: (namespace, listener) => listeners.subscribe(namespace, listener),
  }
}

/**
 * The browser's `storage` event for this store's keys (`rebound.<namespace>.<key>`): it reaches
 * every other tab of the origin after the value is written. Undefined outside a page.
 */
export function browserStorageWatcher(): StorageWatcher | undefined {
  if (typeof window === 'undefined') return undefined
  return (listener) => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === null || !event.key.startsWith(KEY_PREFIX)) return
      const rest = event.key.slice(KEY_PREFIX.length)
      const dot = rest.indexOf('.')
      if (dot <= 0) return
      listener(rest.slice(0, dot), rest.slice(dot + 1))
    }
    window.addEventListener('storage', onStorage)
    return () => window.removeEventListener('storage', onStorage)
  }
}

/**
 * The origin's localStorage, shared by every tab (drafts and unsent messages survive closing a
 * tab), or undefined where there is none or it cannot be touched.
 */
export function browserLocalStorage(): StorageBackend | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage
  } catch {
    return undefined
  }
}
