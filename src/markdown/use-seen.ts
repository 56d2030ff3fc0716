import { useEffect, useState, type RefObject } from 'react'

/** How long a block must stay in or near view before it counts as seen. */
export const SEEN_DWELL_MS = 250
/** "Near": within a quarter of the window's height above or below it. */
const NEAR_MARGIN = '25% 0px'

type Watcher = (inView: boolean) => void

/** One observer for every block on the page, created with the first. */
let observer: IntersectionObserver | undefined
const watchers = new Map<Element, Watcher>()

function watch(element: Element, watcher: Watcher): () => void {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) watchers.get(entry.target)?.(entry.isIntersecting)
    },
    // The margin widens the window only: inside the transcript, "near" is what its scroller
    // shows. Widening the scroller too (scrollMargin) would highlight more of the blocks a fast
    // stream pushes past, which is the work this hook is here to spare.
    { rootMargin: NEAR_MARGIN },
  )
  watchers.set(element, watcher)
  observer.observe(element)
  return () => {
    watchers.delete(element)
    observer?.unobserve(element)
  }
}

/**
 * Whether the element has been in view (what every scroller around it shows, and near the
 * window's edges) for SEEN_DWELL_MS, once `watching` is on; once seen, it stays seen. Work the
 * operator would only see there (highlighting a finished code block) waits for it: a block that a
 * fast stream pushes past the view in a moment is left for when the operator scrolls back to it.
 * Where there is no IntersectionObserver (a test DOM), everything counts as seen at once.
 */
export function useSeen(ref: RefObject<Element | null>, watching: boolean): boolean {
  const [seen, setSeen] = useState(() => typeof IntersectionObserver === 'undefined')
  useEffect(() => {
    const element = ref.current
    if (seen || !watching || !element) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const stop = watch(element, (inView) => {
      clearTimeout(timer)
      timer = inView ? setTimeout(() => setSeen(true), SEEN_DWELL_MS) : undefined
    })
    return () => {
      clearTimeout(timer)
      stop()
    }
  }, [ref, seen, watching])
  return seen
}
