import { useEffect, useRef, useState } from 'react'

/** How long a streaming reply must go without new text before its caret blinks. */
const CARET_PAUSE_MS = 1000

/**
 * The caret at the end of a streaming reply: steady while text arrives, blinking once the reply
 * has paused (a retry's wait, a long think), as a text cursor does. A blink running through the
 * whole stream cost a style recalculation on every frame.
 */
export function StreamingCaret({ length }: { length: number }) {
  // The text length at which the reply was last seen paused: paused until more text arrives.
  const [pausedAt, setPausedAt] = useState<number>()
  const paused = pausedAt === length
  // The latest length and when it arrived (set once committed), read by the timer below.
  const latest = useRef({ length, at: 0 })
  useEffect(() => {
    latest.current = { length, at: Date.now() }
  }, [length])
  // One timer per pause, not one per commit: while text streams (20 commits a second) the timer
  // finds the text newer than the pause and waits out the rest of it.
  useEffect(() => {
    if (paused) return
    let timer: ReturnType<typeof setTimeout>
    const check = () => {
      const quiet = Date.now() - latest.current.at
      if (quiet >= CARET_PAUSE_MS) setPausedAt(latest.current.length)
      else timer = setTimeout(check, CARET_PAUSE_MS - quiet)
    }
    timer = setTimeout(check, CARET_PAUSE_MS)
    return () => clearTimeout(timer)
  }, [paused])
  return <span className="caret" data-paused={paused ? '' : undefined} aria-hidden="true" />
}
