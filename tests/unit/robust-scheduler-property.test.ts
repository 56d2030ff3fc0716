/**
 * The tier 2 scheduler under random interleavings (fast-check's `fc.scheduler`), in node: two
 * tabs on one session (one storage backend, one tab hub, one lock manager) against a fake daemon
 * whose every answer (regenerate, cancel, history read) is released in an order fast-check picks,
 * mixed with timer expiry, Cancel, Retry now, runs ending, and history reads of the current and of
 * older generations, in either tab.
 *
 * Invariants:
 * - at most one regenerate per attempt (failure × attempt number) across the tabs;
 * - after a Cancel, no regenerate is sent for that failure, and a run accepted in the race is
 *   cancelled;
 * - a late answer to a request that was aborted changes no tab's state;
 * - no unhandled rejection;
 * - once every scheduler is at rest, no timer is left.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createRetryScheduler, type RetryScheduler } from '../../src/retry/scheduler'
import { createRetryBoard } from '../../src/retry/board'
import { createKeyedStore } from '../../src/storage/keyed-store'
import { createLocalLocks } from '../../src/storage/locks'
import { createTabHub } from '../../src/storage/tab-channel'
import type { Message, RegenerateReceipt } from '../../src/wire/types'
import { memoryBackend } from './memory-backend'

const NOW = Date.UTC(2026, 6, 1, 12)
const SID = 'ses_p'
const ANCHOR = 'op1'

type Outcome = 'accepted' | 'lost-after-accept' | 'refused' | 'unavailable' | 'network'
type Tab = 0 | 1
type Command =
  | { kind: 'advance'; ms: number }
  | { kind: 'cancel'; tab: Tab }
  | { kind: 'retryNow'; tab: Tab }
  | { kind: 'resolve' }
  | { kind: 'runEnds'; result: 'failed' | 'complete' | 'cancelled' }
  | { kind: 'feed'; tab: Tab }
  | { kind: 'feedStale'; tab: Tab; pick: number }

const tabArb = fc.constantFrom<Tab>(0, 1)
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 })) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), tab: tabArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retryNow' as const), tab: tabArb }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'resolve' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('runEnds' as const), result: fc.constantFrom('failed' as const, 'failed' as const, 'complete' as const, 'cancelled' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('feed' as const), tab: tabArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('feedStale' as const), tab: tabArb, pick: fc.nat() }) },
)
const outcomeArb = fc.constantFrom<Outcome>('accepted', 'accepted', 'lost-after-accept', 'refused', 'unavailable', 'network')

const operator: Message = { id: ANCHOR, session_id: SID, role: 'operator', content: 'q', created_at: NOW - 60_000, superseded: false }

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code)
  }
}

type Violation = string

/** A few rounds of microtasks: promise actors, lock hand-overs and hub deliveries land. */
async function flush() {
  for (let i = 0; i < 8; i++) await Promise.resolve()
}

async function runScenario(s: fc.Scheduler, commands: Command[], outcomes: Outcome[]): Promise<Violation[]> {
  vi.setSystemTime(NOW)
  const violations: Violation[] = []
  const backend = memoryBackend()
  const hub = createTabHub()
  const locks = createLocalLocks()
  const board = createRetryBoard(createKeyedStore(backend))
  let seq = 0
  let runs = 0
  let replies = 0
  const firstFailure: Message = {
    id: 'f0',
    session_id: SID,
    role: 'agent',
    content: '',
    created_at: NOW - 1000,
    superseded: false,
    reply_to: ANCHOR,
    run_id: 'run0',
    status: 'failed',
    error: { code: 'model_unavailable', message: 'down' },
    retry: { retryable: true, retry_class: 'overloaded' },
  }
  let history: Message[] = [operator, firstFailure]
  const snapshots: Message[][] = [history]
  /** Regenerates the daemon received: which failure and attempt the sender was on. */
  const calls: { key: string; failureId: string; seq: number; runId?: string }[] = []
  const cancelledRuns = new Set<string>()
  /** Failures whose retry an operator cancelled while it was live, and when. */
  const cancels: { failureId: string; seq: number }[] = []
  /** Runs whose end history recorded, and when. */
  const settledAt = new Map<string, number>()
  const tabs: RetryScheduler[] = []

  const statesOf = () => tabs.map((t) => JSON.stringify(t.snapshot(SID).get(ANCHOR)?.value ?? null) + ':' + (t.snapshot(SID).get(ANCHOR)?.context.generation ?? -1))

  for (const name of ['a', 'b']) {
    tabs.push(
      createRetryScheduler({
        client: {
          regenerate: (_sid: string, anchorId: string, signal?: AbortSignal) => {
            const record = board.read(SID, anchorId)
            const failureId = record?.failureId ?? '?'
            const call: (typeof calls)[number] = { key: `${failureId}#${record?.attempt ?? '?'}`, failureId, seq: ++seq }
            calls.push(call)
            const outcome = outcomes.shift() ?? 'accepted'
            // The daemon acts on the request when it arrives; only its answer travels back late.
            if (outcome === 'accepted' || outcome === 'lost-after-accept') {
              const runId = `run${++runs}`
              call.runId = runId
              history = history.map((m) => (m.role === 'agent' && m.reply_to === anchorId && !m.superseded ? { ...m, superseded: true } : m))
              history = [...history, { id: `r${++replies}`, session_id: SID, role: 'agent', content: '', created_at: Date.now(), superseded: false, reply_to: anchorId, run_id: runId, status: 'streaming' }]
            }
            return new Promise<RegenerateReceipt>((resolve, reject) => {
              let done = false
              signal?.addEventListener('abort', () => {
                done = true
                reject(new DOMException('Aborted', 'AbortError'))
              })
              void s.schedule(Promise.resolve(), `regenerate ${name} ${outcome}`).then(() => {
                if (done) {
                  // A late answer to an aborted request: it must change nothing anywhere.
                  const before = statesOf()
                  reject(new Error('late'))
                  void Promise.resolve().then(() => {
                    if (statesOf().join() !== before.join()) violations.push(`a late answer changed state: ${before} → ${statesOf()}`)
                  })
                  return
                }
                if (outcome === 'accepted') resolve({ run_id: call.runId!, superseded: [], queued: false })
                else if (outcome === 'refused') reject(new Refusal(404, 'message_not_found'))
                else if (outcome === 'unavailable') reject(new Refusal(503, 'daemon_unavailable'))
                else reject(new TypeError('Failed to fetch'))
              })
            })
          },
          cancelRun: async (_sid: string, runId: string) => {
            cancelledRuns.add(runId)
            await s.schedule(Promise.resolve(), `cancel ${runId}`)
            history = history.map((m) => (m.run_id === runId && (m.status === 'streaming' || m.status === 'queued') ? { ...m, status: 'cancelled' as const } : m))
            return { run_id: runId, status: 'cancelled' as const }
          },
          listMessagesPage: async () => {
            const copy = history
            await s.schedule(Promise.resolve(), 'history read')
            return { messages: copy, has_more: false, skipped: 0 }
          },
        },
        clock: { now: () => Date.now() },
        store: createKeyedStore(backend, { channel: hub.channel() }),
        refreshHistory: () => {},
        wake: () => () => {},
        locks,
      }),
    )
  }

  const feed = (tab: Tab, messages: Message[]) => tabs[tab]!.feed(SID, messages)
  feed(0, history)
  feed(1, history)

  for (const command of commands) {
    switch (command.kind) {
      case 'advance':
        if (command.ms > 0) await vi.advanceTimersByTimeAsync(command.ms)
        else await flush()
        break
      case 'cancel': {
        const snapshot = tabs[command.tab]!.snapshot(SID).get(ANCHOR)
        const live = snapshot && (snapshot.matches('armed') || snapshot.matches('dispatching') || snapshot.matches('watching'))
        tabs[command.tab]!.cancel(SID, ANCHOR)
        if (live && snapshot.context.failedMessageId) cancels.push({ failureId: snapshot.context.failedMessageId, seq: ++seq })
        break
      }
      case 'retryNow':
        tabs[command.tab]!.retryNow(SID, ANCHOR)
        break
      case 'resolve':
        if (s.count() > 0) await s.waitOne()
        break
      case 'runEnds': {
        const running = history.find((m) => m.status === 'streaming' && !m.superseded)
        if (!running) break
        const ended: Message =
          command.result === 'failed'
            ? { ...running, status: 'failed', error: { code: 'model_unavailable', message: 'down' }, retry: { retryable: true, retry_class: 'overloaded' } }
            : { ...running, status: command.result }
        history = history.map((m) => (m.id === running.id ? ended : m))
        settledAt.set(running.run_id!, ++seq)
        snapshots.push(history)
        break
      }
      case 'feed':
        feed(command.tab, history)
        break
      case 'feedStale':
        feed(command.tab, snapshots[command.pick % snapshots.length]!)
        break
    }
    await Promise.resolve()
  }
  // Let everything in flight land, and each tab read history once more.
  // Every microtask chain runs out before a macrotask (setImmediate is not faked), so a round
  // ends with every continuation of what was released having run.
  const drained = () => new Promise((resolve) => setImmediate(resolve))
  await drained()
  for (let round = 0; round < 50 && s.count() > 0; round++) {
    await s.waitAll()
    await drained()
  }

  // At most one regenerate per attempt, across the tabs.
  const keys = calls.map((c) => c.key)
  const dupes = keys.filter((k, i) => keys.indexOf(k) !== i)
  if (dupes.length > 0) violations.push(`attempt dispatched twice: ${dupes.join(', ')} (calls ${keys.join(' ')})`)
  if (keys.some((k) => k.startsWith('?'))) violations.push(`a regenerate with no board record: ${keys.join(' ')}`)
  for (const cancel of cancels) {
    const later = calls.filter((c) => c.failureId === cancel.failureId && c.seq > cancel.seq)
    if (later.length > 0) violations.push(`regenerate after cancel of ${cancel.failureId}`)
    // A run this failure's retry started, still going when the operator cancelled, is cancelled.
    for (const call of calls.filter((c) => c.failureId === cancel.failureId && c.runId)) {
      const settled = settledAt.get(call.runId!)
      if ((settled === undefined || settled > cancel.seq) && !cancelledRuns.has(call.runId!)) violations.push(`run ${call.runId} accepted in the race was not cancelled`)
    }
  }
  const atRest = tabs.every((t) => {
    const snapshot = t.snapshot(SID).get(ANCHOR)
    return !snapshot || snapshot.matches('idle') || snapshot.matches({ cancelled: 'quiet' }) || snapshot.matches('refused')
  })
  if (atRest && vi.getTimerCount() > 0) violations.push(`${vi.getTimerCount()} timer(s) left at rest`)
  for (const t of tabs) t.dispose()
  vi.clearAllTimers()
  return violations
}

let unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => void unhandled.push(reason)

beforeAll(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  process.on('unhandledRejection', onUnhandled)
})
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  vi.useRealTimers()
})

/** 10,000 interleavings in all, in four parts so each reports (and shrinks) on its own. */
const RUNS_PER_PART = Number(process.env.ROBUST_PROPERTY_RUNS ?? 2500)

describe('tier 2 under random interleavings, two tabs', () => {
  it.each([1, 2, 3, 4])('part %i: one regenerate per attempt, cancels stick, stale answers change nothing, no stray rejection or timer', async (part) => {
    unhandled = []
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(commandArb, { maxLength: 16 }), fc.array(outcomeArb, { maxLength: 8 }), async (s, commands, outcomes) => {
        const violations = await runScenario(s, commands, [...outcomes])
        // Let any rejection nobody handled surface before judging.
        await new Promise((resolve) => setImmediate(resolve))
        expect(violations).toEqual([])
        expect(unhandled).toEqual([])
      }),
      { numRuns: RUNS_PER_PART, seed: 20_261_201 + part, endOnFailure: true },
    )
  }, 120_000)
})
