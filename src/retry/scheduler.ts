/**
 * The tier 2 scheduler registry: one machine per anchor, per session, fed from history by the
 * rules of eligibility.ts. It remembers the failures whose retry the operator cancelled (across
 * reloads), re-checks the clock when the page wakes, and hands the UI one snapshot per session.
 * No React here: components subscribe.
 */
import { createActor, type ActorRefFrom } from 'xstate'
import { createCappedList } from '../storage/capped-list'
import type { KeyedStore } from '../storage/keyed-store'
import { createListeners } from '../storage/listeners'
import { browserLocks, type LockManagerLike } from '../storage/locks'
import type { DaemonClient } from '../wire/http'
import type { Message } from '../wire/types'
import { browserNetwork, browserWake, type NetworkSource, type WakeSource } from './browser'
import { retryMachineFor } from './dispatch'
import { armingCandidate, outlivedBy, settledReply } from './eligibility'
import type { RetryClock, RetrySnapshot } from './machine'
import { createRetryBoard, type RetryBoard } from './board'

type RetryActor = ActorRefFrom<ReturnType<typeof retryMachineFor>>

/** Anchor id → its machine's snapshot, for one session. A new map after every change. */
export type SessionRetries = ReadonlyMap<string, RetrySnapshot>

export const CANCELLED_NAMESPACE = 'retry-cancelled'
/** Enough to cover every failure an operator cancelled lately; the oldest go first. */
export const CANCELLED_LIMIT = 200

export type RetrySchedulerOptions = {
  client: Pick<DaemonClient, 'regenerate' | 'cancelRun' | 'listMessagesPage'>
  clock: RetryClock
  /** Shared by the tabs (localStorage): the cancelled failures and the armed schedules live here. */
  store: KeyedStore
  /** Re-read a session's history (a regenerate was accepted, a stray run was cancelled). */
  refreshHistory: (sessionId: string) => void
  wake?: WakeSource
  /** The tabs' locks (Web Locks); an in-memory manager when absent. */
  locks?: LockManagerLike
  network?: NetworkSource
}

const EMPTY: SessionRetries = new Map()

export function createRetryScheduler({
  client,
  clock,
  store,
  refreshHistory,
  wake = browserWake,
  locks = browserLocks(),
  network = browserNetwork,
}: RetrySchedulerOptions) {
  const board: RetryBoard = createRetryBoard(store)
  const machine = retryMachineFor({ client, refreshHistory, locks, board, clock, network })
  const sessions = new Map<string, Map<string, RetryActor>>()
  const snapshots = new Map<string, SessionRetries>()
  const listeners = createListeners<string>()
  const cancelledList = createCappedList(store, CANCELLED_NAMESPACE, { limit: CANCELLED_LIMIT })
  let stopWake: (() => void) | undefined

  const cancelled = () => new Set(cancelledList.read())

  /**
   * The operator's cancel outlives the actor: leaving the session or reloading keeps it. Kept by
   * the failed reply's id and by the id of the run the cancel reached.
   */
  function rememberCancelled(id: string) {
    if (!cancelledList.read().includes(id)) cancelledList.add(id)
  }

  function publish(sessionId: string) {
    const actors = sessions.get(sessionId)
    const next = new Map<string, RetrySnapshot>()
    for (const [anchorId, actor] of actors ?? []) next.set(anchorId, actor.getSnapshot())
    // XState reports every event, even one that changed nothing: hand out the same map then.
    const previous = snapshots.get(sessionId) ?? EMPTY
    if (previous.size === next.size && [...next].every(([anchorId, snapshot]) => previous.get(anchorId) === snapshot)) return syncWake()
    snapshots.set(sessionId, next)
    listeners.notify(sessionId)
    syncWake()
  }

  /** Wake-ups matter only while something waits; the listeners come and go with that. */
  function syncWake() {
    const waiting = [...sessions.values()].some((actors) => [...actors.values()].some((a) => a.getSnapshot().matches('armed')))
    if (waiting && !stopWake) {
      stopWake = wake(() => {
        for (const actors of sessions.values()) for (const actor of actors.values()) actor.send({ type: 'clock.check' })
      })
    } else if (!waiting && stopWake) {
      stopWake()
      stopWake = undefined
    }
  }

  function actorFor(sessionId: string, anchorId: string): RetryActor {
    let actors = sessions.get(sessionId)
    if (!actors) sessions.set(sessionId, (actors = new Map()))
    const known = actors.get(anchorId)
    if (known) return known
    const actor = createActor(machine, { input: { anchorId, sessionId, clock, board, network } })
    actors.set(anchorId, actor)
    let previous: RetrySnapshot | undefined
    actor.subscribe({
      next: (snapshot) => {
        const { failedMessageId, runId } = snapshot.context
        if (snapshot.matches('cancelled')) {
          if (failedMessageId) rememberCancelled(failedMessageId)
          // The run the cancel reached may fail rather than end cancelled (it failed first): its
          // failure must not arm after a reload or a return to the session either.
          if (runId) rememberCancelled(runId)
          // A cancel in one tab is a cancel in all: the others read it from the board.
          if (failedMessageId) board.update(sessionId, anchorId, failedMessageId, { phase: 'cancelled' })
        } else if (snapshot.matches('idle') && previous?.matches('watching') && runId) {
          // The episode is over: a tab still waiting for the lock must not send this attempt.
          const record = board.read(sessionId, anchorId)
          if (record?.runId === runId) board.update(sessionId, anchorId, record.failureId, { phase: 'settled' })
        }
        previous = snapshot
        if (actors.get(anchorId) === actor) publish(sessionId)
      },
      // A failing actor must not take the page down: it is forgotten and shows nothing.
      error: () => remove(sessionId, anchorId),
    })
    actor.start()
    return actor
  }

  function remove(sessionId: string, anchorId: string) {
    const actors = sessions.get(sessionId)
    const actor = actors?.get(anchorId)
    if (!actors || !actor) return
    actors.delete(anchorId)
    actor.stop()
    publish(sessionId)
  }

  /**
   * Another tab (or this one) changed the board: a cancel there is a cancel here, a regenerate by
   * hand there ends the countdown here, and an armed schedule there is the one counted down here.
   * Deferred a microtask: the write may come from inside one of these actors' own transitions.
   */
  function onBoardChange() {
    queueMicrotask(() => {
      for (const [sessionId, actors] of [...sessions]) {
        for (const [anchorId, actor] of [...actors]) {
          const snapshot = actor.getSnapshot()
          const record = board.read(sessionId, anchorId)
          if (!record || record.failureId !== snapshot.context.failedMessageId) continue
          const waiting = snapshot.matches('armed') || snapshot.matches('held')
          const live = waiting || snapshot.matches('dispatching') || snapshot.matches('watching')
          if (record.phase === 'cancelled' && live) actor.send({ type: 'retry.cancel' })
          else if (record.phase === 'dismissed' && live) remove(sessionId, anchorId)
          else if (record.phase === 'armed' && waiting) {
            const { attempt, deadline, paused } = snapshot.context
            const differs = record.attempt !== attempt || record.deadline !== deadline || record.paused !== paused
            if (differs && record.attempt >= attempt) actor.send({ type: 'shared.adopt' })
          }
        }
      }
    })
  }
  const stopBoard = board.subscribe(onBoardChange)
  const stopNetwork = network.subscribe((online) => {
    for (const actors of sessions.values()) for (const actor of actors.values()) actor.send({ type: 'network', online })
  })

  return {
    /** History of a session was read: arm, settle or release its schedulers accordingly. */
    feed(sessionId: string, history: readonly Message[]): void {
      const candidate = armingCandidate(history, cancelled())
      if (candidate) actorFor(sessionId, candidate.anchorId).send({ type: 'failure.observed', message: candidate.failure })
      for (const [anchorId, actor] of [...(sessions.get(sessionId) ?? [])]) {
        const snapshot = actor.getSnapshot()
        const runId = snapshot.context.runId
        if (snapshot.matches('watching') && runId) {
          const reply = settledReply(history, runId)
          if (reply) actor.send({ type: 'run.settled', runId, message: reply })
        }
        const now = actor.getSnapshot()
        const atRest = now.matches('idle') || now.matches({ cancelled: 'quiet' }) || now.matches('refused')
        const stance = now.matches('armed') || now.matches('held') ? 'waiting' : atRest ? 'at rest' : 'busy'
        if (outlivedBy(history, anchorId, now.context.failedMessageId, stance)) remove(sessionId, anchorId)
      }
    },
    retryNow(sessionId: string, anchorId: string): void {
      sessions.get(sessionId)?.get(anchorId)?.send({ type: 'retry.now' })
    },
    cancel(sessionId: string, anchorId: string): void {
      sessions.get(sessionId)?.get(anchorId)?.send({ type: 'retry.cancel' })
    },
    /** Forgets the scheduler of an anchor the operator regenerates by hand, in every tab. */
    dismiss(sessionId: string, anchorId: string): void {
      const record = board.read(sessionId, anchorId)
      if (record && (record.phase === 'armed' || record.phase === 'dispatching' || record.phase === 'watching')) {
        board.update(sessionId, anchorId, record.failureId, { phase: 'dismissed' })
      }
      remove(sessionId, anchorId)
    },
    /** Leaving the session stops its schedulers (a countdown is interactive-only, by design). */
    release(sessionId: string): void {
      const actors = sessions.get(sessionId)
      if (!actors) return
      sessions.delete(sessionId)
      for (const actor of actors.values()) actor.stop()
      publish(sessionId)
    },
    /** The session's schedulers by anchor; the same map until one of them changes. */
    snapshot(sessionId: string): SessionRetries {
      return snapshots.get(sessionId) ?? EMPTY
    },
    subscribe(sessionId: string, listener: () => void): () => void {
      return listeners.subscribe(sessionId, listener)
    },
    /** Stops every machine and wake listener (tests, and the end of the page). */
    dispose(): void {
      for (const sessionId of [...sessions.keys()]) this.release(sessionId)
      stopWake?.()
      stopWake = undefined
      stopBoard()
      stopNetwork()
    },
  }
}

export type RetryScheduler = ReturnType<typeof createRetryScheduler>
