/**
 * Scenario 5, in node: many cycles of Rebound's tier 2 retry scheduler against a fake daemon
 * client, then what they left behind — heap after GC, live timers, live event listeners.
 *
 *   node --expose-gc --import tsx bench/retry-cycles.ts [--cycles 1000] [--src path/to/src] [--json]
 *
 * Two phases on one session:
 *   A. arm/cancel, N times, each on a new anchor (the conversation moves on: every cycle's history
 *      ends with a new operator message and its transiently failed reply; the scheduler arms,
 *      then the operator cancels);
 *   B. arm/dispatch/fail, N times, on one anchor (a provider that keeps failing: armed, Retry now,
 *      the regenerate is accepted, history shows that run failed transiently, armed again); one
 *      cancel at the end brings it to rest.
 *
 * The target is `src/retry/scheduler.ts` (the React-free registry) when it exists; otherwise the
 * machine of `src/retry/machine.ts`, one actor per anchor, fed the way the hook feeds it today.
 * Timers are counted by wrapping setTimeout/setInterval before anything is imported; listeners by
 * recording every EventTarget that gets one (window and document are EventTargets here, so the
 * scheduler's wake-up listeners count) and asking node for what each still holds after GC.
 */
import { getEventListeners } from 'node:events'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// --- Counting, installed before the scheduler (and xstate) are imported ---------------------

const liveTimers = new Set<unknown>()
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout
const realSetInterval = globalThis.setInterval
const realClearInterval = globalThis.clearInterval
let timersCreated = 0

globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  timersCreated++
  const handle = realSetTimeout(
    (...a: unknown[]) => {
      liveTimers.delete(handle)
      fn(...a)
    },
    ms,
    ...args,
  )
  liveTimers.add(handle)
  return handle
}) as typeof setTimeout
globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
  liveTimers.delete(handle)
  realClearTimeout(handle)
}) as typeof clearTimeout
globalThis.setInterval = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  timersCreated++
  const handle = realSetInterval(fn, ms, ...args)
  liveTimers.add(handle)
  return handle
}) as typeof setInterval
globalThis.clearInterval = ((handle: Parameters<typeof clearInterval>[0]) => {
  liveTimers.delete(handle)
  realClearInterval(handle)
}) as typeof clearInterval

/** Every EventTarget that was given a listener (weakly), and the event types it was given. */
let targets: Array<WeakRef<EventTarget>> = []
const typesOf = new WeakMap<EventTarget, Set<string>>()
const track = (target: EventTarget, type: string) => {
  let types = typesOf.get(target)
  if (!types) {
    typesOf.set(target, (types = new Set()))
    targets.push(new WeakRef(target))
  }
  types.add(type)
}
const realAdd = EventTarget.prototype.addEventListener
EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, ...rest: [EventListenerOrEventListenerObject | null, (boolean | AddEventListenerOptions)?]) {
  track(this, type)
  return realAdd.call(this, type, ...rest)
}

/** Listeners still registered on any target that is still alive. */
function liveListeners(): number {
  let n = 0
  for (const ref of targets) {
    const target = ref.deref()
    if (target) for (const type of typesOf.get(target) ?? []) n += getEventListeners(target, type).length
  }
  return n
}

// A page's window and document as plain EventTargets, so wake-up listeners are real listeners.
const fakeDocument = Object.assign(new EventTarget(), { visibilityState: 'visible' })
;(globalThis as Record<string, unknown>).window = globalThis
;(globalThis as Record<string, unknown>).document = fakeDocument
// node's globalThis is an EventTarget-less object: give it the methods window has.
const windowTarget = new EventTarget()
;(globalThis as Record<string, unknown>).addEventListener = windowTarget.addEventListener.bind(windowTarget)
;(globalThis as Record<string, unknown>).removeEventListener = windowTarget.removeEventListener.bind(windowTarget)
track(windowTarget, 'focus')
track(windowTarget, 'online')
track(fakeDocument, 'visibilitychange')

// --- The scenario -------------------------------------------------------------------------

type Message = {
  id: string
  session_id: string
  role: 'operator' | 'agent'
  content: string
  created_at: number
  superseded: boolean
  reply_to?: string
  run_id?: string
  status?: 'queued' | 'streaming' | 'complete' | 'failed' | 'cancelled'
  error?: { code: string; message: string }
  retry?: { retryable: boolean; retry_class: string; retry_after_until?: number }
}

type Snapshot = { value: unknown; context: { runId: string | null }; matches(state: string): boolean }

/** What a cycle needs of the scheduler, whichever the target. */
type Driver = {
  target: string
  feed(history: Message[]): void
  state(anchorId: string): Snapshot | undefined
  retryNow(anchorId: string): void
  cancel(anchorId: string): void
  dispose(): void
}

const SESSION = 'retry-bench'
let clockBase = Date.now()
let seq = 0
const stamp = () => clockBase + ++seq

const operator = (id: string): Message => ({ id, session_id: SESSION, role: 'operator', content: `question ${id}`, created_at: stamp(), superseded: false })
const failed = (id: string, anchorId: string, runId: string): Message => ({
  id,
  session_id: SESSION,
  role: 'agent',
  content: '',
  created_at: stamp(),
  superseded: false,
  reply_to: anchorId,
  run_id: runId,
  status: 'failed',
  error: { code: 'model_unavailable', message: 'The provider is overloaded.' },
  retry: { retryable: true, retry_class: 'overloaded' },
})

/** The fake daemon client: every request answers at once (a microtask later), as a fast daemon would. */
function fakeClient(history: () => Message[]) {
  let runs = 0
  const stats = { regenerate: 0, cancelRun: 0, listMessages: 0 }
  return {
    stats,
    async regenerate(_sid: string, _anchorId: string, signal?: AbortSignal) {
      stats.regenerate++
      await Promise.resolve()
      signal?.throwIfAborted()
      return { run_id: `run-${++runs}`, superseded: [], queued: false }
    },
    async cancelRun(_sid: string, runId: string) {
      stats.cancelRun++
      await Promise.resolve()
      return { run_id: runId, status: 'cancelled' as const }
    },
    async listMessages() {
      stats.listMessages++
      await Promise.resolve()
      return history()
    },
  }
}

function memoryStorage() {
  const map = new Map<string, string>()
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, String(v)),
    removeItem: (k: string) => void map.delete(k),
  }
}

type AnyModule = Record<string, unknown>
const load = async (file: string) => (await import(pathToFileURL(file).href)) as AnyModule

async function schedulerDriver(src: string, client: ReturnType<typeof fakeClient>): Promise<Driver> {
  const { createRetryScheduler } = (await load(join(src, 'retry', 'scheduler.ts'))) as {
    createRetryScheduler: (options: Record<string, unknown>) => {
      feed(sid: string, h: Message[]): void
      snapshot(sid: string): ReadonlyMap<string, Snapshot>
      retryNow(sid: string, a: string): void
      cancel(sid: string, a: string): void
      subscribe(sid: string, l: () => void): () => void
      dispose(): void
    }
  }
  const storePath = join(src, 'storage', 'keyed-store.ts')
  const store = existsSync(storePath) ? ((await load(storePath)) as { createKeyedStore: (b: unknown) => unknown }).createKeyedStore(memoryStorage()) : undefined
  const scheduler = createRetryScheduler({ client, clock: { now: () => Date.now() }, store, refreshHistory: () => undefined })
  // A UI would subscribe: so does the benchmark, and lets go at the end.
  const unsubscribe = scheduler.subscribe(SESSION, () => undefined)
  return {
    target: 'src/retry/scheduler.ts (createRetryScheduler)',
    feed: (h) => scheduler.feed(SESSION, h),
    state: (a) => scheduler.snapshot(SESSION).get(a),
    retryNow: (a) => scheduler.retryNow(SESSION, a),
    cancel: (a) => scheduler.cancel(SESSION, a),
    dispose: () => {
      unsubscribe()
      scheduler.dispose()
    },
  }
}

/** Today's wiring without scheduler.ts: the machine's actors, fed as src/chat/use-retry-scheduler.ts feeds them. */
async function machineDriver(src: string, client: ReturnType<typeof fakeClient>): Promise<Driver> {
  const xstate = (await import('xstate')) as unknown as {
    createActor: (m: unknown, o: unknown) => { start(): void; stop(): void; send(e: unknown): void; getSnapshot(): Snapshot; subscribe(o: unknown): unknown }
    fromPromise: (f: (a: { input: { runId?: string; sessionId: string } }) => Promise<unknown>) => unknown
  }
  const machine = (await load(join(src, 'retry', 'machine.ts'))) as {
    retryMachine: { provide(o: unknown): unknown }
    fromRegenerate: (f: (input: { sessionId: string; anchorId: string }, signal: AbortSignal) => Promise<unknown>) => unknown
  }
  const provided = machine.retryMachine.provide({
    actors: {
      regenerate: machine.fromRegenerate((input, signal) => client.regenerate(input.sessionId, input.anchorId, signal)),
      cancelAccepted: xstate.fromPromise(async ({ input }) => (input.runId ? (await client.cancelRun(input.sessionId, input.runId), { runId: input.runId }) : {})),
    },
  })
  const actors = new Map<string, ReturnType<typeof xstate.createActor>>()
  const cancelledIds: string[] = []
  const actorFor = (anchorId: string) => {
    let actor = actors.get(anchorId)
    if (actor) return actor
    actor = xstate.createActor(provided, { input: { anchorId, sessionId: SESSION, clock: { now: () => Date.now() } } })
    const created = actor
    created.subscribe({
      next: (s: Snapshot & { context: { failedMessageId?: string | null } }) => {
        if (s.matches('cancelled') && s.context.failedMessageId && !cancelledIds.includes(s.context.failedMessageId)) {
          cancelledIds.push(s.context.failedMessageId)
          if (cancelledIds.length > 200) cancelledIds.shift()
        }
      },
      error: () => actors.delete(anchorId),
    })
    actors.set(anchorId, created)
    created.start()
    return created
  }
  return {
    target: 'src/retry/machine.ts actors (src/retry/scheduler.ts does not exist in this tree)',
    feed(history) {
      const tail = history.filter((m) => !m.superseded).at(-1)
      if (tail && tail.role === 'agent' && tail.reply_to && tail.status === 'failed' && !cancelledIds.includes(tail.id)) {
        actorFor(tail.reply_to).send({ type: 'failure.observed', message: tail })
      }
      for (const [anchorId, actor] of actors) {
        const snapshot = actor.getSnapshot()
        const runId = snapshot.context.runId
        if (snapshot.matches('watching') && runId) {
          const reply = history.find((m) => m.run_id === runId)
          if (reply?.status && ['complete', 'failed', 'cancelled'].includes(reply.status)) actor.send({ type: 'run.settled', runId, message: reply })
        }
        const stillTail = tail?.role === 'agent' && tail.reply_to === anchorId
        if (!stillTail && actor.getSnapshot().matches('armed')) {
          actor.stop()
          actors.delete(anchorId)
        }
      }
    },
    state: (a) => actors.get(a)?.getSnapshot(),
    retryNow: (a) => actors.get(a)?.send({ type: 'retry.now' }),
    cancel: (a) => actors.get(a)?.send({ type: 'retry.cancel' }),
    dispose() {
      for (const actor of actors.values()) actor.stop()
      actors.clear()
    },
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

async function heapAfterGc(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with node --expose-gc')
  for (let i = 0; i < 3; i++) {
    gc()
    await settle()
    // The benchmark's own bookkeeping must not count as the scheduler's growth.
    targets = targets.filter((ref) => ref.deref() !== undefined)
  }
  return process.memoryUsage().heapUsed
}

function expectState(driver: Driver, anchorId: string, state: string, where: string) {
  const snapshot = driver.state(anchorId)
  if (!snapshot?.matches(state)) throw new Error(`${where}: expected the scheduler of ${anchorId} to be ${state}, it is ${JSON.stringify(snapshot?.value)}`)
}

/** Cycles of each kind before the first measurement: more than the scheduler's bounded stores hold. */
const WARMUP_CYCLES = 250

async function main() {
  const args = process.argv.slice(2)
  const arg = (name: string) => {
    const i = args.indexOf(name)
    return i >= 0 ? args[i + 1] : undefined
  }
  const cycles = Math.max(1, Number(arg('--cycles') ?? 1000) || 1000)
  const here = dirname(fileURLToPath(import.meta.url))
  const src = resolve(arg('--src') ?? join(here, '..', 'src'))
  let history: Message[] = []
  const client = fakeClient(() => history)
  const driver = existsSync(join(src, 'retry', 'scheduler.ts')) ? await schedulerDriver(src, client) : await machineDriver(src, client)

  let anchors = 0
  /** Phase A, one cycle: a new exchange fails, the scheduler arms, the operator cancels. */
  const armCancel = async () => {
    const a = `a${++anchors}`
    history = [operator(a), failed(`f${anchors}`, a, `hist-${anchors}`)]
    driver.feed(history)
    expectState(driver, a, 'armed', 'arm/cancel')
    driver.cancel(a)
    await settle()
    expectState(driver, a, 'cancelled', 'arm/cancel')
  }
  let loopAnchor = 'a-warm'
  let loopFailures = 0
  /** Phase B, one cycle: armed → Retry now → accepted → that run failed (history) → armed again. */
  const armDispatchFail = async () => {
    expectState(driver, loopAnchor, 'armed', 'arm/dispatch/fail')
    driver.retryNow(loopAnchor)
    await settle()
    expectState(driver, loopAnchor, 'watching', 'arm/dispatch/fail')
    const runId = driver.state(loopAnchor)?.context.runId ?? ''
    history = [operator(loopAnchor), failed(`loop-f${++loopFailures}`, loopAnchor, runId)]
    driver.feed(history)
    await settle()
  }
  const startLoop = (anchor: string) => {
    loopAnchor = anchor
    history = [operator(loopAnchor), failed(`loop-f${++loopFailures}`, loopAnchor, 'hist-loop')]
    driver.feed(history)
  }
  const endLoop = async (what: string) => {
    driver.cancel(loopAnchor)
    await settle()
    expectState(driver, loopAnchor, 'cancelled', what)
  }

  // Warm up both kinds of cycle before the first measurement: the JIT has tiered up the code they
  // run, and the stores the scheduler bounds by design (the board's BOARD_LIMIT records, the last
  // CANCELLED_LIMIT cancelled anchors) are full. What grows after that grows with every cycle.
  const heapStart = await heapAfterGc()
  for (let i = 0; i < WARMUP_CYCLES; i++) await armCancel()
  startLoop('a-warm')
  for (let i = 0; i < WARMUP_CYCLES; i++) await armDispatchFail()
  await endLoop('the warm-up cancel')
  clockBase = Date.now()
  const heapBefore = await heapAfterGc()
  const timersBefore = liveTimers.size
  const listenersBefore = liveListeners()
  const started = performance.now()
  for (let i = 0; i < cycles; i++) await armCancel()
  const heapAfterA = await heapAfterGc()
  startLoop('a-loop')
  for (let i = 0; i < cycles; i++) await armDispatchFail()
  await endLoop('the final cancel')
  const durationMs = performance.now() - started
  await settle()
  const heapAfter = await heapAfterGc()
  const timersLeft = liveTimers.size - timersBefore
  const listenersLeft = liveListeners() - listenersBefore
  driver.dispose()
  await settle()
  const heapDisposed = await heapAfterGc()

  const result = {
    target: driver.target,
    cycles,
    armCancelCycles: cycles,
    armDispatchFailCycles: cycles,
    durationMs,
    warmupCycles: WARMUP_CYCLES,
    heapWarmupKB: (heapBefore - heapStart) / 1024,
    heapBeforeMB: heapBefore / 2 ** 20,
    heapAfterArmCancelMB: heapAfterA / 2 ** 20,
    heapAfterMB: heapAfter / 2 ** 20,
    heapGrowthKB: (heapAfter - heapBefore) / 1024,
    heapGrowthArmCancelKB: (heapAfterA - heapBefore) / 1024,
    heapGrowthDispatchFailKB: (heapAfter - heapAfterA) / 1024,
    heapAfterDisposeMB: heapDisposed / 2 ** 20,
    timersLeft,
    listenersLeft,
    timersLeftAfterDispose: liveTimers.size,
    listenersLeftAfterDispose: liveListeners(),
    timersCreated,
    requests: client.stats,
  }
  if (args.includes('--json')) console.log(JSON.stringify(result))
  else console.log(result)
  // Whatever the scheduler left armed must not keep this process alive.
  for (const t of liveTimers) realClearTimeout(t as Parameters<typeof clearTimeout>[0])
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exit(1)
})
