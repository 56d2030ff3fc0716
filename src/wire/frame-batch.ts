/**
 * Batches a run's frames for the hop from the stream worker to the page: a reply streaming 2,000
 * deltas a second becomes a few dozen messages a second, each one task on the page's main thread
 * instead of one per network chunk. Consecutive deltas are joined into one (the last one's id,
 * their texts in order), which is all the live-run store makes of them anyway. Anything that is
 * not a delta, and a delta after a pause, goes out at once, so the end of a run and the first
 * words after a wait are never held back.
 */
import type { StreamFrame } from './types'

export type FrameBatcherOptions = {
  /** Hands one batch over; never called with an empty one. */
  post: (frames: StreamFrame[]) => void
  /** Shortest gap between two batches of deltas. */
  gapMs: number
  now?: () => number
  setTimer?: (run: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

export type FrameBatcher = {
  push(frame: StreamFrame): void
  /** Sends what is held now (the stream ended, or is being let go). */
  flush(): void
  /** Drops what is held and any pending send. */
  dispose(): void
}

/** Joins `frame` onto `batch`: a delta after a delta extends it, anything else is appended. */
function appendFrame(batch: StreamFrame[], frame: StreamFrame): void {
  const last = batch[batch.length - 1]
  if (frame.type === 'delta' && last?.type === 'delta') batch[batch.length - 1] = { type: 'delta', id: frame.id, text: last.text + frame.text }
  else batch.push(frame)
}

export function createFrameBatcher({
  post,
  gapMs,
  now = () => Date.now(),
  setTimer = (run, ms) => setTimeout(run, ms),
  clearTimer = (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
}: FrameBatcherOptions): FrameBatcher {
  let held: StreamFrame[] = []
  let timer: unknown
  /** When a batch with text in it last went out: the gap counts from text, not from a start or a tier 1 wait. */
  let lastTextAt = -Infinity

  const flush = () => {
    if (timer !== undefined) {
      clearTimer(timer)
      timer = undefined
    }
    if (held.length === 0) return
    const batch = held
    held = []
    if (batch.some((frame) => frame.type === 'delta')) lastTextAt = now()
    post(batch)
  }

  return {
    push(frame) {
      appendFrame(held, frame)
      if (frame.type !== 'delta') return flush()
      const wait = lastTextAt + gapMs - now()
      if (wait <= 0) return flush()
      if (timer === undefined) timer = setTimer(flush, wait)
    },
    flush,
    dispose() {
      if (timer !== undefined) clearTimer(timer)
      timer = undefined
      held = []
    },
  }
}
