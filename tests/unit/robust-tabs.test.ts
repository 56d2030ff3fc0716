/**
 * Tier 2 beyond one tab, in node: two (or three) schedulers over one shared storage backend, one
 * tab hub (the BroadcastChannel stand-in) and one lock manager (the Web Locks stand-in), with a
 * fake daemon client they share. Reload is a scheduler disposed and a new one over the same
 * backend; offline is a fake network source; skew is a `fromDaemon` on the clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { NetworkSource } from '../../src/retry/browser'
import { createRetryScheduler, type RetryScheduler } from '../../src/retry/scheduler'
import { createRetryBoard } from '../../src/retry/board'
import { retryView, type RetryView } from '../../src/retry/view'
import { createKeyedStore } from '../../src/storage/keyed-store'
import { createLocalLocks, type LockManagerLike } from '../../src/storage/locks'
import { createTabHub, type TabHub } from '../../src/storage/tab-channel'
import type { CancelReceipt, Message, RegenerateReceipt } from '../../src/wire/types'
import { failedReply, SID } from './retry-fixtures'
import { memoryBackend } from './memory-backend'

const NOW = Date.UTC(2026, 6, 1, 12)
const SECOND = 1000
const MINUTE = 60 * SECOND

const operator = (id: string): Message => ({ id, session_id: SID, role: 'operator', content: id, created_at: NOW - MINUTE, superseded: false })
const failed = failedReply

/** A fake network: online until told otherwise. */
function fakeNetwork(): NetworkSource & { set(online: boolean): void } {
  let online = true
  const listeners = new Set<(online: boolean) => void>()
  return {
    online: () => online,
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    set(next) {
      online = next
      for (const listener of [...listeners]) listener(next)
    },
  }
}

type Shared = {
  backend: ReturnType<typeof memoryBackend>
  hub: TabHub
  locks: LockManagerLike
  /** Every regenerate any tab sent, with its signal. */
  regenerates: { tab: string; anchorId: string; signal: AbortSignal | undefined; resolve: (r: RegenerateReceipt) => void; reject: (e: unknown) => void }[]
  cancels: { tab: string; runId: string }[]
  history: { current: Message[] }
  autoAccept: boolean
  runs: number
}

function shared(): Shared {
  return { backend: memoryBackend(), hub: createTabHub(), locks: createLocalLocks(), regenerates: [], cancels: [], history: { current: [] }, autoAccept: false, runs: 0 }
}

/** One tab: a scheduler over the shared world. */
function tab(world: Shared, name: string, options: { network?: NetworkSource; fromDaemon?: (ms: number) => number } = {}) {
  const store = createKeyedStore(world.backend, { channel: world.hub.channel() })
  const scheduler = createRetryScheduler({
    client: {
      regenerate: (_sid: string, anchorId: string, signal?: AbortSignal) =>
        new Promise<RegenerateReceipt>((resolve, reject) => {
          world.regenerates.push({ tab: name, anchorId, signal, resolve, reject })
          signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')))
          if (world.autoAccept) resolve({ run_id: `run_g${++world.runs}`, superseded: [], queued: false })
        }),
      cancelRun: async (_sid: string, runId: string): Promise<CancelReceipt> => {
        world.cancels.push({ tab: name, runId })
        return { run_id: runId, status: 'cancelled' }
      },
      listMessagesPage: async () => ({ messages: world.history.current, has_more: false, skipped: 0 }),
    },
    clock: { now: () => Date.now(), ...(options.fromDaemon ? { fromDaemon: options.fromDaemon } : {}) },
    store,
    refreshHistory: () => {},
    wake: () => () => {},
    locks: world.locks,
    network: options.network ?? fakeNetwork(),
  })
  const view = (anchorId = 'op1'): RetryView | undefined => {
    const snapshot = scheduler.snapshot(SID).get(anchorId)
    return snapshot && retryView(snapshot, Date.now())
  }
  return { scheduler, view, store }
}

/** Lets microtasks (hub delivery, lock hand-over, promise actors) run. */
const settle = () => vi.advanceTimersByTimeAsync(0)

let schedulers: RetryScheduler[] = []
const open = (world: Shared, name: string, options?: Parameters<typeof tab>[2]) => {
  const t = tab(world, name, options)
  schedulers.push(t.scheduler)
  return t
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
  schedulers = []
})

afterEach(() => {
  for (const s of schedulers) s.dispose()
  vi.useRealTimers()
})

describe('two tabs on one session', () => {
  it('show the same attempt and the same deadline, whichever read history first', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), failed('f1', 'op1')]
    a.scheduler.feed(SID, history)
    await vi.advanceTimersByTimeAsync(700)
    b.scheduler.feed(SID, history)
    await settle()
    expect(a.view()).toMatchObject({ status: 'armed', attempt: 1, deadline: NOW + 2 * SECOND })
    expect(b.view()).toMatchObject({ status: 'armed', attempt: 1, deadline: NOW + 2 * SECOND, remainingMs: 1300 })
  })

  it('dispatch each attempt from exactly one tab; the other follows the run it started', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), failed('f1', 'op1')]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    expect(world.regenerates).toHaveLength(1)
    expect(a.view()?.status).toBe('dispatching')
    expect(b.view()?.status).toBe('dispatching')
    world.regenerates[0]!.resolve({ run_id: 'run_2', superseded: ['f1'], queued: false })
    await settle()
    await settle()
    expect(world.regenerates).toHaveLength(1)
    for (const t of [a, b]) {
      expect(t.view()?.status).toBe('watching')
      expect(t.scheduler.snapshot(SID).get('op1')!.context.runId).toBe('run_2')
    }
  })

  it('a tab that did not send sees the run fail and arms the next attempt with the same deadline', async () => {
    const world = shared()
    world.autoAccept = true
    const a = open(world, 'a')
    const b = open(world, 'b')
    const first = [operator('op1'), failed('f1', 'op1')]
    a.scheduler.feed(SID, first)
    b.scheduler.feed(SID, first)
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    await settle()
    const runId = a.scheduler.snapshot(SID).get('op1')!.context.runId!
    const second = [operator('op1'), { ...failed('f1', 'op1'), superseded: true }, failed('f2', 'op1', { run_id: runId })]
    a.scheduler.feed(SID, second)
    await vi.advanceTimersByTimeAsync(300)
    b.scheduler.feed(SID, second)
    await settle()
    expect(a.view()).toMatchObject({ status: 'armed', attempt: 2 })
    expect(b.view()).toMatchObject({ status: 'armed', attempt: 2, deadline: a.view()!.deadline })
    await vi.advanceTimersByTimeAsync(4 * SECOND)
    await settle()
    expect(world.regenerates).toHaveLength(2)
  })

  it('a cancel in one tab is a cancel in all, and is never sent later by the other', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), failed('f1', 'op1')]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await settle()
    a.scheduler.cancel(SID, 'op1')
    await settle()
    expect(b.view()?.status).toBe('cancelled')
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(0)
    // Fed again (the next history read), the cancelled failure never re-arms in either tab.
    b.scheduler.feed(SID, history)
    a.scheduler.feed(SID, history)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(0)
  })

  it('a cancel in one tab while the other is sending aborts that request and revokes what was accepted', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), failed('f1', 'op1')]
    b.scheduler.feed(SID, history)
    await settle()
    a.scheduler.feed(SID, history)
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    expect(world.regenerates).toHaveLength(1)
    const sent = world.regenerates[0]!
    a.scheduler.cancel(SID, 'op1')
    await settle()
    await settle()
    expect(sent.signal?.aborted).toBe(true)
    expect(a.view()?.status).toBe('cancelled')
    expect(b.view()?.status).toBe('cancelled')
    expect(world.regenerates).toHaveLength(1)
  })

  it('a regenerate by hand in one tab ends the countdown in the other', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), failed('f1', 'op1')]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await settle()
    a.scheduler.dismiss(SID, 'op1')
    await settle()
    expect(b.view()).toBeUndefined()
    await vi.advanceTimersByTimeAsync(MINUTE)
    expect(world.regenerates).toHaveLength(0)
  })

  it('a tab that waited for the lock after the other lost the attempt counts down to the next one with it', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), failed('f1', 'op1')]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    expect(world.regenerates).toHaveLength(1)
    world.regenerates[0]!.reject(new TypeError('Failed to fetch'))
    await settle()
    await settle()
    expect(world.regenerates).toHaveLength(1)
    expect(a.view()).toMatchObject({ status: 'armed', attempt: 2 })
    expect(b.view()).toMatchObject({ status: 'armed', attempt: 2, deadline: a.view()!.deadline })
  })
})

describe('reloads', () => {
  it('an armed retry survives a reload with its attempt number and deadline', async () => {
    const world = shared()
    world.autoAccept = true
    const first = open(world, 'a')
    first.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1')])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    const runId = first.scheduler.snapshot(SID).get('op1')!.context.runId!
    const history = [operator('op1'), { ...failed('f1', 'op1'), superseded: true }, failed('f2', 'op1', { run_id: runId })]
    first.scheduler.feed(SID, history)
    const before = first.view()!
    expect(before).toMatchObject({ status: 'armed', attempt: 2, deadline: Date.now() + 4 * SECOND })
    await vi.advanceTimersByTimeAsync(1500)
    first.scheduler.dispose()

    const reloaded = open(world, 'a-again')
    reloaded.scheduler.feed(SID, history)
    expect(reloaded.view()).toMatchObject({ status: 'armed', attempt: 2, deadline: before.deadline, remainingMs: 2500 })
    await vi.advanceTimersByTimeAsync(2500)
    expect(world.regenerates).toHaveLength(2)
  })

  it('a paused "retry after HH:MM" survives a reload, still firing at that time', async () => {
    const world = shared()
    const until = NOW + 50 * MINUTE
    const history = [operator('op1'), failed('f1', 'op1', { retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: until } })]
    const first = open(world, 'a')
    first.scheduler.feed(SID, history)
    expect(first.view()).toMatchObject({ status: 'paused', deadline: until })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    first.scheduler.dispose()
    const reloaded = open(world, 'b')
    reloaded.scheduler.feed(SID, history)
    expect(reloaded.view()).toMatchObject({ status: 'paused', attempt: 1, deadline: until })
    await vi.advanceTimersByTimeAsync(40 * MINUTE - 1)
    expect(world.regenerates).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(world.regenerates).toHaveLength(1)
  })

  it('restores nothing when history no longer shows that failure at the tail', async () => {
    const world = shared()
    const first = open(world, 'a')
    first.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1')])
    await vi.advanceTimersByTimeAsync(SECOND)
    first.scheduler.dispose()
    const reloaded = open(world, 'b')
    reloaded.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1'), operator('op2')])
    expect(reloaded.view()).toBeUndefined()
    expect(reloaded.view('op2')).toBeUndefined()
  })
})

describe('offline', () => {
  it('waits for the network without burning the attempt, and fires at once when back online', async () => {
    const world = shared()
    const network = fakeNetwork()
    const a = open(world, 'a', { network })
    a.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1')])
    network.set(false)
    expect(a.view()).toMatchObject({ status: 'armed', attempt: 1, waitingForNetwork: true })
    await vi.advanceTimersByTimeAsync(5 * MINUTE)
    expect(world.regenerates).toHaveLength(0)
    expect(a.view()).toMatchObject({ status: 'armed', attempt: 1, waitingForNetwork: true, remainingMs: 0 })
    network.set(true)
    expect(world.regenerates).toHaveLength(1)
    expect(a.view()?.status).toBe('dispatching')
  })

  it('a regenerate lost because the browser went offline keeps its attempt', async () => {
    const world = shared()
    const network = fakeNetwork()
    const a = open(world, 'a', { network })
    a.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1')])
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    network.set(false)
    world.regenerates[0]!.reject(new TypeError('Failed to fetch'))
    await settle()
    expect(a.view()).toMatchObject({ status: 'armed', attempt: 1, waitingForNetwork: true })
    network.set(true)
    expect(world.regenerates).toHaveLength(2)
    expect(a.scheduler.snapshot(SID).get('op1')!.context.attempt).toBe(1)
  })

  it('back online before the deadline, the countdown simply goes on', async () => {
    const world = shared()
    const network = fakeNetwork()
    const a = open(world, 'a', { network })
    a.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1')])
    network.set(false)
    await vi.advanceTimersByTimeAsync(500)
    network.set(true)
    expect(a.view()).toMatchObject({ status: 'armed', waitingForNetwork: false, remainingMs: 1500 })
    await vi.advanceTimersByTimeAsync(1500)
    expect(world.regenerates).toHaveLength(1)
  })
})

describe('clock skew', () => {
  it.each([
    ['10 minutes fast', 10 * MINUTE],
    ['10 minutes slow', -10 * MINUTE],
  ])('a browser clock %s neither fires early nor waits the skew too long', async (_, skew) => {
    const world = shared()
    // The browser's clock is the fake Date; the daemon's is `skew` behind it.
    const daemonNow = () => Date.now() - skew
    const a = open(world, 'a', { fromDaemon: (ms) => ms + skew })
    const until = daemonNow() + 20 * MINUTE
    a.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1', { retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: until } })])
    expect(a.view()).toMatchObject({ status: 'paused', deadline: Date.now() + 20 * MINUTE })
    await vi.advanceTimersByTimeAsync(20 * MINUTE - 1)
    expect(world.regenerates).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(world.regenerates).toHaveLength(1)
  })
})

describe('held: a failed reply whose write tool ran', () => {
  const parts: Message['parts'] = [
    { type: 'tool', tool_call_id: 'tc_1', name: 'write_file', effect: 'write', input: '{}', status: 'done', started_at: NOW, ended_at: NOW },
  ]
  const wrote = (id: string, extra: Partial<Message> = {}) => failed(id, 'op1', { retry: { retryable: true, retry_class: 'overloaded' }, parts, ...extra })

  it('every tab shows it held, naming the tool, and no tab regenerates however long they wait', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), wrote('f1')]
    a.scheduler.feed(SID, history)
    await settle()
    b.scheduler.feed(SID, history)
    await settle()
    for (const t of [a, b]) expect(t.view()).toMatchObject({ status: 'held', attempt: 1, deadline: null, rerun: ['write_file'] })
    expect(createRetryBoard(createKeyedStore(world.backend)).read(SID, 'op1')).toMatchObject({ failureId: 'f1', phase: 'armed', held: ['write_file'] })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(0)
  })

  it('Retry now in one tab regenerates once; the other lets go once history shows the new reply', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), wrote('f1')]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await settle()
    a.scheduler.retryNow(SID, 'op1')
    await settle()
    expect(world.regenerates).toHaveLength(1)
    world.regenerates[0]!.resolve({ run_id: 'run_2', superseded: ['f1'], queued: false })
    await settle()
    expect(a.view()?.status).toBe('watching')
    const next = [operator('op1'), { ...wrote('f1'), superseded: true }, { ...failed('r2', 'op1'), run_id: 'run_2', status: 'streaming' as const, retry: undefined, error: undefined }]
    b.scheduler.feed(SID, next)
    await settle()
    expect(b.view()).toBeUndefined()
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(1)
  })

  it('a cancel in one tab is a cancel in all', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), wrote('f1')]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await settle()
    b.scheduler.cancel(SID, 'op1')
    await settle()
    expect(a.view()?.status).toBe('cancelled')
    a.scheduler.feed(SID, history)
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(0)
  })

  it('a held attempt lost in one tab is held again at the next attempt in every tab', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const history = [operator('op1'), wrote('f1')]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await settle()
    a.scheduler.retryNow(SID, 'op1')
    await settle()
    world.regenerates[0]!.reject(new TypeError('Failed to fetch'))
    await settle()
    await settle()
    for (const t of [a, b]) expect(t.view()).toMatchObject({ status: 'held', attempt: 2, rerun: ['write_file'] })
    expect(createRetryBoard(createKeyedStore(world.backend)).read(SID, 'op1')).toMatchObject({ phase: 'armed', attempt: 2, held: ['write_file'] })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(1)
  })

  it('survives a reload held, at its attempt, not counting down', async () => {
    const world = shared()
    const history = [operator('op1'), wrote('f1')]
    const first = open(world, 'a')
    first.scheduler.feed(SID, history)
    first.scheduler.retryNow(SID, 'op1')
    await settle()
    world.regenerates[0]!.reject(new TypeError('Failed to fetch'))
    await settle()
    expect(first.view()).toMatchObject({ status: 'held', attempt: 2 })
    first.scheduler.dispose()

    const reloaded = open(world, 'a-again')
    reloaded.scheduler.feed(SID, history)
    expect(reloaded.view()).toMatchObject({ status: 'held', attempt: 2, deadline: null, rerun: ['write_file'] })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(1)
  })

  it('the board keeps the hold: a reload whose read lost the reply\'s steps is still held', async () => {
    const world = shared()
    const first = open(world, 'a')
    first.scheduler.feed(SID, [operator('op1'), wrote('f1')])
    first.scheduler.dispose()
    const reloaded = open(world, 'b')
    reloaded.scheduler.feed(SID, [operator('op1'), wrote('f1', { parts: undefined })])
    expect(reloaded.view()).toMatchObject({ status: 'held', rerun: ['write_file'] })
    await vi.advanceTimersByTimeAsync(10 * MINUTE)
    expect(world.regenerates).toHaveLength(0)
  })

  it('an old board record without the hold reads as not held: a read-only failure counts down from it as before', async () => {
    const world = shared()
    const board = createRetryBoard(createKeyedStore(world.backend))
    board.write(SID, 'op1', { failureId: 'f1', failureCreatedAt: NOW, attempt: 3, deadline: NOW + 8 * SECOND, paused: false, phase: 'armed' })
    const a = open(world, 'a')
    a.scheduler.feed(SID, [operator('op1'), failed('f1', 'op1')])
    expect(a.view()).toMatchObject({ status: 'armed', attempt: 3, deadline: NOW + 8 * SECOND })
    expect(a.view()?.rerun).toBeUndefined()
    await vi.advanceTimersByTimeAsync(8 * SECOND)
    expect(world.regenerates).toHaveLength(1)
  })

  it('a reply whose tools were all read (or never ran) counts down as before, in every tab', async () => {
    const world = shared()
    const a = open(world, 'a')
    const b = open(world, 'b')
    const readOnly: Message['parts'] = [
      { type: 'tool', tool_call_id: 'tc_r', name: 'search_docs', effect: 'read', input: '{}', status: 'done', started_at: NOW, ended_at: NOW },
      { type: 'tool', tool_call_id: 'tc_d', name: 'write_file', effect: 'write', input: '{}', status: 'denied', started_at: NOW, ended_at: NOW },
    ]
    const history = [operator('op1'), wrote('f1', { parts: readOnly })]
    a.scheduler.feed(SID, history)
    b.scheduler.feed(SID, history)
    await settle()
    for (const t of [a, b]) expect(t.view()).toMatchObject({ status: 'armed', attempt: 1, deadline: NOW + 2 * SECOND })
    expect(createRetryBoard(createKeyedStore(world.backend)).read(SID, 'op1')?.held).toBeUndefined()
    await vi.advanceTimersByTimeAsync(2 * SECOND)
    expect(world.regenerates).toHaveLength(1)
  })

  it('offline and back online, a held retry still waits for Retry now', async () => {
    const world = shared()
    const network = fakeNetwork()
    const a = open(world, 'a', { network })
    a.scheduler.feed(SID, [operator('op1'), wrote('f1')])
    network.set(false)
    expect(a.view()).toMatchObject({ status: 'held', waitingForNetwork: false })
    await vi.advanceTimersByTimeAsync(5 * MINUTE)
    network.set(true)
    await settle()
    expect(a.view()?.status).toBe('held')
    expect(world.regenerates).toHaveLength(0)
  })
})

describe('the board', () => {
  it('keeps one record per anchor, readable by any tab', () => {
    const world = shared()
    const one = createRetryBoard(createKeyedStore(world.backend))
    const two = createRetryBoard(createKeyedStore(world.backend))
    one.write(SID, 'op1', { failureId: 'f1', failureCreatedAt: 1, attempt: 3, deadline: 5, paused: false, phase: 'armed' })
    expect(two.read(SID, 'op1')).toMatchObject({ attempt: 3, phase: 'armed' })
    two.update(SID, 'op1', 'other-failure', { phase: 'cancelled' })
    expect(one.read(SID, 'op1')?.phase).toBe('armed')
    two.update(SID, 'op1', 'f1', { phase: 'cancelled' })
    expect(one.read(SID, 'op1')?.phase).toBe('cancelled')
  })
})
