/**
 * Model-based coverage of the retry machine: `xstate/graph` walks the machine with a set of
 * representative events, and every path it finds is replayed against a real actor (XState's own
 * timers under faked setTimeout and Date, promise actors settled by hand) to check that the running
 * machine lands where the model says. The transitions the replays exercise must be exactly the transitions the machine defines.
 *
 * What is compared: every transition definition — `on` events, `after` delays and invoke
 * `onDone`/`onError` — as (source leaf state, event type, target leaf state). Guarded branches that
 * share all three collapse into one entry.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise } from 'xstate'
import type { AnyStateNode, EventFromLogic, InspectionEvent, StateValue } from 'xstate'
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths, getSimplePaths, getStateNodes } from 'xstate/graph'
import {
  fromRegenerate,
  retryMachine,
  type CancelAcceptedInput,
  type CancelAcceptedOutput,
  type Declined,
  type RetryContext,
  type RetryEvent,
  type RetrySnapshot,
} from '../../src/retry/machine'
import type { Message, RegenerateReceipt } from '../../src/wire/types'

const NOW = Date.UTC(2026, 6, 1, 12, 0, 0)
const MINUTE = 60_000
/** How far behind its deadline an early-firing timer (or a premature clock check) sees the clock. */
const EARLY_MS = 1000
const ANCHOR = 'anchor-1'
const SESSION = 'session-1'

type MachineEvent = EventFromLogic<typeof retryMachine>

/**
 * The representative events. Each is named by a label; the concrete event is built from the
 * context of the state it is sent in, so a failure is always newer than the one already handled
 * and a settled run is always the watched one (or, for `other-run`, never is).
 */
const LABELS = [
  'failure.armable',
  'failure.armable-long',
  'failure.terminal',
  'failure.held',
  'retry.now',
  'retry.cancel',
  'clock.tick',
  'clock.overdue',
  'settled.complete',
  'settled.cancelled',
  'settled.failed-armable',
  'settled.failed-armable-long',
  'settled.failed-terminal',
  'settled.failed-held',
  'settled.other-run',
  'timer.due',
  'timer.early',
  'regenerate.accepted',
  'regenerate.stale',
  'regenerate.refused',
  'regenerate.unavailable',
  'regenerate.network',
  'revoke.done',
  'revoke.failed',
  'network.online',
  'network.back-overdue',
  'shared.adopt',
  'regenerate.declined-cancelled',
  'regenerate.declined-stale',
  'regenerate.declined-rearm',
] as const
type Label = (typeof LABELS)[number]
type LabelledEvent = MachineEvent & { label: Label }

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`refused: ${code}`)
  }
}

function leafPath(value: StateValue): string {
  if (typeof value === 'string') return value
  const [key, child] = Object.entries(value)[0]!
  return child === undefined ? key : `${key}.${leafPath(child)}`
}

/** The state value and a bounded attempt bucket; never the generation or the deadline. */
function serializeState(snapshot: RetrySnapshot): string {
  // A paused wait is the armed state with its flag set: keep the two apart in the graph. So is a
  // dispatch of a held attempt, which goes back to `held` where another goes back to `armed`.
  const state = leafPath(snapshot.value)
  const face = state === 'armed' && snapshot.context.paused ? 'armed(paused)' : state === 'dispatching' && snapshot.context.rerun.length > 0 ? 'dispatching(held)' : state
  return `${face}|attempt:${snapshot.context.attempt > 1 ? 'n' : '1'}`
}

/** A `write` tool that ran: regenerating the reply that holds it would run it again. */
const ranWrite: Message['parts'] = [
  { type: 'tool', tool_call_id: 'tc-1', name: 'write_file', effect: 'write', input: '{}', status: 'done', started_at: NOW, ended_at: NOW },
]

function freshFailure(context: RetryContext, retry: Message['retry'], runId?: string, parts?: Message['parts']): Message {
  const created = (context.failureCreatedAt ?? NOW) + 1
  const id = `reply-${created}`
  return {
    id,
    session_id: SESSION,
    role: 'agent',
    content: '',
    created_at: created,
    superseded: false,
    reply_to: ANCHOR,
    run_id: runId ?? `run-of-${id}`,
    status: 'failed',
    error: { code: 'model_rate_limited', message: 'Rate limited.' },
    ...(retry === undefined ? {} : { retry }),
    ...(parts === undefined ? {} : { parts }),
  }
}

function settledReply(runId: string, status: 'complete' | 'cancelled'): Message {
  return {
    id: `reply-of-${runId}`,
    session_id: SESSION,
    role: 'agent',
    content: '',
    created_at: NOW,
    superseded: false,
    reply_to: ANCHOR,
    run_id: runId,
    status,
  }
}

const transient = { retryable: true, retry_class: 'rate_limited' }
const longWait = (now: number) => ({ ...transient, retry_after_until: now + 50 * MINUTE })
const terminal = { retryable: false, retry_class: 'auth_failed' }

function receipt(context: RetryContext): RegenerateReceipt {
  return { run_id: `run-g${context.generation}`, superseded: [], queued: false }
}

/** Builds the concrete event for `label` in a state with this context, with the clock at `now`. */
function buildEvent(label: Label, state: string, context: RetryContext, now: number): LabelledEvent {
  const watched = context.runId ?? 'run-none'
  const event = ((): Record<string, unknown> => {
    switch (label) {
      case 'failure.armable':
        return { type: 'failure.observed', message: freshFailure(context, transient) }
      case 'failure.armable-long':
        return { type: 'failure.observed', message: freshFailure(context, longWait(now)) }
      case 'failure.terminal':
        return { type: 'failure.observed', message: freshFailure(context, terminal) }
      case 'failure.held':
        return { type: 'failure.observed', message: freshFailure(context, transient, undefined, ranWrite) }
      case 'retry.now':
      case 'retry.cancel':
        return { type: label }
      case 'clock.tick':
      case 'clock.overdue':
        return { type: 'clock.check' }
      case 'settled.complete':
        return { type: 'run.settled', runId: watched, message: settledReply(watched, 'complete') }
      case 'settled.cancelled':
        return { type: 'run.settled', runId: watched, message: settledReply(watched, 'cancelled') }
      case 'settled.failed-armable':
        return { type: 'run.settled', runId: watched, message: freshFailure(context, transient, watched) }
      case 'settled.failed-armable-long':
        return { type: 'run.settled', runId: watched, message: freshFailure(context, longWait(now), watched) }
      case 'settled.failed-terminal':
        return { type: 'run.settled', runId: watched, message: freshFailure(context, terminal, watched) }
      case 'settled.failed-held':
        return { type: 'run.settled', runId: watched, message: freshFailure(context, transient, watched, ranWrite) }
      case 'settled.other-run':
        return { type: 'run.settled', runId: 'run-other', message: settledReply('run-other', 'complete') }
      case 'timer.due':
      case 'timer.early':
        // The after event names the state that scheduled it.
        return { type: `xstate.after.untilDeadline.retry.${state}` }
      case 'regenerate.accepted':
        return { type: 'xstate.done.actor.regenerate', output: { generation: context.generation, receipt: receipt(context) } }
      case 'regenerate.stale':
        return { type: 'xstate.done.actor.regenerate', output: { generation: context.generation - 1, receipt: receipt(context) } }
      case 'regenerate.refused':
        return { type: 'xstate.error.actor.regenerate', error: new Refusal(404, 'message_not_found') }
      case 'regenerate.unavailable':
        return { type: 'xstate.error.actor.regenerate', error: new Refusal(503, 'daemon_unavailable') }
      case 'regenerate.network':
        return { type: 'xstate.error.actor.regenerate', error: new TypeError('Failed to fetch') }
      case 'network.online':
      case 'network.back-overdue':
        return { type: 'network', online: true }
      case 'shared.adopt':
        return { type: 'shared.adopt' }
      case 'regenerate.declined-cancelled':
        return { type: 'xstate.done.actor.regenerate', output: { generation: context.generation, skipped: 'cancelled' } }
      case 'regenerate.declined-stale':
        return { type: 'xstate.done.actor.regenerate', output: { generation: context.generation, skipped: 'stale' } }
      case 'regenerate.declined-rearm':
        return { type: 'xstate.done.actor.regenerate', output: { generation: context.generation, skipped: 'rearm' } }
      case 'revoke.done':
        return { type: 'xstate.done.actor.cancelAccepted', output: undefined }
      case 'revoke.failed':
        return { type: 'xstate.error.actor.cancelAccepted', error: new Refusal(404, 'run_not_found') }
    }
  })()
  return { ...event, label } as unknown as LabelledEvent
}

/**
 * The events that can actually happen in a state: timers only while waiting, actor results only
 * while invoked. `held` is waiting too: its deadline passing (a timer's, a wake-up's, the network's
 * return) is delivered there to show that nothing fires.
 */
function labelsFor(path: string): Label[] {
  return LABELS.filter((label) => {
    if (label.startsWith('timer.') || label === 'clock.overdue' || label === 'network.back-overdue' || label === 'shared.adopt') return path === 'armed' || path === 'armed(paused)' || path === 'held'
    if (label.startsWith('regenerate.')) return path === 'dispatching'
    if (label.startsWith('revoke.')) return path === 'cancelled.revoking'
    return true
  })
}

/** The clock each event is delivered at during traversal (the model's stand-in for time passing). */
function traversalTime(context: RetryContext, label: Label): number {
  const deadline = context.deadline ?? NOW
  if (label === 'timer.due' || label === 'clock.overdue' || label === 'network.back-overdue') return deadline
  if (label === 'timer.early') return deadline - EARLY_MS
  return NOW
}

let traversalNow = NOW
const traversal = {
  input: { anchorId: ANCHOR, sessionId: SESSION, clock: { now: () => traversalNow } },
  serializeState,
  events: (snapshot: RetrySnapshot) => {
    const path = leafPath(snapshot.value)
    return labelsFor(path).map((label) => buildEvent(label, path, snapshot.context, NOW))
  },
  // Runs right before each event is applied: set the model's clock for that event.
  filterEvents: (snapshot: RetrySnapshot, event: MachineEvent) => {
    traversalNow = traversalTime(snapshot.context, (event as LabelledEvent).label)
    return true
  },
}

/** Every transition the machine defines, as "source --event--> target" over leaf states. */
function definedTransitions(): Set<string> {
  const leaves = (node: AnyStateNode): AnyStateNode[] =>
    Object.keys(node.states).length === 0 ? [node] : Object.values(node.states).flatMap(leaves)
  const entered = (node: AnyStateNode): AnyStateNode => {
    const initial = node.initial?.target[0]
    return initial === undefined ? node : entered(initial)
  }
  const result = new Set<string>()
  // The root's own transitions (`network`) apply in every leaf.
  for (const node of new Set([retryMachine.root, ...getStateNodes(retryMachine.root)])) {
    for (const [eventType, definitions] of node.transitions) {
      for (const definition of definitions) {
        const target = definition.target?.[0]
        for (const source of leaves(node)) {
          const to = target === undefined ? source : entered(target)
          result.add(`${source.path.join('.')} --${eventType}--> ${to.path.join('.')}`)
        }
      }
    }
  }
  return result
}

type Pending<T> = { resolve: (value: T) => void; reject: (error: unknown) => void }

/** A real actor with promise actors the replay settles by hand, recording every transition taken. */
function replayActor(taken: Set<string>) {
  const regenerate: Pending<RegenerateReceipt | Declined>[] = []
  const revoke: Pending<CancelAcceptedOutput>[] = []
  const machine = retryMachine.provide({
    actors: {
      regenerate: fromRegenerate(
        () => new Promise<RegenerateReceipt | Declined>((resolve, reject) => regenerate.push({ resolve, reject })),
      ),
      cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(
        () => new Promise<CancelAcceptedOutput>((resolve, reject) => revoke.push({ resolve, reject })),
      ),
    },
  })
  let current = 'idle'
  const actor = createActor(machine, {
    input: { anchorId: ANCHOR, sessionId: SESSION, clock: { now: () => Date.now() } },
    // Only the retry machine itself takes microsteps; its promise children do not.
    inspect: (inspection: InspectionEvent) => {
      if (inspection.type !== '@xstate.microstep') return
      if (inspection.event.type === 'xstate.init') return
      const transitions = (inspection as { _transitions?: unknown[] })._transitions ?? []
      if (transitions.length === 0) return
      const next = leafPath((inspection.snapshot as RetrySnapshot).value)
      taken.add(`${current} --${inspection.event.type}--> ${next}`)
      current = next
    },
  }).start()

  async function deliver(label: Label) {
    const snapshot = actor.getSnapshot()
    const { context } = snapshot
    const deadline = context.deadline ?? Date.now()
    switch (label) {
      case 'timer.due':
        await vi.advanceTimersByTimeAsync(deadline - Date.now())
        return
      case 'timer.early': {
        const remaining = deadline - Date.now()
        // Move the wall clock back: the timer fires on schedule but sees the deadline still ahead.
        vi.setSystemTime(Date.now() - EARLY_MS)
        await vi.advanceTimersByTimeAsync(remaining)
        return
      }
      case 'clock.overdue':
        // The tab slept past the deadline: the wall clock moved, the timer did not fire.
        vi.setSystemTime(deadline)
        actor.send({ type: 'clock.check' })
        return
      case 'network.back-overdue':
        // Offline past the deadline, then back: the attempt fires the moment the network is.
        vi.setSystemTime(deadline)
        actor.send({ type: 'network', online: true })
        return
      case 'regenerate.declined-cancelled':
        regenerate.at(-1)!.resolve({ skipped: 'cancelled' })
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'regenerate.declined-stale':
        regenerate.at(-1)!.resolve({ skipped: 'stale' })
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'regenerate.declined-rearm':
        regenerate.at(-1)!.resolve({ skipped: 'rearm' })
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'regenerate.accepted':
        regenerate.at(-1)!.resolve(receipt(context))
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'regenerate.stale':
        // XState already drops results of a stopped actor; deliver one directly to test the guard.
        actor.send(buildEvent(label, leafPath(snapshot.value), context, Date.now()) as unknown as RetryEvent)
        return
      case 'regenerate.refused':
        regenerate.at(-1)!.reject(new Refusal(404, 'message_not_found'))
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'regenerate.unavailable':
        regenerate.at(-1)!.reject(new Refusal(503, 'daemon_unavailable'))
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'regenerate.network':
        regenerate.at(-1)!.reject(new TypeError('Failed to fetch'))
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'revoke.done':
        revoke.at(-1)!.resolve(undefined)
        await vi.advanceTimersByTimeAsync(0)
        return
      case 'revoke.failed':
        revoke.at(-1)!.reject(new Refusal(404, 'run_not_found'))
        await vi.advanceTimersByTimeAsync(0)
        return
      default: {
        const { label: _label, ...event } = buildEvent(label, leafPath(snapshot.value), context, Date.now())
        actor.send(event as RetryEvent)
      }
    }
  }

  return { actor, deliver }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
  traversalNow = NOW
})

afterEach(() => {
  vi.useRealTimers()
})

describe('retryMachine, model-based', () => {
  const adjacency = getAdjacencyMap(retryMachine, traversal)
  const shortest = getShortestPaths(retryMachine, traversal)
  const pathTo = new Map(shortest.map((path) => [serializeState(path.state), path]))
  const edges = adjacencyMapToArray(adjacency).map(({ state, event, nextState }) => ({
    from: serializeState(state),
    label: (event as LabelledEvent).label,
    to: serializeState(nextState),
  }))

  /** Replays labelled steps from a fresh actor, checking the state after each; records transitions into `taken`. */
  async function replay(steps: { label: Label; expected: string }[], taken = new Set<string>()) {
    vi.setSystemTime(NOW)
    const { actor, deliver } = replayActor(taken)
    try {
      for (const { label, expected } of steps) {
        await deliver(label)
        expect(serializeState(actor.getSnapshot()), `after ${label}`).toBe(expected)
      }
    } finally {
      actor.stop()
    }
  }

  function stepsOf(path: (typeof shortest)[number]) {
    // Step 0 is the initial state reached by xstate.init; each later step is an event and the state it reached.
    return path.steps.slice(1).map((step) => ({
      label: (step.event as LabelledEvent).label,
      expected: serializeState(step.state),
    }))
  }

  it('reaches every state, and a settled episode always restarts at attempt 1', () => {
    const states = shortest.map((path) => serializeState(path.state)).sort()
    const values = ['armed', 'armed(paused)', 'held', 'cancelled.quiet', 'cancelled.revoking', 'dispatching', 'dispatching(held)', 'refused', 'watching']
    const expected = ['idle|attempt:1', ...values.flatMap((v) => [`${v}|attempt:1`, `${v}|attempt:n`])].sort()
    expect(states).toEqual(expected)
  })

  it.each(shortest.map((path) => [serializeState(path.state), path] as const))(
    'the shortest path to %s replays on a real actor',
    async (_, path) => {
      await replay(stepsOf(path))
    },
  )

  it('every edge of the model replays on a real actor, taking exactly the transitions the machine defines', async () => {
    const taken = new Set<string>()
    for (const edge of edges) {
      const head = pathTo.get(edge.from)
      expect(head, edge.from).toBeDefined()
      await replay([...stepsOf(head!), { label: edge.label, expected: edge.to }], taken)
    }
    expect([...taken].sort()).toEqual([...definedTransitions()].sort())
  })

  // Simple paths that mix counting and held failures number over a hundred thousand; each world
  // is walked on its own here, and the edges between them by the edge test above.
  it('every simple path into refused, and out again, replays on a real actor', async () => {
    const intoRefused = getSimplePaths(retryMachine, {
      ...within('counting'),
      toState: (snapshot) => snapshot.matches('refused'),
    })
    expect(intoRefused.length).toBeGreaterThan(1)
    for (const path of intoRefused) {
      await replay([...stepsOf(path), { label: 'failure.armable', expected: 'armed|attempt:1' }])
    }
  })

  it('every simple path into refused through held failures, and out again, replays on a real actor', async () => {
    const intoRefused = getSimplePaths(retryMachine, {
      ...within('held'),
      toState: (snapshot) => snapshot.matches('refused'),
    })
    expect(intoRefused.some((path) => path.steps.some((step) => serializeState(step.state).startsWith('dispatching(held)')))).toBe(true)
    for (const path of intoRefused) {
      await replay([...stepsOf(path), { label: 'failure.held', expected: 'held|attempt:1' }])
    }
  })
})

/** The armable failures that count down, and those that arm held (their reply ran a `write` tool). */
const COUNTING_FAILURES: ReadonlySet<Label> = new Set(['failure.armable', 'failure.armable-long', 'settled.failed-armable', 'settled.failed-armable-long'])
const HELD_FAILURES: ReadonlySet<Label> = new Set(['failure.held', 'settled.failed-held'])

/** The traversal of one world: every armable failure counts down, or every one is held. */
function within(world: 'counting' | 'held') {
  const other = world === 'counting' ? HELD_FAILURES : COUNTING_FAILURES
  return {
    ...traversal,
    events: (snapshot: RetrySnapshot) => traversal.events(snapshot).filter((event) => !other.has(event.label)),
  }
}
