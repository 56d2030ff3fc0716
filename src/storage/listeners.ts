/**
 * Listeners by key (a session, a namespace): subscribe to one key, tell one key's listeners. The
 * listeners told are those subscribed when `notify` starts: one that unsubscribes meanwhile is
 * still told this once, and one that subscribes meanwhile waits for the next.
 */
export type Listeners<K, A extends unknown[]> = {
  /** Adds `listener` to `key`'s listeners; returns the unsubscribe. */
  subscribe(key: K, listener: (...args: A) => void): () => void
  /** Calls every listener of `key` with `args`. */
  notify(key: K, ...args: A): void
  /** How many keys have a listener now. */
  readonly size: number
}

export function createListeners<K, A extends unknown[] = []>(): Listeners<K, A> {
  const byKey = new Map<K, Set<(...args: A) => void>>()
  return {
    subscribe(key, listener) {
      let set = byKey.get(key)
      if (!set) byKey.set(key, (set = new Set()))
      const own = set
      own.add(listener)
      return () => {
        own.delete(listener)
        // A key nobody listens to is let go; a later subscriber has a set of its own by then.
        if (own.size === 0 && byKey.get(key) === own) byKey.delete(key)
      }
    },
    notify(key, ...args) {
      for (const listener of [...(byKey.get(key) ?? [])]) listener(...args)
    },
    get size() {
      return byKey.size
    },
  }
}
