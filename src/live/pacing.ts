/**
 * When the live-run store shows what streamed: at most once per STREAM_FLUSH_GAP_MS, at the next
 * animation frame (or a timer in a hidden tab), never in the frame that paints a key the operator
 * just pressed, and while the operator types, just after a key rather than as the next one comes
 * (yieldingToInput). The stream worker batches at the same pace (batchPace).
 */
import type { StreamFrame } from '../wire/types'

/** Schedules `flush` once; returns a cancel. The default races an animation frame with a timer. */
export type FlushScheduler = (flush: () => void) => () => void

/**
 * The next animation frame, or 50 ms, whichever comes first: a hidden tab gets no frames, and its
 * runs must still settle.
 */
export const frameOrTimeout: FlushScheduler = (flush) => {
  let done = false
  const run = () => {
    if (done) return
    done = true
    if (frame !== undefined) cancelAnimationFrame(frame)
    clearTimeout(timer)
    flush()
  }
  const frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(run) : undefined
  const timer = setTimeout(run, 50)
  return () => {
    done = true
    if (frame !== undefined) cancelAnimationFrame(frame)
    clearTimeout(timer)
  }
}

/**
 * Shortest gap between two flushes while text streams in. Every flush is a commit, and a commit of
 * a growing reply costs layout, paint and compositing of the page; one every 50 ms reads as live
 * (twenty updates a second) and leaves most frames to the operator's typing and scrolling. A
 * run's end, and anything after a pause, is shown at the next frame.
 */
export const STREAM_FLUSH_GAP_MS = 50
/** The gap for a stream far faster than anyone reads: ten updates a second. */
export const FAST_STREAM_FLUSH_GAP_MS = 100
/** Characters a second (about 1,000 tokens) past which the gap grows with the stream's rate. */
export const FAST_STREAM_CHARS_PER_S = 4_000
/** Characters a second past which no model writes (a tool's input replayed, a file pasted in by the agent): the gap grows again. */
export const FLOOD_CHARS_PER_S = 40_000
/** The gap for a flood: four updates a second, each of tens of kilobytes. */
export const FLOOD_FLUSH_GAP_MS = 250

/**
 * The gap between flushes for a stream writing `charsPerSecond`: STREAM_FLUSH_GAP_MS at any pace a
 * model usually writes (tens to hundreds of tokens a second), growing with the rate past
 * FAST_STREAM_CHARS_PER_S up to FAST_STREAM_FLUSH_GAP_MS. Past that rate every update brings
 * lines nobody reads as they come, and the cost of a commit grows with what it adds; fewer,
 * larger commits keep the page's share of the main thread bounded as providers get faster.
 * Past FLOOD_CHARS_PER_S (a tool's input of hundreds of kilobytes poured in, a replay) it grows
 * again, from the same 100 ms, up to FLOOD_FLUSH_GAP_MS: what shows is a tail moving and a count
 * going up, and four updates a second say that as well as ten.
 */
export function streamFlushGap(charsPerSecond: number): number {
  if (charsPerSecond > FLOOD_CHARS_PER_S) return Math.min(FLOOD_FLUSH_GAP_MS, (FAST_STREAM_FLUSH_GAP_MS * charsPerSecond) / FLOOD_CHARS_PER_S)
  const scaled = (STREAM_FLUSH_GAP_MS * charsPerSecond) / FAST_STREAM_CHARS_PER_S
  return Math.min(FAST_STREAM_FLUSH_GAP_MS, Math.max(STREAM_FLUSH_GAP_MS, scaled))
}

/**
 * How long the stream's rate remembers: a step of an agent's run (a tool call, its result, its
 * usage) brings a few characters between two flushes of a fast answer, and a rate read from that
 * one interval alone would halve the gap for it, and commit twice as often around every step.
 */
export const STREAM_RATE_MEMORY_MS = 500

/**
 * The streams' rate after `chars` more characters in `elapsedMs`: the last rate moved toward this
 * interval's own by the share of STREAM_RATE_MEMORY_MS the interval took (an exponentially
 * weighted average over time). An interval longer than the memory (a pause: a tool running, the
 * provider thinking) all but replaces it, so a stream that slows down is paced as slow at once.
 */
export function smoothedRate(rate: number, chars: number, elapsedMs: number): number {
  if (!(elapsedMs > 0)) return rate
  const weight = 1 - Math.exp(-elapsedMs / STREAM_RATE_MEMORY_MS)
  return rate + weight * ((chars * 1000) / elapsedMs - rate)
}

/** How recent a key must be for the operator to count as typing. */
export const TYPING_WINDOW_MS = 1_000

/**
 * The gap for the live-run store: `streamFlushGap` of the streams' rate, but STREAM_FLUSH_GAP_MS
 * while the operator types. A larger commit is a longer task, and a key pressed as it starts
 * waits for all of it; smaller commits keep every key's paint within a frame or two.
 */
export function streamFlushGapFor(rate: () => number, input: InputClock): () => number {
  return () => (input.now() - input.lastInputAt() < TYPING_WINDOW_MS ? STREAM_FLUSH_GAP_MS : streamFlushGap(rate()))
}

/** Characters of text, reasoning or tool input a frame brings: what a stream's rate counts, on the page and in the worker. */
export function streamedChars(frame: StreamFrame): number {
  if (frame.type === 'delta' || frame.type === 'reasoning') return frame.text.length
  return frame.type === 'tool_input' ? frame.delta.length : 0
}

/**
 * One run's gap between the stream worker's batches: the page's gap between commits
 * (streamFlushGapFor), read on the worker's side from the run's rate as its batches go out
 * (smoothed as the live-run store smooths its own) and from the input the page tells it of.
 */
export function batchPace(input: InputClock): { gap: () => number; posted: (frames: readonly StreamFrame[]) => void } {
  let rate = 0
  let postedAt: number | undefined
  return {
    gap: streamFlushGapFor(() => rate, input),
    posted(frames) {
      const at = input.now()
      if (postedAt !== undefined) rate = smoothedRate(rate, frames.reduce((chars, frame) => chars + streamedChars(frame), 0), at - postedAt)
      postedAt = at
    },
  }
}

/** `frameOrTimeout`, at most once per `gapMs` (a number, or read at each flush): a flush due sooner waits out the gap first. */
export function pacedFrames(gapMs: number | (() => number), clock: { now(): number } = Date, next: FlushScheduler = frameOrTimeout): FlushScheduler {
  let lastAt = -Infinity
  const gap = typeof gapMs === 'number' ? () => gapMs : gapMs
  return (flush) => {
    const run = () => {
      lastAt = clock.now()
      flush()
    }
    const wait = lastAt + gap() - clock.now()
    if (wait <= 0) return next(run)
    let cancelNext: (() => void) | undefined
    const timer = setTimeout(() => {
      cancelNext = next(run)
    }, wait)
    return () => {
      clearTimeout(timer)
      cancelNext?.()
    }
  }
}

/** When the operator last pressed a key, typed or clicked (`performance.now()`). */
export type InputClock = { lastInputAt(): number; now(): number }
/** The input clock, and when the operator last pressed a key or typed (a click is not typing). */
export type KeyClock = InputClock & { lastKeyAt(): number }

let pageInput: KeyClock | undefined

/**
 * The page's input clock: keydown, beforeinput (typing, IME, paste) and pointerdown, heard on
 * the window before anything else handles them. Without a window, no input ever happened.
 */
export function browserInput(): KeyClock {
  if (pageInput) return pageInput
  let last = -Infinity
  let lastKey = -Infinity
  const now = () => (typeof performance === 'undefined' ? Date.now() : performance.now())
  if (typeof window !== 'undefined') {
    const note = (event: Event) => {
      last = now()
      if (event.type !== 'pointerdown') lastKey = last
    }
    for (const type of ['keydown', 'beforeinput', 'pointerdown'] as const) window.addEventListener(type, note, { capture: true, passive: true })
  }
  pageInput = { lastInputAt: () => last, lastKeyAt: () => lastKey, now }
  return pageInput
}

/** A frame at 60 Hz: input this recent has yet to be painted. */
const INPUT_FRAME_MS = 17
/** Frames a flush may wait for input, so a held key never stops the text. */
export const MAX_INPUT_DEFERRALS = 2
/**
 * How long after a key a flush still runs while the operator types: the frame after the key's own
 * and the one after that. Later, the next key is near (one every 60 to 300 ms), and a commit
 * running when it comes keeps it from the frame that would paint it.
 */
export const AFTER_KEY_MS = 50
/** The longest a flush waits for the next key while the operator types: a pause in typing still shows the text. */
export const MAX_TYPING_WAIT_MS = 150
/** A flush this long after the last one shows a stream that had paused or just began (after a send): it waits for no key. */
export const STREAM_PAUSE_MS = MAX_TYPING_WAIT_MS + 2 * STREAM_FLUSH_GAP_MS
/**
 * `next`, giving way to the operator: a flush that falls in the frame that paints a key just
 * pressed waits for the frame after (at most MAX_INPUT_DEFERRALS frames), so the keystroke paints
 * on its own, at once. While the operator types as text streams in (a key since the last flush,
 * within TYPING_WINDOW_MS, and that flush within STREAM_PAUSE_MS), a flush runs in the quiet just
 * after a key (within AFTER_KEY_MS of it): one due later waits for the next key, at most
 * MAX_TYPING_WAIT_MS, so it does not start just as that key comes. The first text of a run (the
 * operator has just sent) or after a pause waits for no key.
 */
export function yieldingToInput(next: FlushScheduler, input: KeyClock): FlushScheduler {
  let flushedAt = -Infinity
  return (flush) => {
    let deferrals = 0
    const dueAt = input.now()
    let cancel: () => void
    const attempt = () => {
      const now = input.now()
      const painting = now - input.lastInputAt() < INPUT_FRAME_MS && deferrals < MAX_INPUT_DEFERRALS
      const keyAt = input.lastKeyAt()
      const typingAlong = dueAt - flushedAt < STREAM_PAUSE_MS && keyAt > flushedAt && now - keyAt < TYPING_WINDOW_MS
      const keyNear = typingAlong && now - keyAt >= AFTER_KEY_MS && now - dueAt < MAX_TYPING_WAIT_MS
      if (painting || keyNear) {
        if (painting) deferrals += 1
        cancel = next(attempt)
        return
      }
      flushedAt = now
      flush()
    }
    cancel = next(attempt)
    return () => cancel()
  }
}
