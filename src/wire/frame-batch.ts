/**
 * Batches a run's frames for the hop from the stream worker to the page: a reply streaming 2,000
 * pieces a second becomes a few dozen messages a second, each one task on the page's main thread
 * instead of one per network chunk. The pieces are the answer's deltas, the reasoning's, and a
 * tool's input as the model writes it (an agent writes kilobytes of input in thousands of them);
 * consecutive pieces of the same thing are joined into one (the last one's id, their texts in
 * order), which is all the live-run store makes of them anyway. Any other frame, and a piece
 * after a pause, goes out at once, so the end of a run, a tool's start and the first words after
 * a wait are never held back.
 */
import type { StreamFrame } from './types'

export type FrameBatcherOptions = {
  /** Hands one batch over; never called with an empty one. */
  post: (frames: StreamFrame[]) => void
  /** Shortest gap between two batches of deltas: a number, or read each time a piece arrives. */
  gapMs: number | (() => number)
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

/** A piece of something being written: held for the gap, and joined onto the piece before it. */
type Piece = Extract<StreamFrame, { type: 'delta' | 'reasoning' | 'tool_input' }>

function isPiece(frame: StreamFrame): frame is Piece {
  return frame.type === 'delta' || frame.type === 'reasoning' || frame.type === 'tool_input'
}

/** `last` and `frame` as one frame, when they are pieces of the same thing in a row. */
function joined(last: StreamFrame | undefined, frame: Piece): Piece | undefined {
  if (last?.type !== frame.type) return undefined
  if (frame.type === 'tool_input') return last.type === 'tool_input' && last.tool_call_id === frame.tool_call_id ? { ...frame, delta: last.delta + frame.delta } : undefined
  return last.type === 'delta' || last.type === 'reasoning' ? { ...frame, text: last.text + frame.text } : undefined
}

/** Joins `frame` onto `batch`: a piece after a piece of the same thing extends it, anything else is appended. */
function appendFrame(batch: StreamFrame[], frame: StreamFrame): void {
  const together = isPiece(frame) ? joined(batch[batch.length - 1], frame) : undefined
  if (together) batch[batch.length - 1] = together
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
  /** When a batch with pieces in it last went out: the gap counts from them, not from a start or a tier 1 wait. */
  let lastTextAt = -Infinity
  const gap = typeof gapMs === 'number' ? () => gapMs : gapMs

  const flush = () => {
    if (timer !== undefined) {
      clearTimer(timer)
      timer = undefined
    }
    if (held.length === 0) return
    const batch = held
    held = []
    if (batch.some(isPiece)) lastTextAt = now()
    post(batch)
  }

  return {
    push(frame) {
      appendFrame(held, frame)
      if (!isPiece(frame)) return flush()
      const wait = lastTextAt + gap() - now()
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
