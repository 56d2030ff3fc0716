import { useCallback, useSyncExternalStore } from 'react'

/**
 * Where the shell switches to its narrow layout: the sessions panel folds behind a button. 720 CSS
 * px covers phones (375) and a 1200 px window at 200% zoom (600); styles.css uses the same width.
 */
export const NARROW_LAYOUT = '(max-width: 720px)'

/**
 * Whether `query` matches now, re-rendering when it starts or stops matching. False where there is
 * no `matchMedia` (jsdom, server rendering): the wide layout, whose panel needs no button.
 */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (listener: () => void) => {
      if (typeof window.matchMedia !== 'function') return () => {}
      const list = window.matchMedia(query)
      list.addEventListener('change', listener)
      return () => list.removeEventListener('change', listener)
    },
    [query],
  )
  return useSyncExternalStore(
    subscribe,
    () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches,
    () => false,
  )
}
