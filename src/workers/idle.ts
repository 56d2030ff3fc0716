/**
 * Work kept off the page's busy moments: run once the browser says it is idle, or by `timeout`
 * at the latest; where there is no idle callback (Safari, jsdom), after `fallback` ms. Returns
 * what cancels it. No React, no imports.
 */
export type IdleOptions = {
  /** The longest the work waits for idle, in ms (none: only when idle). */
  timeout?: number
  /** The wait where the browser has no idle callback, in ms. */
  fallback: number
}

export function whenIdle(work: () => void, { timeout, fallback }: IdleOptions): () => void {
  const page = globalThis as {
    requestIdleCallback?: (callback: () => void, options?: { timeout: number }) => number
    cancelIdleCallback?: (id: number) => void
  }
  if (typeof page.requestIdleCallback === 'function' && typeof page.cancelIdleCallback === 'function') {
    const id = page.requestIdleCallback(work, timeout === undefined ? undefined : { timeout })
    return () => page.cancelIdleCallback?.(id)
  }
  const timer = setTimeout(work, fallback)
  return () => clearTimeout(timer)
}
