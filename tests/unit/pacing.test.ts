/**
 * How often the live-run store shows what streamed (pacing.ts): every 50 ms at any rate a model
 * usually writes, up to every 100 ms for a stream far faster than anyone reads, and every 50 ms
 * again while the operator types.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { FAST_STREAM_CHARS_PER_S, FAST_STREAM_FLUSH_GAP_MS, pacedFrames, STREAM_FLUSH_GAP_MS, streamFlushGap, streamFlushGapFor, TYPING_WINDOW_MS } from '../../src/live/pacing'

afterEach(() => {
  vi.useRealTimers()
})

describe('streamFlushGap', () => {
  it('keeps 50 ms up to about 1,000 tokens a second, grows with the rate past it, and stops at 100 ms', () => {
    expect(streamFlushGap(0)).toBe(STREAM_FLUSH_GAP_MS)
    // 100 tokens a second, a fast model's pace.
    expect(streamFlushGap(400)).toBe(STREAM_FLUSH_GAP_MS)
    expect(streamFlushGap(FAST_STREAM_CHARS_PER_S)).toBe(STREAM_FLUSH_GAP_MS)
    expect(streamFlushGap(1.5 * FAST_STREAM_CHARS_PER_S)).toBe(75)
    expect(streamFlushGap(2 * FAST_STREAM_CHARS_PER_S)).toBe(FAST_STREAM_FLUSH_GAP_MS)
    // The bench's stream: 2,000 deltas of five characters a second.
    expect(streamFlushGap(10_000)).toBe(FAST_STREAM_FLUSH_GAP_MS)
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
