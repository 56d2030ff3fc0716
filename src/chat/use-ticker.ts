import { useEffect, useState } from 'react'
import { useChatRuntime } from './runtime'

/**
 * Re-renders the calling component when `nextTickIn` says the time it shows changes (null: no
 * ticking). The component reads the clock as it renders, so its first frame is already right;
 * living in the component that shows the time, a tick re-renders that line alone.
 */
export function useTicker(nextTickIn: (now: number) => number | null): void {
  const { clock } = useChatRuntime()
  const [, setTick] = useState(0)
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const schedule = () => {
      const delay = nextTickIn(clock.now())
      if (delay === null) return
      timer = setTimeout(() => {
        setTick((n) => n + 1)
        schedule()
      }, delay)
    }
    schedule()
    return () => clearTimeout(timer)
  }, [clock, nextTickIn])
}
