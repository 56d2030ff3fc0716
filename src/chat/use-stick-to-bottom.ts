import { useLayoutEffect, useRef } from 'react'

/** How close to the end (px) still counts as "reading the latest". */
const NEAR_END = 80

/**
 * Keeps a scrolling log pinned to its end while new text arrives, unless the operator has scrolled
 * up to read something earlier; then it leaves them where they are.
 */
export function useStickToBottom<T extends HTMLElement>(signal: unknown) {
  const ref = useRef<T>(null)
  const pinned = useRef(true)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const onScroll = () => {
      pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR_END
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    return () => el.removeEventListener('scroll', onScroll)
  }, [])
  useLayoutEffect(() => {
    const el = ref.current
    if (el && pinned.current) el.scrollTop = el.scrollHeight
  }, [signal])
  return ref
}
