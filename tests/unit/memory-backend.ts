import type { StorageBackend } from '../../src/storage/keyed-store'

/** A storage backend in a Map (one "browser": give two stores the same one to play two tabs); `items` to look inside. */
export function memoryBackend(): StorageBackend & { items: Map<string, string> } {
  const items = new Map<string, string>()
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  }
}
