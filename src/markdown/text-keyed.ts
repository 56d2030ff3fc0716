/**
 * A map keyed by Markdown text and bounded by the characters of its keys: past the bound, the
 * entries set longest ago go first. Serves the rendered blocks kept by reply-markdown.tsx (where
 * a hit moves its entry to the newest end) and the worker's trees waiting on the page
 * (worker-trees.ts, where a hit takes the entry out).
 */
export type TextKeyed<T> = {
  has(key: string): boolean
  /** The value, moved to the newest end. */
  touch(key: string): T | undefined
  /** The value, taken out. */
  take(key: string): T | undefined
  /** Sets `key` as the newest, then lets the oldest go until the keys fit the bound. */
  set(key: string, value: T): void
}

export function createTextKeyed<T>(maxCharacters: number): TextKeyed<T> {
  const entries = new Map<string, T>()
  let characters = 0
  const remove = (key: string) => {
    entries.delete(key)
    characters -= key.length
  }
  return {
    has: (key) => entries.has(key),
    touch(key) {
      const value = entries.get(key)
      if (value === undefined) return undefined
      entries.delete(key)
      entries.set(key, value)
      return value
    },
    take(key) {
      const value = entries.get(key)
      if (value !== undefined) remove(key)
      return value
    },
    set(key, value) {
      if (entries.has(key)) remove(key)
      entries.set(key, value)
      characters += key.length
      for (const [oldest] of entries) {
        if (characters <= maxCharacters) break
        remove(oldest)
      }
    },
  }
}
