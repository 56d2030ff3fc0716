/**
 * How often the live-run store shows what streamed (pacing.ts): every 50 ms at any rate a model
 * usually writes, up to every 100 ms for a stream far faster than anyone reads, up to every 250 ms
 * for a flood no model writes (its rate smoothed over the last half second), and every 50 ms again
 * while the operator types.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  FAST_STREAM_CHARS_PER_S,
  FAST_STREAM_FLUSH_GAP_MS,
  FLOOD_CHARS_PER_S,
  FLOOD_FLUSH_GAP_MS,
  pacedFrames,
  smoothedRate,
  STREAM_FLUSH_GAP_MS,
  STREAM_RATE_MEMORY_MS,
  streamFlushGap,
  streamFlushGapFor,
  TYPING_WINDOW_MS,
} from '../../src/live/pacing'

afterEach(() => {
  vi.useRealTimers()
})

describe('streamFlushGap', () => {
  it('keeps 50 ms up to about 1,000 tokens a second, grows with the rate past it, and holds 100 ms up to a flood', () => {
    expect(streamFlushGap(0)).toBe(STREAM_FLUSH_GAP_MS)
    // 100 tokens a second, a fast model's pace.
    expect(streamFlushGap(400)).toBe(STREAM_FLUSH_GAP_MS)
    expect(streamFlushGap(FAST_STREAM_CHARS_PER_S)).toBe(STREAM_FLUSH_GAP_MS)
    expect(streamFlushGap(1.5 * FAST_STREAM_CHARS_PER_S)).toBe(75)
    expect(streamFlushGap(2 * FAST_STREAM_CHARS_PER_S)).toBe(FAST_STREAM_FLUSH_GAP_MS)
    // The bench's stream: 2,000 deltas of five characters a second.
    expect(streamFlushGap(10_000)).toBe(FAST_STREAM_FLUSH_GAP_MS)
    expect(streamFlushGap(FLOOD_CHARS_PER_S)).toBe(FAST_STREAM_FLUSH_GAP_MS)
  })

  it('grows again past a flood\'s rate (a tool\'s input poured in), continuously, up to four updates a second', () => {
    expect(streamFlushGap(1.5 * FLOOD_CHARS_PER_S)).toBe(150)
    expect(streamFlushGap(2 * FLOOD_CHARS_PER_S)).toBe(200)
    expect(streamFlushGap(2.5 * FLOOD_CHARS_PER_S)).toBe(FLOOD_FLUSH_GAP_MS)
    // The bench's tool input: 2 MiB in pieces of 128–384 characters at 2,000 a second.
    expect(streamFlushGap(500_000)).toBe(FLOOD_FLUSH_GAP_MS)
    // No jump where the second rise begins.
    expect(streamFlushGap(FLOOD_CHARS_PER_S + 1) - streamFlushGap(FLOOD_CHARS_PER_S)).toBeLessThan(0.01)
  })

  it('is 50 ms while the operator types, whatever the rate, and follows the rate once they stop', () => {
    let now = 10_000
    let lastKey = -Infinity
    const gap = streamFlushGapFor(() => 10_000, { now: () => now, lastInputAt: () => lastKey })
    expect(gap()).toBe(FAST_STREAM_FLUSH_GAP_MS)
    lastKey = now
    now += TYPING_WINDOW_MS - 1
    expect(gap()).toBe(STREAM_FLUSH_GAP_MS)
    now += 1
    expect(gap()).toBe(FAST_STREAM_FLUSH_GAP_MS)
  })
})

describe('smoothedRate', () => {
  it('settles on a steady stream\'s rate', () => {
    let rate = 0
    // 1,000 characters every 100 ms: 10,000 a second.
    for (let i = 0; i < 50; i++) rate = smoothedRate(rate, 1_000, 100)
    expect(rate).toBeCloseTo(10_000, 0)
  })

  it('keeps a fast stream fast through one quiet interval (an agent\'s step between pieces of its answer)', () => {
    let rate = 10_000
    // The step: 300 characters in 100 ms, 3,000 a second on their own.
    rate = smoothedRate(rate, 300, 100)
    expect(rate).toBeGreaterThan(8_000)
    expect(streamFlushGap(rate)).toBe(FAST_STREAM_FLUSH_GAP_MS)
    // Read from that interval alone, the gap would have dropped to 50 ms.
    expect(streamFlushGap(3_000)).toBe(STREAM_FLUSH_GAP_MS)
  })

  it('follows a stream that slows down within its memory, and forgets it after a pause', () => {
    let rate = 10_000
    for (let elapsed = 0; elapsed < 2 * STREAM_RATE_MEMORY_MS; elapsed += 100) rate = smoothedRate(rate, 40, 100)
    expect(streamFlushGap(rate)).toBe(STREAM_FLUSH_GAP_MS)
    // A tool that ran for 5 s: nothing streamed, and the rate is all but zero.
    expect(smoothedRate(10_000, 0, 5_000)).toBeLessThan(1)
  })

  it('leaves the rate as it was when no time has passed', () => {
    expect(smoothedRate(5_000, 100, 0)).toBe(5_000)
  })
})

describe('pacedFrames', () => {
  it('waits out the gap it reads at each flush since the last one', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    let gapMs = 50
    const next = (run: () => void) => {
      run()
      return () => undefined
    }
    const schedule = pacedFrames(() => gapMs, Date, next)
    const flush = vi.fn()
    // The first flush is not held back.
    schedule(flush)
    expect(flush).toHaveBeenCalledTimes(1)
    schedule(flush)
    vi.advanceTimersByTime(49)
    expect(flush).toHaveBeenCalledTimes(1)
    vi.advanceTimersByTime(1)
    expect(flush).toHaveBeenCalledTimes(2)
    // A faster stream: the next one waits 100 ms.
    gapMs = 100
    schedule(flush)
    vi.advanceTimersByTime(99)
    expect(flush).toHaveBeenCalledTimes(2)
    vi.advanceTimersByTime(1)
    expect(flush).toHaveBeenCalledTimes(3)
    // A cancelled one never runs.
    const cancel = schedule(flush)
    cancel()
    vi.advanceTimersByTime(1_000)
    expect(flush).toHaveBeenCalledTimes(3)
  })
})
