/**
 * The stream worker's batches: deltas within the gap are joined (the last id, the texts in
 * order), anything else goes out at once with what was held before it, and a delta after a
 * pause is not held back.
 */
import { describe, expect, it } from 'vitest'
import { createFrameBatcher } from '../../src/wire/frame-batch'
import { batchPace, FAST_STREAM_FLUSH_GAP_MS, FLOOD_FLUSH_GAP_MS, STREAM_FLUSH_GAP_MS, TYPING_WINDOW_MS } from '../../src/live/pacing'
import type { StreamFrame } from '../../src/wire/types'

function harness(gapMs = 25) {
  let now = 1_000
  const timers: Array<{ at: number; run: () => void; live: boolean }> = []
  const posted: StreamFrame[][] = []
  const batcher = createFrameBatcher({
    gapMs,
    post: (frames) => posted.push(frames),
    now: () => now,
    setTimer: (run, ms) => {
      const timer = { at: now + ms, run, live: true }
      timers.push(timer)
      return timer
    },
    clearTimer: (timer) => {
      ;(timer as { live: boolean }).live = false
    },
  })
  const advance = (ms: number) => {
    now += ms
    for (const timer of timers) {
      if (timer.live && timer.at <= now) {
        timer.live = false
        timer.run()
      }
    }
  }
  return { batcher, posted, advance, liveTimers: () => timers.filter((t) => t.live).length }
}

const delta = (id: number, text: string): StreamFrame => ({ type: 'delta', id, text })

describe('frame batcher', () => {
  it('sends the first delta at once, then joins the deltas of the gap into one', () => {
    const { batcher, posted, advance } = harness()
    batcher.push(delta(1, 'Hel'))
    expect(posted).toEqual([[delta(1, 'Hel')]])
    batcher.push(delta(2, 'lo, '))
    batcher.push(delta(3, 'world'))
    expect(posted).toHaveLength(1)
    advance(24)
    expect(posted).toHaveLength(1)
    advance(1)
    expect(posted[1]).toEqual([delta(3, 'lo, world')])
  })

  it('sends a terminal frame at once, after the deltas held before it', () => {
    const { batcher, posted, liveTimers } = harness()
    batcher.push(delta(1, 'a'))
    batcher.push(delta(2, 'b'))
    batcher.push(delta(3, 'c'))
    batcher.push({ type: 'done', id: 4, message_id: 'm1' })
    expect(posted).toEqual([[delta(1, 'a')], [delta(3, 'bc'), { type: 'done', id: 4, message_id: 'm1' }]])
    expect(liveTimers()).toBe(0)
  })

  it('keeps frames that are not deltas apart, in order', () => {
    const { batcher, posted, advance } = harness()
    batcher.push({ type: 'start', id: 1, message_id: 'm1' })
    advance(5)
    batcher.push(delta(2, 'x'))
    batcher.push({ type: 'retrying', id: 3, attempt: 2, max_attempts: 3, retry_at: 5_000, code: 'overloaded' })
    batcher.push(delta(4, 'y'))
    advance(30)
    expect(posted.flat().map((f) => f.id)).toEqual([1, 2, 3, 4])
    expect(posted).toEqual([
      [{ type: 'start', id: 1, message_id: 'm1' }],
      [delta(2, 'x')],
      [{ type: 'retrying', id: 3, attempt: 2, max_attempts: 3, retry_at: 5_000, code: 'overloaded' }],
      [delta(4, 'y')],
    ])
  })

  it('does not hold the first words after a start or a tier 1 wait', () => {
    const { batcher, posted } = harness()
    batcher.push({ type: 'start', id: 1, message_id: 'm1' })
    batcher.push(delta(2, 'First'))
    expect(posted).toEqual([[{ type: 'start', id: 1, message_id: 'm1' }], [delta(2, 'First')]])
  })

  it('does not hold a delta that comes after a pause', () => {
    const { batcher, posted, advance } = harness()
    batcher.push(delta(1, 'a'))
    advance(100)
    batcher.push(delta(2, 'b'))
    expect(posted).toEqual([[delta(1, 'a')], [delta(2, 'b')]])
  })

  it('flush sends what is held; dispose drops it', () => {
    const { batcher, posted, advance } = harness()
    batcher.push(delta(1, 'a'))
    batcher.push(delta(2, 'b'))
    batcher.flush()
    expect(posted).toEqual([[delta(1, 'a')], [delta(2, 'b')]])
    batcher.push(delta(3, 'c'))
    batcher.dispose()
    advance(100)
    expect(posted).toHaveLength(2)
  })

  it('joins a tool’s input pieces and the reasoning’s like the answer’s, each with its own kind and tool', () => {
    const { batcher, posted, advance } = harness()
    const input = (id: number, tool: string, piece: string): StreamFrame => ({ type: 'tool_input', id, tool_call_id: tool, delta: piece })
    const reasoning = (id: number, text: string): StreamFrame => ({ type: 'reasoning', id, text })
    batcher.push(reasoning(1, 'Look'))
    expect(posted).toEqual([[reasoning(1, 'Look')]])
    batcher.push(reasoning(2, 'ing '))
    batcher.push(reasoning(3, 'up'))
    batcher.push(input(4, 't1', '{"pa'))
    batcher.push(input(5, 't1', 'th":'))
    batcher.push(input(6, 't2', '{"q"'))
    batcher.push(input(7, 't1', '"a"}'))
    batcher.push(delta(8, 'So'))
    batcher.push(delta(9, ': '))
    expect(posted).toHaveLength(1)
    advance(25)
    expect(posted[1]).toEqual([reasoning(3, 'ing up'), input(5, 't1', '{"path":'), input(6, 't2', '{"q"'), input(7, 't1', '"a"}'), delta(9, 'So: ')])
    // A tool's start is not a piece: it goes out at once, with what was held.
    batcher.push(input(10, 't3', '{'))
    batcher.push({ type: 'tool_call', id: 11, tool_call_id: 't4', name: 'read_file', effect: 'read' } as StreamFrame)
    expect(posted).toHaveLength(3)
    expect(posted[2]?.map((frame) => frame.id)).toEqual([10, 11])
  })
})


describe('the worker’s batch pace', () => {
  /** A run posting `chars` characters every `everyMs` for `forMs`, on a clock the test moves. */
  function paced(typedAgo?: number) {
    let now = 10_000
    const input = { now: () => now, lastInputAt: () => (typedAgo === undefined ? -Infinity : now - typedAgo) }
    const pace = batchPace(input)
    const post = (chars: number, everyMs: number, forMs: number) => {
      for (let t = 0; t < forMs; t += everyMs) {
        now += everyMs
        pace.posted([{ type: 'delta', id: t, text: 'x'.repeat(chars) }])
      }
    }
    return { pace, post }
  }

  it('is the page’s gap between commits for the run’s rate: 50 ms at a model’s pace, 100 ms fast, up to 250 ms for a flood', () => {
    const { pace, post } = paced()
    expect(pace.gap()).toBe(STREAM_FLUSH_GAP_MS)
    post(20, 50, 2_000) // 400 characters a second
    expect(pace.gap()).toBe(STREAM_FLUSH_GAP_MS)
    post(1_000, 100, 3_000) // 10,000 a second
    expect(pace.gap()).toBe(FAST_STREAM_FLUSH_GAP_MS)
    post(50_000, 250, 3_000) // 200,000 a second
    expect(pace.gap()).toBe(FLOOD_FLUSH_GAP_MS)
  })

  it('counts reasoning and tool input as the page does, and a step between pieces does not halve the gap', () => {
    let now = 0
    const clockless = batchPace({ now: () => now, lastInputAt: () => -Infinity })
    for (let i = 0; i < 30; i++) {
      now += 100
      clockless.posted([
        { type: 'reasoning', id: i, text: 'r'.repeat(500) },
        { type: 'tool_input', id: i, tool_call_id: 't', delta: 'i'.repeat(500) },
      ])
    }
    expect(clockless.gap()).toBe(FAST_STREAM_FLUSH_GAP_MS)
    now += 5
    clockless.posted([{ type: 'tool_running', id: 99, tool_call_id: 't' } as StreamFrame])
    expect(clockless.gap()).toBe(FAST_STREAM_FLUSH_GAP_MS)
  })

  it('is 50 ms while the operator types, however fast the run', () => {
    const typing = paced(300)
    typing.post(1_000, 100, 3_000)
    expect(typing.pace.gap()).toBe(STREAM_FLUSH_GAP_MS)
    const typedLongAgo = paced(TYPING_WINDOW_MS + 100)
    typedLongAgo.post(1_000, 100, 3_000)
    expect(typedLongAgo.pace.gap()).toBe(FAST_STREAM_FLUSH_GAP_MS)
  })
})
