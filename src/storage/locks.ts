/**
 * Locks across the tabs of one browser (Web Locks, `navigator.locks`), behind a small interface
 * so node tests share one in-memory manager between two "tabs". A lock held by a tab that closes
 * is released by the browser, so a crashed tab never blocks the others.
 */

type LockOptions = {
  /** Resolve with `null` at once instead of waiting when the lock is held. */
  ifAvailable?: boolean
  /** Stop waiting for the lock (rejects with the signal's reason). */
  signal?: AbortSignal
}

/** The slice of the Web Locks API the client uses. `callback` gets `null` only with `ifAvailable`. */
export type LockManagerLike = {
  request<T>(name: string, options: LockOptions, callback: (lock: unknown) => Promise<T> | T): Promise<T>
}

/** Names of every lock the client takes start with this. */
export const LOCK_PREFIX = 'rebound.'

/**
 * The browser's lock manager, or one in memory where there is none (an old browser, a page
 * outside a secure context): the locks then hold within this tab only.
 */
export function browserLocks(): LockManagerLike {
  const locks = typeof navigator === 'undefined' ? undefined : (navigator as Navigator & { locks?: LockManagerLike }).locks
  if (locks && typeof locks.request === 'function') {
    return {
      request: (name, options, callback) => {
        // The Web Locks API refuses `signal` together with `ifAvailable`.
        const clean: LockOptions = options.ifAvailable ? { ifAvailable: true } : options.signal ? { signal: options.signal } : {}
        return locks.request(name, clean, callback)
      },
    }
  }
  return createLocalLocks()
}

/**
 * An exclusive lock manager in memory, as Web Locks behaves for one origin: waiters are granted
 * in order, `ifAvailable` never waits, an aborted wait rejects and leaves the queue.
 */
export function createLocalLocks(): LockManagerLike {
  const queues = new Map<string, (() => void)[]>()
  const held = new Set<string>()

  const release = (name: string) => {
    const next = queues.get(name)?.shift()
    if (next) return next()
    held.delete(name)
    queues.delete(name)
  }

  return {
    async request<T>(name: string, options: LockOptions, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
      if (options.ifAvailable && held.has(name)) return callback(null)
      options.signal?.throwIfAborted()
      if (held.has(name)) {
        await new Promise<void>((resolve, reject) => {
          const queue = queues.get(name) ?? []
          queues.set(name, queue)
          const grant = () => {
            options.signal?.removeEventListener('abort', onAbort)
            resolve()
          }
          const onAbort = () => {
            const at = queue.indexOf(grant)
            if (at >= 0) queue.splice(at, 1)
            reject(options.signal?.reason ?? new DOMException('Aborted', 'AbortError'))
          }
          options.signal?.addEventListener('abort', onAbort, { once: true })
          queue.push(grant)
        })
      } else {
        held.add(name)
      }
      try {
        return await callback({ name })
      } finally {
        release(name)
      }
    },
  }
}
