/**
 * The live-run store on scripted frames: one snapshot per run, rebuilt at most once per flush
 * (the flush scheduler is injected and run by hand here), deltas joined at flush, terminal frames
 * shown at once, replays ignored, and only the reattach point (never the text) written to storage,
 * at most once per SAVE_EVERY_MS. `overlay` lays the stream over history until history has the end.
 */
import { describe, expect, it, vi } from 'vitest'
import { createLiveRunStore, LIVE_RUN_NAMESPACE, overlay, SAVE_EVERY_MS, TIER1_ATTEMPTS_LIMIT, type LiveRun } from '../../src/live/live-runs'
import { AFTER_KEY_MS, frameOrTimeout, MAX_INPUT_DEFERRALS, MAX_TYPING_WAIT_MS, STREAM_PAUSE_MS, yieldingToInput } from '../../src/live/pacing'
import { answerText, type LivePart } from '../../src/live/parts'
import { createKeyedStore, storageKey, type StorageBackend } from '../../src/storage/keyed-store'
import type { Message, Part, StreamFrame } from '../../src/wire/types'

const SID = 'ses_1'
const RID = 'run_1'
const T0 = Date.UTC(2026, 6, 1, 12)

/** Web Storage stand-in with spied calls. */
function spyBackend() {
  const items = new Map<string, string>()
  return {
    items,
    getItem: vi.fn((key: string) => items.get(key) ?? null),
    setItem: vi.fn((key: string, value: string) => void items.set(key, value)),
    removeItem: vi.fn((key: string) => void items.delete(key)),
  } satisfies StorageBackend & { items: Map<string, string> }
}

/** A store whose flushes run only when the test says so, on a clock the test moves. */
function harness(backend = spyBackend()) {
  let now = T0
  const pending: Array<() => void> = []
  const schedule = vi.fn((flush: () => void) => {
    pending.push(flush)
    return () => {
      const at = pending.indexOf(flush)
      if (at >= 0) pending.splice(at, 1)
    }
  })
  const store = createKeyedStore(backend)
  const live = createLiveRunStore({ store, clock: { now: () => now }, schedule })
  let id = 0
  const frame = (data: DistributiveOmit<StreamFrame, 'id'>, runId = RID) => {
    const next = { ...data, id: ++id } as StreamFrame
    live.frame(runId, next)
    return next
  }
  return {
    live,
    backend,
    schedule,
    /** Runs the scheduled flush, as the next animation frame would. */
    flush() {
      const due = pending.splice(0)
      for (const run of due) run()
      return due.length
    },
    pendingFlushes: () => pending.length,
    advance(ms: number) {
      now += ms
    },
    /** Sets the clock. */
    at(ms: number) {
      now = ms
    },
    frame,
    /** Replays a frame with an explicit id (a reattachment sending old events again). */
    replay: (f: StreamFrame, runId = RID) => live.frame(runId, f),
    setNextId(next: number) {
      id = next - 1
    },
    saved: (runId = RID) => {
      const text = backend.items.get(storageKey(LIVE_RUN_NAMESPACE, runId))
      return text === undefined ? undefined : (JSON.parse(text) as unknown)
    },
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
type Harness = ReturnType<typeof harness>

function agentMessage(overrides: Partial<Message> = {}): Message {
  return {
    id: 'msg_reply',
    session_id: SID,
    role: 'agent',
    content: '',
    created_at: T0,
    superseded: false,
    reply_to: 'msg_op',
    run_id: RID,
    status: 'streaming',
    ...overrides,
  }
}

function liveRun(overrides: Partial<LiveRun> = {}): LiveRun {
  return { runId: RID, sessionId: SID, status: 'streaming', content: 'streamed', parts: [], unreadable: 0, tier1Waits: 0, lastEventId: 3, ...overrides }
}

describe('createLiveRunStore: frames to snapshots', () => {
  it('follows a scripted run: queued, start, retrying, deltas, done', () => {
    const h = harness()
    expect(h.live.begin(SID, RID, '')).toBeUndefined()
    expect(h.live.get(RID)).toEqual({ runId: RID, sessionId: SID, status: 'queued', content: '', parts: [], unreadable: 0, tier1Waits: 0, lastEventId: undefined })

    h.frame({ type: 'queued', position: 2 })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ status: 'queued', position: 2, lastEventId: 1 })

    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ status: 'streaming', position: undefined, content: '', lastEventId: 2 })

    h.frame({ type: 'retrying', attempt: 2, max_attempts: 3, retry_at: T0 + 1000, code: 'model_unavailable' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({
      status: 'streaming',
      tier1: { attempt: 2, maxAttempts: 3, retryAt: T0 + 1000, code: 'model_unavailable' },
      tier1Waits: 1,
    })

    h.frame({ type: 'retrying', attempt: 3, max_attempts: 3, retry_at: T0 + 3000, code: 'model_unavailable' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ tier1: { attempt: 3 }, tier1Waits: 2 })

    h.frame({ type: 'delta', text: 'Hel' })
    h.frame({ type: 'delta', text: 'lo' })
    h.flush()
    const streaming = h.live.get(RID)!
    expect(streaming).toMatchObject({ status: 'streaming', content: 'Hello', tier1Waits: 2, lastEventId: 6 })
    // The first delta ends tier 1's wait.
    expect(streaming.tier1).toBeUndefined()

    h.frame({ type: 'done', message_id: 'msg_reply' })
    expect(h.live.get(RID)).toMatchObject({ status: 'complete', content: 'Hello', lastEventId: 7, tier1: undefined })
    expect(h.live.get(RID)!.error).toBeUndefined()
  })

  it('ends cancelled on a cancelled frame, keeping the text so far', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'Half a' })
    h.frame({ type: 'cancelled', message_id: 'msg_reply' })
    expect(h.live.get(RID)).toMatchObject({ status: 'cancelled', content: 'Half a', lastEventId: 3 })
  })

  it('ends failed on an error frame, with its code and message (an uncoded one keeps the text)', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'retrying', attempt: 2, max_attempts: 3, retry_at: T0 + 1000, code: 'model_rate_limited' })
    h.frame({ type: 'error', code: 'model_rate_limited', message: 'Rate limited.' })
    expect(h.live.get(RID)).toMatchObject({ status: 'failed', error: { code: 'model_rate_limited', message: 'Rate limited.' }, tier1: undefined })

    const other = harness()
    other.live.begin(SID, RID, '')
    other.frame({ type: 'start', message_id: 'msg_reply' })
    other.frame({ type: 'error', code: undefined, message: 'upstream said no' })
    expect(other.live.get(RID)).toMatchObject({ status: 'failed', error: { code: '', message: 'upstream said no' } })
  })

  it('joins N deltas before one flush into one notification with the joined text', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.flush()
    const listener = vi.fn()
    h.live.subscribe(RID, listener)

    const words = Array.from({ length: 50 }, (_, i) => `w${i} `)
    for (const text of words) h.frame({ type: 'delta', text })
    // Nothing is shown before the flush, and one flush was asked for, not fifty.
    expect(listener).not.toHaveBeenCalled()
    expect(h.live.get(RID)!.content).toBe('')
    expect(h.pendingFlushes()).toBe(1)

    expect(h.flush()).toBe(1)
    expect(listener).toHaveBeenCalledTimes(1)
    expect(h.live.get(RID)!.content).toBe(words.join(''))
    // A flush with nothing new says nothing.
    h.flush()
    expect(listener).toHaveBeenCalledTimes(1)
  })

  it('hands out the same snapshot object until a flush changes it', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.flush()
    const first = h.live.get(RID)
    expect(h.live.get(RID)).toBe(first)

    h.frame({ type: 'delta', text: 'a' })
    // Not flushed yet: still the old object, unchanged.
    expect(h.live.get(RID)).toBe(first)
    expect(first!.content).toBe('')

    h.flush()
    const second = h.live.get(RID)
    expect(second).not.toBe(first)
    expect(second!.content).toBe('a')
    expect(first!.content).toBe('')
    h.flush()
    expect(h.live.get(RID)).toBe(second)
  })

  it('flushes a terminal frame at once, with the deltas still pending', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    const listener = vi.fn()
    h.live.subscribe(RID, listener)
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'The ' })
    h.frame({ type: 'delta', text: 'end.' })
    expect(listener).not.toHaveBeenCalled()
    h.frame({ type: 'done', message_id: 'msg_reply' })
    expect(listener).toHaveBeenCalledTimes(1)
    expect(h.live.get(RID)).toMatchObject({ status: 'complete', content: 'The end.' })
    // The flush that was waiting was cancelled: nothing is left to run.
    expect(h.pendingFlushes()).toBe(0)
  })

  it('notifies only the listeners of the run that changed', () => {
    const h = harness()
    h.live.begin(SID, 'run_a', '')
    h.live.begin(SID, 'run_b', '')
    const a = vi.fn()
    const b = vi.fn()
    h.live.subscribe('run_a', a)
    const stopB = h.live.subscribe('run_b', b)
    h.frame({ type: 'start', message_id: 'm_a' }, 'run_a')
    h.flush()
    expect(a).toHaveBeenCalledTimes(1)
    expect(b).not.toHaveBeenCalled()
    stopB()
    h.frame({ type: 'start', message_id: 'm_b' }, 'run_b')
    h.flush()
    expect(b).not.toHaveBeenCalled()
  })

  it('ignores frames with an id at or before the last one: a replay doubles no text', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    const start = h.frame({ type: 'start', message_id: 'msg_reply' })
    const d1 = h.frame({ type: 'delta', text: 'one ' })
    const d2 = h.frame({ type: 'delta', text: 'two ' })
    h.flush()
    const before = h.live.get(RID)
    const listener = vi.fn()
    h.live.subscribe(RID, listener)

    // A reattachment that sent the same events again.
    h.replay(start)
    h.replay(d1)
    h.replay(d2)
    h.flush()
    expect(listener).not.toHaveBeenCalled()
    expect(h.live.get(RID)).toBe(before)
    expect(h.live.get(RID)!.content).toBe('one two ')

    h.frame({ type: 'delta', text: 'three' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ content: 'one two three', lastEventId: 4 })
  })

  it('rebuilds the text from nothing on a start with a newer id (a replay from the first event)', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'stale ' })
    h.flush()
    h.frame({ type: 'delta', text: 'pending ' })
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'fresh' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ status: 'streaming', content: 'fresh' })
  })

  it('ignores frames for a run it never began', () => {
    const h = harness()
    h.frame({ type: 'start', message_id: 'msg_reply' }, 'run_unknown')
    h.flush()
    expect(h.live.get('run_unknown')).toBeUndefined()
    expect(h.live.get(undefined)).toBeUndefined()
    expect(h.backend.setItem).not.toHaveBeenCalled()
  })

  it('begin() on a run it already has returns its last event id and keeps its record', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'kept' })
    h.flush()
    const record = h.live.get(RID)
    expect(h.live.begin(SID, RID, 'whatever history says')).toBe(2)
    expect(h.live.get(RID)).toBe(record)
  })

  it('reads as history has it until the first frame (historyStatus)', () => {
    const h = harness()
    h.live.begin(SID, RID, 'partial', 'streaming')
    expect(h.live.get(RID)).toMatchObject({ status: 'streaming', content: '', lastEventId: undefined })
  })

  it('keeps how many times tier 1 tried for a reload and the other tabs, the latest runs only', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'retrying', attempt: 2, max_attempts: 3, retry_at: T0 + 1000, code: 'model_unavailable' })
    h.frame({ type: 'retrying', attempt: 3, max_attempts: 3, retry_at: T0 + 3000, code: 'model_unavailable' })
    h.frame({ type: 'error', message: 'The model is unavailable.', code: 'model_unavailable' })
    expect(h.live.tier1AttemptsOf(RID)).toBe(3)

    // A page loaded after it (a reload, another tab) over the same storage.
    const reloaded = createLiveRunStore({ store: createKeyedStore(h.backend), schedule: () => () => {} })
    expect(reloaded.tier1AttemptsOf(RID)).toBe(3)
    expect(reloaded.tier1AttemptsOf('run_never_retried')).toBeUndefined()

    // Only the latest runs are kept: the oldest go first.
    for (let i = 0; i < TIER1_ATTEMPTS_LIMIT; i++) {
      h.live.begin(SID, `run_${i + 10}`, '')
      h.frame({ type: 'start', message_id: `msg_${i}` }, `run_${i + 10}`)
      h.frame({ type: 'retrying', attempt: 2, max_attempts: 3, retry_at: T0 + 1000, code: 'overloaded' }, `run_${i + 10}`)
    }
    const later = createLiveRunStore({ store: createKeyedStore(h.backend), schedule: () => () => {} })
    expect(later.tier1AttemptsOf(RID)).toBeUndefined()
    expect(later.tier1AttemptsOf(`run_${TIER1_ATTEMPTS_LIMIT + 9}`)).toBe(2)
    expect(later.tier1AttemptsOf('run_10')).toBe(2)
  })
})

describe('createLiveRunStore: the reattach point', () => {
  it('writes to storage at most a couple of times over 1,000 deltas within SAVE_EVERY_MS', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    for (let i = 0; i < 1000; i++) {
      h.frame({ type: 'delta', text: 'x' })
      h.advance((SAVE_EVERY_MS - 1) / 1000)
      if (i % 100 === 0) h.flush()
    }
    h.flush()
    expect(h.live.get(RID)!.content).toHaveLength(1000)
    expect(h.backend.setItem.mock.calls.length).toBeLessThanOrEqual(2)
    // Whatever was written is the reattach point, never the text.
    for (const [, value] of h.backend.setItem.mock.calls) expect(value).not.toContain('xxx')
  })

  it('writes the reattach point once SAVE_EVERY_MS has passed, with the text length and not the text', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'Hello, ' })
    expect(h.saved()).toBeUndefined()
    h.advance(SAVE_EVERY_MS)
    h.frame({ type: 'delta', text: 'world' })
    // Counted with the deltas not yet flushed.
    expect(h.saved()).toEqual({ sessionId: SID, lastEventId: 3, length: 'Hello, world'.length, parts: [{ type: 'text', length: 'Hello, world'.length }] })
    expect(h.backend.setItem).toHaveBeenCalledTimes(1)
    expect(h.backend.setItem.mock.calls[0]![1]).not.toContain('Hello')

    // The next save waits another SAVE_EVERY_MS.
    h.advance(SAVE_EVERY_MS - 1)
    h.frame({ type: 'delta', text: '!' })
    expect(h.backend.setItem).toHaveBeenCalledTimes(1)
    h.advance(1)
    h.frame({ type: 'delta', text: '!' })
    expect(h.backend.setItem).toHaveBeenCalledTimes(2)
    expect(h.saved()).toEqual({ sessionId: SID, lastEventId: 5, length: 'Hello, world!!'.length, parts: [{ type: 'text', length: 'Hello, world!!'.length }] })
  })

  it('writes the reattach point on persist(), for streaming runs only', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.live.begin(SID, 'run_done', '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'abc' })
    h.frame({ type: 'start', message_id: 'm2' }, 'run_done')
    h.frame({ type: 'done', message_id: 'm2' }, 'run_done')
    h.backend.setItem.mockClear()
    h.live.persist()
    expect(h.saved()).toEqual({ sessionId: SID, lastEventId: 2, length: 3, parts: [{ type: 'text', length: 3 }] })
    expect(h.saved('run_done')).toBeUndefined()
    expect(h.backend.setItem).toHaveBeenCalledTimes(1)
  })

  it('writes nothing on persist() before the first event (nothing to resume after)', () => {
    const h = harness()
    h.live.begin(SID, RID, '', 'queued')
    h.live.persist()
    expect(h.backend.setItem).not.toHaveBeenCalled()
  })

  it.each([
    ['done', { type: 'done', message_id: 'msg_reply' }],
    ['cancelled', { type: 'cancelled', message_id: 'msg_reply' }],
    ['error', { type: 'error', code: 'model_unavailable', message: 'Down.' }],
  ] as const)('removes the reattach point when the run ends (%s)', (_, end) => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'abc' })
    h.live.persist()
    expect(h.saved()).toBeDefined()
    h.frame(end)
    expect(h.saved()).toBeUndefined()
    expect(h.backend.removeItem).toHaveBeenCalledWith(storageKey(LIVE_RUN_NAMESPACE, RID))
  })

  it('forget() keeps the reattach point of a run still going, and drops the record', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    const listener = vi.fn()
    h.live.subscribe(RID, listener)
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'delta', text: 'abcd' })
    h.live.forget(RID)
    expect(h.live.get(RID)).toBeUndefined()
    expect(listener).toHaveBeenCalledTimes(1)
    expect(h.saved()).toEqual({ sessionId: SID, lastEventId: 2, length: 4, parts: [{ type: 'text', length: 4 }] })
  })

  it('begin() resumes from a saved point with history text sliced to the saved length', () => {
    const backend = spyBackend()
    const before = harness(backend)
    before.live.begin(SID, RID, '')
    before.frame({ type: 'start', message_id: 'msg_reply' })
    before.frame({ type: 'delta', text: 'Hello, ' })
    before.frame({ type: 'delta', text: 'wor' })
    before.live.persist()

    // A reload: a new store over the same storage; history has read further than the save.
    const after = harness(backend)
    expect(after.live.begin(SID, RID, 'Hello, world and more', 'streaming')).toBe(3)
    expect(after.live.get(RID)).toMatchObject({ status: 'streaming', content: 'Hello, wor', lastEventId: 3 })

    // The stream picks up after event 3; earlier ids are ignored.
    after.replay({ type: 'delta', id: 3, text: 'wor' })
    after.replay({ type: 'delta', id: 4, text: 'ld' })
    after.flush()
    expect(after.live.get(RID)!.content).toBe('Hello, world')
  })

  it('begin() replays from the start when history text is shorter than the saved length', () => {
    const backend = spyBackend()
    const before = harness(backend)
    before.live.begin(SID, RID, '')
    before.frame({ type: 'start', message_id: 'msg_reply' })
    before.frame({ type: 'delta', text: 'Hello, world' })
    before.live.persist()

    const after = harness(backend)
    expect(after.live.begin(SID, RID, 'Hello', 'streaming')).toBeUndefined()
    expect(after.live.get(RID)).toMatchObject({ status: 'streaming', content: '', lastEventId: undefined })
    // Replayed from the first event, the text is whole once.
    after.replay({ type: 'start', id: 1, message_id: 'msg_reply' })
    after.replay({ type: 'delta', id: 2, text: 'Hello, world' })
    after.flush()
    expect(after.live.get(RID)!.content).toBe('Hello, world')
  })

  it('begin() replays from the start when the saved point belongs to another session', () => {
    const backend = spyBackend()
    const before = harness(backend)
    before.live.begin('ses_other', RID, '')
    before.frame({ type: 'start', message_id: 'msg_reply' })
    before.frame({ type: 'delta', text: 'abc' })
    before.live.persist()

    const after = harness(backend)
    expect(after.live.begin(SID, RID, 'abc', 'streaming')).toBeUndefined()
    expect(after.live.get(RID)).toMatchObject({ sessionId: SID, content: '', lastEventId: undefined })
  })

  it('begin() ignores a saved point that does not match its schema', () => {
    const backend = spyBackend()
    backend.items.set(storageKey(LIVE_RUN_NAMESPACE, RID), JSON.stringify({ sessionId: SID, lastEventId: 'seven', length: 3 }))
    const h = harness(backend)
    expect(h.live.begin(SID, RID, 'abc', 'streaming')).toBeUndefined()
  })
})

describe('createLiveRunStore: fail() and dispose()', () => {
  it('fail() marks the run failed at once, with the error, and removes its reattach point', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'retrying', attempt: 2, max_attempts: 3, retry_at: T0 + 1000, code: 'model_unavailable' })
    h.frame({ type: 'delta', text: 'part' })
    h.live.persist()
    const listener = vi.fn()
    h.live.subscribe(RID, listener)
    h.live.fail(RID, { code: 'stream_ended', message: 'The live connection ended before the run finished.' })
    expect(listener).toHaveBeenCalledTimes(1)
    expect(h.live.get(RID)).toMatchObject({
      status: 'failed',
      content: 'part',
      error: { code: 'stream_ended', message: 'The live connection ended before the run finished.' },
      tier1: undefined,
    })
    expect(h.saved()).toBeUndefined()
  })

  it('fail() on a run it never began does nothing', () => {
    const h = harness()
    h.live.fail('run_unknown', { code: 'stream_ended', message: 'x' })
    expect(h.live.get('run_unknown')).toBeUndefined()
  })

  it('dispose() cancels the pending flush', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    expect(h.pendingFlushes()).toBe(1)
    h.live.dispose()
    expect(h.pendingFlushes()).toBe(0)
  })
})

describe('createLiveRunStore: agent steps', () => {
  it('shows a burst of step frames in one snapshot per flush, with the text parts as content', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.flush()
    const listener = vi.fn()
    h.live.subscribe(RID, listener)

    for (let i = 0; i < 100; i++) h.frame({ type: 'reasoning', text: 'r' })
    h.frame({ type: 'tool_call', tool_call_id: 't1', name: 'search_docs', effect: 'read' })
    for (let i = 0; i < 500; i++) h.frame({ type: 'tool_input', tool_call_id: 't1', delta: 'i' })
    for (let i = 0; i < 100; i++) h.frame({ type: 'delta', text: 'a' })
    expect(listener).not.toHaveBeenCalled()
    expect(h.live.get(RID)!.parts).toEqual([])
    expect(h.pendingFlushes()).toBe(1)

    expect(h.flush()).toBe(1)
    expect(listener).toHaveBeenCalledTimes(1)
    const first = h.live.get(RID)!
    expect(first.parts).toMatchObject([
      { type: 'reasoning', text: 'r'.repeat(100) },
      { type: 'tool', tool_call_id: 't1', input: 'i'.repeat(500), status: 'input', started_at: T0 },
      { type: 'text', text: 'a'.repeat(100) },
    ])
    expect(first.content).toBe(answerText(first.parts))

    // The next flush copies the one part that changed; the others are the same objects.
    for (let i = 0; i < 10; i++) h.frame({ type: 'tool_input', tool_call_id: 't1', delta: 'j' })
    h.flush()
    const second = h.live.get(RID)!
    expect(listener).toHaveBeenCalledTimes(2)
    expect(second.parts[0]).toBe(first.parts[0])
    expect(second.parts[1]).not.toBe(first.parts[1])
    expect(second.parts[2]).toBe(first.parts[2])
    expect(second.parts[1]).toMatchObject({ input: 'i'.repeat(500) + 'j'.repeat(10) })
    // Nothing to flush: the snapshot and its list stay.
    h.flush()
    expect(h.live.get(RID)).toBe(second)
  })

  it('keeps the last usage, and a replay from the first event starts the steps and the spend again', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'usage', input_tokens: 100, output_tokens: 5 })
    h.flush()
    expect(h.live.get(RID)!.usage).toEqual({ input_tokens: 100, output_tokens: 5 })
    h.frame({ type: 'delta', text: 'Hi' })
    h.frame({ type: 'usage', input_tokens: 180, output_tokens: 40, cost_usd: 0.012 })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ usage: { input_tokens: 180, output_tokens: 40, cost_usd: 0.012 }, parts: [{ type: 'text', text: 'Hi' }] })

    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ parts: [], content: '', unreadable: 0 })
    expect(h.live.get(RID)!.usage).toBeUndefined()
  })

  it('counts frames that make no sense and changes nothing else for them', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'retrying', attempt: 2, max_attempts: 3, retry_at: T0 + 1000, code: 'model_unavailable' })
    h.frame({ type: 'tool_input', tool_call_id: 'ghost', delta: '{}' })
    h.frame({ type: 'tool_result', tool_call_id: 'ghost', status: 'done', output_bytes: 0, output_truncated: false })
    h.flush()
    // Tier 1 is still waiting: a skipped frame is no output.
    expect(h.live.get(RID)).toMatchObject({ unreadable: 2, parts: [], lastEventId: 4, tier1: { attempt: 2 } })

    // The first step of any kind is output: tier 1 never retries after it.
    h.frame({ type: 'tool_call', tool_call_id: 't1', name: 'read_file', effect: 'read' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ unreadable: 2, status: 'streaming', tier1: undefined })
    expect(h.live.get(RID)!.parts).toHaveLength(1)
  })

  it('times the thinking on its own clock: from the first reasoning to the first frame after it', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'usage', input_tokens: 1, output_tokens: 0 })
    h.advance(1000)
    h.frame({ type: 'reasoning', text: 'Hmm' })
    h.advance(4000)
    h.frame({ type: 'reasoning', text: '…' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ reasoningStartedAt: T0 + 1000 })
    expect(h.live.get(RID)!.reasoningEndedAt).toBeUndefined()
    h.advance(200)
    h.frame({ type: 'delta', text: 'Answer' })
    // A second spell of thinking changes neither time.
    h.advance(1000)
    h.frame({ type: 'reasoning', text: 'more' })
    h.frame({ type: 'delta', text: '!' })
    h.flush()
    expect(h.live.get(RID)).toMatchObject({ reasoningStartedAt: T0 + 1000, reasoningEndedAt: T0 + 5200 })
  })
})

/** A run with every kind of step: thinking, text, two tools at once (one asking approval), usage. */
const STEPS: StreamFrame[] = (
  [
    { type: 'start', message_id: 'msg_reply' },
    { type: 'reasoning', text: 'Two files ' },
    { type: 'reasoning', text: 'to touch.' },
    { type: 'usage', input_tokens: 50, output_tokens: 4 },
    { type: 'delta', text: 'Reading ' },
    { type: 'delta', text: 'first. ' },
    { type: 'tool_call', tool_call_id: 'a', name: 'read_file', effect: 'read' },
    { type: 'tool_call', tool_call_id: 'b', name: 'write_file', effect: 'write' },
    { type: 'tool_input', tool_call_id: 'a', delta: '{"path":' },
    { type: 'tool_input', tool_call_id: 'b', delta: '{"path":"out",' },
    { type: 'tool_input', tool_call_id: 'ghost', delta: 'x' },
    { type: 'tool_input', tool_call_id: 'a', delta: '"in"}' },
    { type: 'tool_running', tool_call_id: 'a' },
    { type: 'tool_input', tool_call_id: 'b', delta: '"text":"hi"}' },
    { type: 'tool_approval', tool_call_id: 'b', reason: 'Writes out.' },
    { type: 'tool_result', tool_call_id: 'a', status: 'done', output: 'IN', output_bytes: 2, output_truncated: false },
    { type: 'usage', input_tokens: 90, output_tokens: 30, cost_usd: 0.01 },
    { type: 'tool_running', tool_call_id: 'b' },
    { type: 'tool_result', tool_call_id: 'b', status: 'done', output: 'ok', output_bytes: 2, output_truncated: false },
    { type: 'delta', text: 'Wrote ' },
    { type: 'delta', text: 'it.' },
    { type: 'usage', input_tokens: 120, output_tokens: 44, cost_usd: 0.02 },
  ] as DistributiveOmit<StreamFrame, 'id'>[]
).map((frame, i) => ({ ...frame, id: i + 1 }) as StreamFrame)

/** Feeds frames to a harness's store, each at T0 + 10 ms × its id, and flushes. */
function play(h: Harness, frames: readonly StreamFrame[]) {
  for (const frame of frames) {
    h.at(T0 + frame.id * 10)
    h.replay(frame)
  }
  h.flush()
}

/** The run as a page that never reloaded has it after the first `n` frames of STEPS. */
function uninterrupted(n: number): LiveRun {
  const h = harness()
  h.live.begin(SID, RID, '')
  play(h, STEPS.slice(0, n))
  return h.live.get(RID)!
}

/** The reply as history has it once the daemon has persisted the first `n` frames of STEPS. */
function historyAfter(n: number): Message {
  const run = uninterrupted(n)
  return agentMessage({ status: 'streaming', content: run.content, parts: run.parts as Part[], ...(run.usage ? { usage: run.usage } : {}) })
}

describe('createLiveRunStore: a reload in the middle of the steps', () => {
  it('for every saved point and every history read, shows what a page that never reloaded shows', () => {
    const whole = overlay(historyAfter(STEPS.length), uninterrupted(STEPS.length))
    expect(whole.parts).toHaveLength(5)
    expect(whole.usage).toEqual({ input_tokens: 120, output_tokens: 44, cost_usd: 0.02 })
    for (let saved = 1; saved <= STEPS.length; saved++) {
      for (let read = 0; read <= STEPS.length; read++) {
        const label = `saved after ${saved}, history after ${read}`
        const backend = spyBackend()
        const before = harness(backend)
        before.live.begin(SID, RID, '')
        play(before, STEPS.slice(0, saved))
        before.live.persist()
        expect(JSON.stringify(before.saved()), label).not.toMatch(/Reading|first|in"|Two files/)

        // The reload: a new store over the same storage, and history read at some later moment.
        const history = historyAfter(read)
        const after = harness(backend)
        const resumeAfter = after.live.begin(SID, RID, history.content, 'streaming', history.parts)
        if (read >= saved) {
          expect(resumeAfter, label).toBe(saved)
          // Before the first new frame it shows what the stream had shown at the save.
          expect(after.live.get(RID)!.parts, label).toEqual(uninterrupted(saved).parts)
        } else if (resumeAfter === undefined) {
          expect(after.live.get(RID)!.parts, label).toEqual([])
        } else {
          // History one or more frames short of the save, in nothing a frame after it adds to.
          expect(resumeAfter, label).toBe(saved)
        }
        play(after, STEPS.filter((frame) => frame.id > (resumeAfter ?? 0)))
        const shown = overlay(history, after.live.get(RID))
        expect(shown.parts, label).toEqual(whole.parts)
        expect(shown.content, label).toBe(whole.content)
        expect(shown.usage, label).toEqual(whole.usage)
        expect(after.live.get(RID)!.unreadable, label).toBe(1)
        expect(after.live.get(RID)!.reasoningStartedAt, label).toBe(T0 + 20)
        expect(after.live.get(RID)!.reasoningEndedAt, label).toBe(T0 + 40)
      }
    }
  })

  it('saves the shape of the parts at most once per SAVE_EVERY_MS, pending pieces included', () => {
    const h = harness()
    h.live.begin(SID, RID, '')
    h.frame({ type: 'start', message_id: 'msg_reply' })
    h.frame({ type: 'tool_call', tool_call_id: 't1', name: 'write_file', effect: 'write' })
    for (let i = 0; i < 1000; i++) h.frame({ type: 'tool_input', tool_call_id: 't1', delta: 'ab' })
    expect(h.backend.setItem).not.toHaveBeenCalled()
    h.advance(SAVE_EVERY_MS)
    h.frame({ type: 'tool_approval', tool_call_id: 't1', reason: 'Writes a file.' })
    expect(h.backend.setItem).toHaveBeenCalledTimes(1)
    expect(h.saved()).toEqual({
      sessionId: SID,
      lastEventId: 1003,
      length: 0,
      parts: [{ type: 'tool', id: 't1', length: 2000, status: 'awaiting_approval', reason: 'Writes a file.', started_at: T0 }],
    })
  })

  it('resumes from a point saved before parts were kept when history holds only text', () => {
    const backend = spyBackend()
    backend.items.set(storageKey(LIVE_RUN_NAMESPACE, RID), JSON.stringify({ sessionId: SID, lastEventId: 2, length: 3 }))
    const h = harness(backend)
    expect(h.live.begin(SID, RID, 'abcdef', 'streaming')).toBe(2)
    expect(h.live.get(RID)).toMatchObject({ content: 'abc', parts: [{ type: 'text', text: 'abc' }] })

    // The same point over a history that starts with a step that client never saw: from the start.
    const other = harness(backend)
    const parts: Part[] = [
      { type: 'reasoning', text: 'r' },
      { type: 'text', text: 'abcdef' },
    ]
    expect(other.live.begin(SID, RID, 'abcdef', 'streaming', parts)).toBeUndefined()
  })

  it('replays from the start when a saved point and history disagree on the text', () => {
    const backend = spyBackend()
    backend.items.set(storageKey(LIVE_RUN_NAMESPACE, RID), JSON.stringify({ sessionId: SID, lastEventId: 2, length: 5, parts: [{ type: 'text', length: 3 }] }))
    const h = harness(backend)
    expect(h.live.begin(SID, RID, 'abcdef', 'streaming')).toBeUndefined()
  })
})

describe('frameOrTimeout', () => {
  it('flushes after 50 ms where there are no animation frames, once, and can be cancelled', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    try {
      const flush = vi.fn()
      frameOrTimeout(flush)
      vi.advanceTimersByTime(49)
      expect(flush).not.toHaveBeenCalled()
      vi.advanceTimersByTime(1)
      expect(flush).toHaveBeenCalledTimes(1)
      vi.advanceTimersByTime(1000)
      expect(flush).toHaveBeenCalledTimes(1)

      const cancelled = vi.fn()
      const cancel = frameOrTimeout(cancelled)
      cancel()
      vi.advanceTimersByTime(1000)
      expect(cancelled).not.toHaveBeenCalled()
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('yieldingToInput', () => {
  /** Frames run by hand, a clock moved by hand, and the time of the last key (or click). */
  function frames() {
    let now = 1_000
    let lastKey = -Infinity
    let lastClick = -Infinity
    const queued: Array<() => void> = []
    const next = (run: () => void) => {
      queued.push(run)
      return () => {
        const at = queued.indexOf(run)
        if (at >= 0) queued.splice(at, 1)
      }
    }
    const schedule = yieldingToInput(next, { now: () => now, lastInputAt: () => Math.max(lastKey, lastClick), lastKeyAt: () => lastKey })
    const frame = () => {
      now += 16.7
      queued.splice(0).forEach((run) => run())
    }
    /** Frames until `ms` have passed. */
    const wait = (ms: number) => {
      const until = now + ms
      while (now + 16.7 <= until) frame()
    }
    return { schedule, frame, wait, key: () => (lastKey = now), click: () => (lastClick = now), pending: () => queued.length }
  }

  /** A stream being shown as the operator types: a flush, then a key `ago` ms before now. */
  function typingAlong(ago: number) {
    const f = frames()
    f.schedule(() => undefined)
    f.frame()
    f.frame()
    f.key()
    f.wait(ago)
    return f
  }

  it('flushes at the next frame when no key was pressed', () => {
    const f = frames()
    const flush = vi.fn()
    f.schedule(flush)
    f.frame()
    expect(flush).toHaveBeenCalledTimes(1)
    expect(f.pending()).toBe(0)
  })

  it('leaves the frame that paints a key to the key, and flushes in the one after', () => {
    const f = frames()
    const flush = vi.fn()
    f.schedule(flush)
    f.key()
    f.frame()
    expect(flush).not.toHaveBeenCalled()
    f.frame()
    expect(flush).toHaveBeenCalledTimes(1)
  })

  it('waits at most MAX_INPUT_DEFERRALS frames while keys keep coming, and can be cancelled', () => {
    const f = frames()
    const flush = vi.fn()
    f.schedule(flush)
    for (let i = 0; i < MAX_INPUT_DEFERRALS; i++) {
      f.key()
      f.frame()
      expect(flush).not.toHaveBeenCalled()
    }
    f.key()
    f.frame()
    expect(flush).toHaveBeenCalledTimes(1)

    const cancelled = vi.fn()
    const cancel = f.schedule(cancelled)
    f.key()
    f.frame()
    cancel()
    f.frame()
    f.frame()
    expect(cancelled).not.toHaveBeenCalled()
    expect(f.pending()).toBe(0)
  })

  it('while the operator types, flushes in the quiet just after a key, not as the next one is due', () => {
    const f = typingAlong(AFTER_KEY_MS + 5)
    const flush = vi.fn()
    f.schedule(flush)
    f.frame()
    f.frame()
    expect(flush).not.toHaveBeenCalled()
    // The next key comes: its frame is its own, and the flush runs in the one after.
    f.key()
    f.frame()
    expect(flush).not.toHaveBeenCalled()
    f.frame()
    expect(flush).toHaveBeenCalledTimes(1)
  })

  it('waits at most MAX_TYPING_WAIT_MS for a key that does not come', () => {
    const f = typingAlong(AFTER_KEY_MS + 5)
    const flush = vi.fn()
    f.schedule(flush)
    f.wait(MAX_TYPING_WAIT_MS - 17)
    expect(flush).not.toHaveBeenCalled()
    f.wait(34)
    expect(flush).toHaveBeenCalledTimes(1)
  })

  it('holds no flush for a key after a send or a pause, nor after a click', () => {
    // The first text after a send with Enter: the run's first update, and nothing waits.
    const sent = frames()
    sent.key()
    sent.wait(AFTER_KEY_MS + 5)
    const first = vi.fn()
    sent.schedule(first)
    sent.frame()
    expect(first).toHaveBeenCalledTimes(1)

    // Text after a pause in the stream (a tool ran) while the operator typed: shown at once.
    const paused = typingAlong(STREAM_PAUSE_MS)
    const resumed = vi.fn()
    paused.schedule(resumed)
    paused.frame()
    expect(resumed).toHaveBeenCalledTimes(1)

    // A click is not typing: nothing waits for a next key after one.
    const clicked = frames()
    clicked.schedule(() => undefined)
    clicked.frame()
    clicked.click()
    clicked.wait(AFTER_KEY_MS + 5)
    const after = vi.fn()
    clicked.schedule(after)
    clicked.frame()
    expect(after).toHaveBeenCalledTimes(1)
  })
})

describe('overlay', () => {
  it('shows history when there is no live record, whatever history says', () => {
    for (const status of ['queued', 'streaming', 'complete', 'failed'] as const) {
      const message = agentMessage({ status, content: 'from history' })
      const shown = overlay(message, undefined)
      expect(shown).toEqual({ ...message, source: 'history' })
    }
  })

  it('lays the stream over history while history shows the run active', () => {
    const message = agentMessage({ status: 'streaming', content: 'old' })
    const shown = overlay(message, liveRun({ content: 'newer text' }))
    expect(shown).toMatchObject({ id: 'msg_reply', content: 'newer text', status: 'streaming', source: 'stream' })
    expect(shown.error).toBeUndefined()
    expect(shown.tier1).toBeUndefined()
    expect(shown.position).toBeUndefined()
  })

  it('carries the stream’s tier 1 wait, queue position and error while history is active', () => {
    const tier1 = { attempt: 2, maxAttempts: 3, retryAt: T0 + 1000, code: 'model_unavailable' }
    expect(overlay(agentMessage({ status: 'queued' }), liveRun({ status: 'queued', content: '', position: 1 }))).toMatchObject({
      status: 'queued',
      position: 1,
      source: 'stream',
    })
    expect(overlay(agentMessage(), liveRun({ tier1 }))).toMatchObject({ tier1, source: 'stream' })
    const error = { code: 'stream_ended', message: 'Ended early.' }
    expect(overlay(agentMessage(), liveRun({ status: 'failed', error }))).toMatchObject({ status: 'failed', error, source: 'stream' })
  })

  it('keeps the stream’s end (done before history knows) while history still shows it active', () => {
    const shown = overlay(agentMessage({ status: 'streaming', content: 'Hel' }), liveRun({ status: 'complete', content: 'Hello.' }))
    expect(shown).toMatchObject({ status: 'complete', content: 'Hello.', source: 'stream' })
  })

  it('shows history once it records the end, over whatever the stream had', () => {
    for (const status of ['complete', 'failed', 'cancelled'] as const) {
      const message = agentMessage({
        status,
        content: 'persisted',
        ...(status === 'failed'
          ? { error: { code: 'model_rate_limited', message: 'Rate limited.' }, retry: { retryable: true, retry_class: 'rate_limited' as const } }
          : {}),
      })
      const shown = overlay(message, liveRun({ status: 'streaming', content: 'stream copy', tier1: { attempt: 2, maxAttempts: 3, retryAt: 0, code: 'x' } }))
      expect(shown).toEqual({ ...message, source: 'history' })
    }
  })

  it('leaves the history message itself untouched', () => {
    const message = agentMessage({ content: 'old' })
    const copy = structuredClone(message)
    overlay(message, liveRun({ content: 'new', error: { code: 'stream_ended', message: 'x' } }))
    expect(message).toEqual(copy)
  })

  it('shows the stream’s steps and usage while it is the source, never history’s', () => {
    const parts: LivePart[] = [{ type: 'tool', tool_call_id: 't1', name: 'read_file', effect: 'read', input: '{}', status: 'running', started_at: T0 }]
    const message = agentMessage({ parts: [{ type: 'text', text: 'old' }], usage: { input_tokens: 1, output_tokens: 1 } })
    const shown = overlay(message, liveRun({ parts, usage: { input_tokens: 9, output_tokens: 3 } }))
    expect(shown).toMatchObject({ source: 'stream', usage: { input_tokens: 9, output_tokens: 3 } })
    expect(shown.parts).toBe(parts)
    // A stream that has reported no spend yet shows none, rather than an older read's.
    expect(overlay(message, liveRun({ parts })).usage).toBeUndefined()
  })

  it('shows history’s steps and usage once it records the end, with the stream’s timing of the thinking', () => {
    const message = agentMessage({ status: 'complete', parts: [{ type: 'text', text: 'persisted' }], usage: { input_tokens: 5, output_tokens: 2 } })
    const shown = overlay(message, liveRun({ status: 'complete', parts: [], reasoningStartedAt: T0, reasoningEndedAt: T0 + 4000 }))
    expect(shown).toEqual({ ...message, source: 'history', reasoningStartedAt: T0, reasoningEndedAt: T0 + 4000 })
  })
})

describe('news of a failed tool', () => {
  it('tells the session once, with the tool\'s name and its error; a tool that succeeds is no news', () => {
    const h = harness()
    h.live.begin(SID, RID, '', 'streaming')
    const heard = vi.fn()
    h.live.subscribeNews(SID, heard)
    h.frame({ type: 'start', message_id: 'msg_1' })
    h.frame({ type: 'tool_call', tool_call_id: 't1', name: 'search_docs', effect: 'read' })
    h.frame({ type: 'tool_running', tool_call_id: 't1' })
    h.frame({ type: 'tool_result', tool_call_id: 't1', status: 'done', output: 'ok', output_bytes: 2, output_truncated: false })
    expect(heard).not.toHaveBeenCalled()
    h.frame({ type: 'tool_call', tool_call_id: 't2', name: 'read_file', effect: 'read' })
    h.frame({ type: 'tool_running', tool_call_id: 't2' })
    h.frame({ type: 'tool_result', tool_call_id: 't2', status: 'failed', output_bytes: 0, output_truncated: false, error: { code: 'tool_failed', message: 'no such file' } })
    expect(heard).toHaveBeenCalledTimes(1)
    expect(h.live.news(SID)).toMatchObject({ kind: 'toolFailed', runId: RID, name: 'read_file', error: { code: 'tool_failed' } })
    // A result for a tool the run never called is skipped, not news.
    h.frame({ type: 'tool_result', tool_call_id: 'ghost', status: 'failed', output_bytes: 0, output_truncated: false })
    expect(heard).toHaveBeenCalledTimes(1)
  })
})

describe('tool times on a replay from the first event', () => {
  it('keep the daemon\'s times from history, not the moment the replay came through', () => {
    const h = harness()
    const started = T0 - 5_000
    const history: Part[] = [{ type: 'tool', tool_call_id: 't1', name: 'long_tool', effect: 'read', input: '{}', status: 'running', started_at: started }]
    // No saved reattach point (a second tab): the stream replays from its first event.
    expect(h.live.begin(SID, RID, '', 'streaming', history)).toBeUndefined()
    h.frame({ type: 'start', message_id: 'msg_1' })
    h.frame({ type: 'tool_call', tool_call_id: 't1', name: 'long_tool', effect: 'read' })
    h.frame({ type: 'tool_running', tool_call_id: 't1' })
    h.frame({ type: 'tool_call', tool_call_id: 't2', name: 'search_docs', effect: 'read' })
    h.flush()
    const tools = h.live.get(RID)!.parts.filter((p) => p.type === 'tool')
    expect(tools.map((t) => t.started_at)).toEqual([started, T0])
  })
})
