/**
 * The tier 2 retry scheduler for one anchor (the operator message whose replies keep failing):
 * arms from a persisted, classified failure, counts down to a deadline, regenerates the anchor,
 * watches the new run, and stops the moment the operator cancels. A failure whose reply ran a
 * `write` tool arms `held` instead: regenerating would run that tool again, so no timer is set and
 * only the operator's Retry now regenerates. Whether a failure arms (and whether it is held) is
 * eligibility.ts and the waits are schedule.ts; this machine only decides when to consult them.
 *
 * The network is injected: `regenerate` and `cancelAccepted` are named actors whose real
 * implementations are supplied with `retryMachine.provide({ actors: { ... } })`.
 */
import { and, assertEvent, assign, fromPromise, setup } from 'xstate'
import type { SnapshotFrom } from 'xstate'
import type { Message, RegenerateReceipt } from '../wire/types'
import { isArmable, isFreshFailure, rerunsWrites } from './eligibility'
import { remainingMs, retryDeadline } from './schedule'
import type { BoardPhase, BoardRecord, RetryBoard } from './board'

/**
 * The clock the machine reads; injected so tests and the hook agree on "now". `fromDaemon`
 * places a daemon time (`retry_after_until`) on this clock, correcting for skew.
 */
export type RetryClock = { now(): number; fromDaemon?(daemonMs: number): number }

/** Whether the browser believes it is online (`navigator.onLine`); injected for tests. */
export type NetworkProbe = { online(): boolean }

/** What one scheduler instance is created with. */
export type RetryInput = {
  anchorId: string
  sessionId: string
  clock: RetryClock
  /**
   * The schedule shared by the tabs and kept across reloads: arming adopts the attempt and
   * deadline already there for the same failure. Without it the machine keeps to itself.
   */
  board?: RetryBoard
  network?: NetworkProbe
}

/** A refused regenerate, as the HTTP client throws it (structurally: a status and a code). */
export type RegenerateRefusal = { status: number; code: string }

/** The machine's context; read it through `retryView` in the UI. */
export type RetryContext = {
  anchorId: string
  sessionId: string
  clock: RetryClock
  /** The upcoming automatic attempt, 1-based. */
  attempt: number
  /** Bumped on every arming; a regenerate result from an older generation changes nothing. */
  generation: number
  /** When the upcoming attempt fires (epoch ms); null when nothing is scheduled. */
  deadline: number | null
  /**
   * The wait was beyond the backoff cap when armed: the countdown is paused and the operator
   * sees "retry after HH:MM". The same `armed` state either way; only the face differs.
   */
  paused: boolean
  /**
   * The `write` tools regenerating the failed reply would run again (`rerunsWrites`, or the
   * board's `held` for that failure). Non-empty: the attempt is `held` for the operator's Retry
   * now, and `deadline` is not counted down.
   */
  rerun: readonly string[]
  /** The failed reply that armed (or last re-armed) the scheduler. */
  failedMessageId: string | null
  /** `created_at` of that reply: an older failure can never arm again. */
  failureCreatedAt: number | null
  /** The run being watched, or the last run this scheduler settled or cancelled. */
  runId: string | null
  /** The refusal that stopped the scheduler, in `refused`. */
  lastError: RegenerateRefusal | null
  /** When the current regenerate request was sent (epoch ms). */
  dispatchedAt: number | null
  board: RetryBoard | undefined
  network: NetworkProbe | undefined
  /** Online as last told; while false an armed wait burns no attempt and shows it waits for the network. */
  online: boolean
}

export type RetryEvent =
  /** A persisted failed reply for this anchor; the hook may send the same one repeatedly. */
  | { type: 'failure.observed'; message: Message }
  /** Skip the wait. */
  | { type: 'retry.now' }
  /** The operator cancels the scheduler. */
  | { type: 'retry.cancel' }
  /** Re-read the clock (visibilitychange, focus, a UI tick): an overdue attempt fires at once. */
  | { type: 'clock.check' }
  /** The watched run ended; `message` is its reply as persisted. */
  | { type: 'run.settled'; runId: string; message: Message }
  /** The browser went offline or came back (`online`/`offline` events). */
  | { type: 'network'; online: boolean }
  /** Another tab changed the shared schedule of this failure: take its attempt and deadline. */
  | { type: 'shared.adopt' }

/** Input of the `regenerate` actor: which attempt after which failure it is asked to make. */
export type RegenerateInput = {
  sessionId: string
  anchorId: string
  generation: number
  attempt: number
  failureId: string | null
  failureCreatedAt: number | null
}
/**
 * Why the tab holding the dispatch lock sent nothing, and where that leaves this machine:
 * - `cancelled`: the operator cancelled in another tab (`cancelled`);
 * - `rearm`: another tab made this attempt and lost it; its next attempt is on the board (`armed`);
 * - `stale`: the schedule moved on elsewhere (a later failure, a regenerate by hand) (`idle`).
 */
export type SkipReason = 'cancelled' | 'stale' | 'rearm'
/** A regenerate that sent nothing; `runId` is a run it started and cancelled at once. */
export type Declined = { skipped: SkipReason; runId?: string }

/**
 * Output of the `regenerate` actor, tagged with the generation that asked for it: the receipt
 * (this tab's request, or the run another tab's request started for the same attempt), or why
 * nothing was sent.
 */
export type RegenerateOutput = { generation: number; receipt: RegenerateReceipt } | ({ generation: number } & Declined)

/** Input of the `cancelAccepted` actor. */
export type CancelAcceptedInput = {
  sessionId: string
  anchorId: string
  /** The run to cancel, when the regenerate receipt arrived before the cancel. */
  runId?: string
  /** When the cancelled regenerate was sent: without a run id, look for a reply created after it. */
  dispatchedAt: number
}
/** Output of the `cancelAccepted` actor: the run it cancelled, if it found one. */
export type CancelAcceptedOutput = { runId?: string } | void

/** The longest delay a timer can hold (setTimeout's signed 32-bit limit); longer waits re-check. */
export const MAX_TIMER_MS = 2 ** 31 - 1
/** While offline with an overdue attempt, how often the clock is looked at (the `online` event is the real cue). */
const OFFLINE_RECHECK_MS = 30_000

function notProvided(name: string): never {
  throw new Error(
    `retryMachine: the "${name}" actor was not provided; supply it with retryMachine.provide({ actors: { ${name} } })`,
  )
}

/**
 * Builds the `regenerate` actor from a request function, tagging the output with the generation
 * it was started with so the machine can drop a late answer to an older arming. The request may
 * decline to send (the tabs' dispatch check in dispatch.ts).
 */
export function fromRegenerate(request: (input: RegenerateInput, signal: AbortSignal) => Promise<RegenerateReceipt | Declined>) {
  return fromPromise<RegenerateOutput, RegenerateInput>(async ({ input, signal }) => {
    const result = await request(input, signal)
    if (!('skipped' in result)) return { generation: input.generation, receipt: result }
    return result.runId === undefined ? { generation: input.generation, skipped: result.skipped } : { generation: input.generation, skipped: result.skipped, runId: result.runId }
  })
}

/** Board phases in which a failure's episode is under way (or cancelled): an arming adopts them. */
const ADOPTABLE: ReadonlySet<BoardPhase> = new Set(['armed', 'dispatching', 'watching', 'cancelled'])

/**
 * The board already holds this failure's episode at `attempt` or later (another tab, or this page
 * before a reload): its attempt and deadline stand, so every tab counts down alike and a reload
 * does not start again at 2 s.
 */
function boardHolds(record: BoardRecord | undefined, failureId: string | null, attempt: number): boolean {
  return record !== undefined && failureId !== null && record.failureId === failureId && ADOPTABLE.has(record.phase) && record.attempt >= attempt
}

/**
 * The `write` tools a regenerate after `failure` would run again: from its parts, or, when its
 * parts say none, from the board, where another tab (or this page before a reload) recorded the
 * hold of this same failure. A hold once seen is kept: a read that lost the parts must not turn
 * it into a countdown.
 */
function heldTools(record: BoardRecord | undefined, failure: Message): readonly string[] {
  const own = rerunsWrites(failure)
  if (own.length > 0) return own
  return record !== undefined && record.failureId === failure.id && ADOPTABLE.has(record.phase) ? (record.held ?? []) : []
}

/** The attempt, deadline and face an arming should take, given the shared record of this anchor. */
function adoptFromBoard(
  record: BoardRecord | undefined,
  mine: { attempt: number; deadline: number; paused: boolean; failureId: string | null; runOfFailure: string | undefined },
  recompute: (attempt: number) => { deadline: number; paused: boolean },
): { attempt: number; deadline: number; paused: boolean } {
  if (!record || mine.failureId === null) return mine
  if (boardHolds(record, mine.failureId, mine.attempt)) return { attempt: record.attempt, deadline: record.deadline, paused: record.paused }
  // The failure of the run the record was watching: the attempt after that one.
  if (record.runId !== undefined && record.runId === mine.runOfFailure && record.attempt + 1 > mine.attempt) {
    const attempt = record.attempt + 1
    return { attempt, ...recompute(attempt) }
  }
  return mine
}

/** True for an error shaped like a daemon refusal: a numeric HTTP status and a string code. */
export function isRegenerateRefusal(error: unknown): error is RegenerateRefusal {
  if (typeof error !== 'object' || error === null) return false
  const { status, code } = error as { status?: unknown; code?: unknown }
  return typeof status === 'number' && typeof code === 'string'
}

/**
 * How a regenerate that threw ends, the one rule for `dispatching.onError` and for what the tab
 * holding the dispatch lock writes on the board before the lock passes on:
 * - `refused`: the daemon refused it with a 4xx (message_not_found, not_operator_message,
 *   unauthorized…), which will not pass by itself: retrying would loop, so the operator decides;
 * - `offline`: lost while the browser is offline: that is the network, not the attempt, so the
 *   same attempt waits, overdue, and fires the moment the browser is back online;
 * - `lost`: lost in transit, or a 5xx (internal_error, daemon_unavailable, which change nothing
 *   on the daemon): as transient as the failure that armed, so the next attempt waits longer.
 */
export type LostDispatch = 'refused' | 'offline' | 'lost'

/** Which `LostDispatch` a regenerate's `error` is, `offline` as the browser was when it threw. */
export function lostDispatch(error: unknown, offline: boolean): LostDispatch {
  if (isRegenerateRefusal(error) && error.status < 500) return 'refused'
  return offline ? 'offline' : 'lost'
}

/** Where the next arming's attempt number and provider time come from. */
type ArmParams = { attempt: number; retryAfterUntil: unknown; failure?: Message }

/**
 * The tier 2 scheduler, one actor per anchor. Create it with
 * `createActor(retryMachine.provide({ actors: { regenerate, cancelAccepted } }), { input })`;
 * the defaults of both actors reject with a "not provided" error.
 */
export const retryMachine = setup({
  types: {
    context: {} as RetryContext,
    events: {} as RetryEvent,
    input: {} as RetryInput,
  },
  actors: {
    regenerate: fromPromise<RegenerateOutput, RegenerateInput>(async () => notProvided('regenerate')),
    cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(async () => notProvided('cancelAccepted')),
  },
  delays: {
    // setTimeout fires at once when asked to wait more than 2^31−1 ms, and any timer may fire
    // early or late; the timer only prompts a re-check of the clock against the deadline.
    // Offline, the `network` event re-arms the timer; until then it only re-checks now and then.
    untilDeadline: ({ context }) =>
      context.online ? Math.min(MAX_TIMER_MS, remainingMs(context.deadline ?? 0, context.clock.now())) : OFFLINE_RECHECK_MS,
  },
  guards: {
    freshArmableFailure: ({ context, event }) => {
      assertEvent(event, 'failure.observed')
      return isArmable(event.message) && isFreshFailure(context, event.message)
    },
    // Regenerating would run a `write` tool of this failed reply again: the operator decides when.
    failureHeld: ({ context, event }) => {
      assertEvent(event, ['failure.observed', 'run.settled'])
      return heldTools(context.board?.read(context.sessionId, context.anchorId), event.message).length > 0
    },
    // The attempt being dispatched was held: whatever becomes of it, the next one is held too
    // (no run was seen, so the failure that armed still stands).
    heldAttempt: ({ context }) => context.rerun.length > 0,
    // Offline, an overdue attempt waits: a regenerate now would only fail and burn the attempt.
    deadlineReached: ({ context }) => context.online && context.deadline !== null && context.clock.now() >= context.deadline,
    backOnlineOverdue: ({ context, event }) => {
      assertEvent(event, 'network')
      return event.online && context.deadline !== null && context.clock.now() >= context.deadline
    },
    currentGeneration: ({ context }, params: { generation: number }) => params.generation === context.generation,
    // With `held`, only while the attempt dispatched was held (`heldAttempt`).
    declinedAs: ({ context }, { output, reason, held }: { output: RegenerateOutput; reason: SkipReason; held?: true }) =>
      output.generation === context.generation && 'skipped' in output && output.skipped === reason && (!held || context.rerun.length > 0),
    lostAs: ({ context }, params: { error: unknown; outcome: LostDispatch; held?: true }) =>
      lostDispatch(params.error, !context.online || context.network?.online() === false) === params.outcome && (!params.held || context.rerun.length > 0),
    watchedRun: ({ context, event }) => {
      assertEvent(event, 'run.settled')
      return context.runId !== null && event.runId === context.runId
    },
    runCompleted: ({ event }) => {
      assertEvent(event, 'run.settled')
      return event.message.status === 'complete'
    },
    runCancelled: ({ event }) => {
      assertEvent(event, 'run.settled')
      return event.message.status === 'cancelled'
    },
    runFailed: ({ event }) => {
      assertEvent(event, 'run.settled')
      return event.message.status === 'failed'
    },
    runFailedArmable: ({ context, event }) => {
      assertEvent(event, 'run.settled')
      return isArmable(event.message) && event.message.id !== context.failedMessageId
    },
  },
  actions: {
    /**
     * The one way to arm: the deadline of `attempt` from the schedule (never before the
     * provider's time), a new generation, and the failure it answers when there is one.
     */
    arm: assign(({ context }, { attempt, retryAfterUntil, failure }: ArmParams) => {
      const { clock, board, sessionId, anchorId } = context
      // The provider's time is on the daemon's clock: a browser clock minutes off must neither
      // fire early nor wait minutes too long.
      const until = typeof retryAfterUntil === 'number' && clock.fromDaemon ? clock.fromDaemon(retryAfterUntil) : retryAfterUntil
      const recompute = (n: number) => retryDeadline({ attempt: n, now: clock.now(), retryAfterUntil: until })
      const record = board?.read(sessionId, anchorId)
      const chosen = adoptFromBoard(
        record,
        { attempt, ...recompute(attempt), failureId: failure?.id ?? context.failedMessageId, runOfFailure: failure?.run_id },
        recompute,
      )
      return {
        attempt: chosen.attempt,
        generation: context.generation + 1,
        // Held, the deadline is kept (the board's record needs one) but nothing counts it down.
        deadline: chosen.deadline,
        paused: chosen.paused,
        ...(failure ? { failedMessageId: failure.id, failureCreatedAt: failure.created_at, rerun: heldTools(record, failure) } : {}),
      }
    }),
    /** Another tab's schedule for this same failure: its attempt and deadline, a new generation. */
    adoptShared: assign(({ context }) => {
      const record = context.board?.read(context.sessionId, context.anchorId)
      if (!record || record.failureId !== context.failedMessageId || record.attempt < context.attempt || record.phase !== 'armed') return {}
      if (record.attempt === context.attempt && record.deadline === context.deadline && record.paused === context.paused) return {}
      return { attempt: record.attempt, deadline: record.deadline, paused: record.paused, generation: context.generation + 1 }
    }),
    /**
     * Tells the other tabs (and a reload) the schedule `arm` chose, unless it was the board's to
     * begin with: an adopted episode may be further on there (dispatching, watching, cancelled).
     */
    shareArmed: ({ context }) => {
      const { board, sessionId, anchorId, failedMessageId, attempt, deadline, paused, rerun } = context
      if (!board || failedMessageId === null || deadline === null || boardHolds(board.read(sessionId, anchorId), failedMessageId, attempt)) return
      board.write(sessionId, anchorId, {
        failureId: failedMessageId,
        failureCreatedAt: context.failureCreatedAt ?? 0,
        attempt,
        deadline,
        paused,
        ...(rerun.length > 0 ? { held: [...rerun] } : {}),
        phase: 'armed',
      })
    },
    /** The regenerate was lost while offline (`LostDispatch`): the same attempt waits, overdue. */
    holdForNetwork: assign(({ context }) => {
      const now = context.clock.now()
      return { generation: context.generation + 1, deadline: Math.min(context.deadline ?? now, now), paused: false, online: false }
    }),
    /** Tells the other tabs the attempt kept for the network is overdue. */
    shareOverdue: ({ context }) => {
      const { board, sessionId, anchorId, failedMessageId, deadline } = context
      if (deadline !== null) board?.update(sessionId, anchorId, failedMessageId ?? '', { phase: 'armed', deadline, paused: false })
    },
    setOnline: assign(({ event }) => {
      assertEvent(event, 'network')
      return { online: event.online }
    }),
    clearRefusal: assign({ lastError: null }),
    resetEpisode: assign({ attempt: 1, deadline: null, paused: false, rerun: [] }),
    markDispatched: assign(({ context }) => ({ dispatchedAt: context.clock.now(), runId: null })),
    recordRun: assign((_, params: { runId: string }) => ({ runId: params.runId })),
    recordRefusal: assign((_, params: { error: unknown }) => ({
      lastError: isRegenerateRefusal(params.error) ? params.error : null,
    })),
    recordRevokedRun: assign(({ context }, params: { runId: string | undefined }) => ({
      runId: params.runId ?? context.runId,
    })),
    // The anchor's episode is over (success, or a failure the operator must handle): the next
    // failure starts again from the first attempt.
    settle: assign(({ context, event }) => {
      assertEvent(event, 'run.settled')
      const failed = event.message.status === 'failed'
      return {
        attempt: 1,
        deadline: null,
        paused: false,
        rerun: [],
        failedMessageId: failed ? event.message.id : context.failedMessageId,
        failureCreatedAt: failed ? event.message.created_at : context.failureCreatedAt,
      }
    }),
  },
}).createMachine({
  id: 'retry',
  context: ({ input }) => ({
    anchorId: input.anchorId,
    sessionId: input.sessionId,
    clock: input.clock,
    attempt: 1,
    generation: 0,
    deadline: null,
    paused: false,
    rerun: [],
    failedMessageId: null,
    failureCreatedAt: null,
    runId: null,
    lastError: null,
    dispatchedAt: null,
    board: input.board,
    network: input.network,
    online: input.network?.online() ?? true,
  }),
  initial: 'idle',
  on: {
    network: { actions: 'setOnline' },
  },
  // A fresh persisted failure arms from the first attempt wherever the scheduler stands, except
  // while a request or a revoke is in flight (states that handle their own outcome).
  states: {
    idle: { on: { 'failure.observed': armOnFreshFailure() } },
    armed: {
      after: {
        untilDeadline: [
          { guard: 'deadlineReached', target: 'dispatching' },
          // Fired early (a capped or drifting timer): wait again for what is left.
          { target: 'armed', reenter: true },
        ],
      },
      on: {
        'clock.check': { guard: 'deadlineReached', target: 'dispatching' },
        'retry.now': { target: 'dispatching' },
        'retry.cancel': { target: 'cancelled.quiet' },
        // Back online: an overdue attempt fires at once; either way the timer is set again.
        network: [
          { guard: 'backOnlineOverdue', target: 'dispatching', actions: 'setOnline' },
          { target: 'armed', reenter: true, actions: 'setOnline' },
        ],
        'shared.adopt': { target: 'armed', reenter: true, actions: 'adoptShared' },
        // Someone regenerated by hand and that failed too: start over from the new failure.
        'failure.observed': armOnFreshFailure(),
      },
    },
    // Armed without a deadline in force: regenerating would run a `write` tool again, so nothing
    // fires by itself (no countdown, no cap, no provider time, not even back online); Retry now
    // dispatches as from `armed`, and Cancel cancels.
    held: {
      on: {
        'retry.now': { target: 'dispatching' },
        'retry.cancel': { target: 'cancelled.quiet' },
        // Another tab's attempt of this failure was lost: its next attempt is held here too.
        'shared.adopt': { actions: 'adoptShared' },
        'failure.observed': armOnFreshFailure(),
      },
    },
    dispatching: {
      entry: 'markDispatched',
      invoke: {
        id: 'regenerate',
        src: 'regenerate',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          anchorId: context.anchorId,
          generation: context.generation,
          attempt: context.attempt,
          failureId: context.failedMessageId,
          failureCreatedAt: context.failureCreatedAt,
        }),
        onDone: [
          {
            guard: { type: 'declinedAs', params: ({ event }) => ({ output: event.output, reason: 'cancelled' as const }) },
            // The operator cancelled in another tab before this one sent anything (or while it
            // was on the wire: the run it started was cancelled, and is remembered as such).
            target: 'cancelled.quiet',
            actions: {
              type: 'recordRevokedRun',
              params: ({ event }) => ({ runId: 'skipped' in event.output ? event.output.runId : undefined }),
            },
          },
          {
            guard: { type: 'declinedAs', params: ({ event }) => ({ output: event.output, reason: 'rearm' as const, held: true as const }) },
            target: 'held',
            actions: [{ type: 'arm', params: ({ context }) => ({ attempt: context.attempt + 1, retryAfterUntil: undefined }) }, 'shareArmed'],
          },
          {
            guard: { type: 'declinedAs', params: ({ event }) => ({ output: event.output, reason: 'rearm' as const }) },
            // Another tab made this attempt and lost it: its next attempt is on the board, and
            // arming the next attempt adopts it.
            target: 'armed',
            actions: [{ type: 'arm', params: ({ context }) => ({ attempt: context.attempt + 1, retryAfterUntil: undefined }) }, 'shareArmed'],
          },
          {
            guard: { type: 'declinedAs', params: ({ event }) => ({ output: event.output, reason: 'stale' as const }) },
            // The schedule moved on elsewhere (a later failure, a regenerate by hand): history
            // will show where it stands, and arms from there (adopting the shared attempt).
            target: 'idle',
            actions: 'resetEpisode',
          },
          {
            guard: { type: 'currentGeneration', params: ({ event }) => ({ generation: event.output.generation }) },
            target: 'watching',
            actions: {
              type: 'recordRun',
              params: ({ event }) => ({ runId: 'receipt' in event.output ? event.output.receipt.run_id : '' }),
            },
          },
        ],
        // An abort never arrives here: it happens only when this state is left, and XState drops
        // the result of a stopped actor.
        // One branch per `LostDispatch`. No run was seen, so the failure that armed still stands.
        onError: [
          {
            guard: { type: 'lostAs', params: ({ event }) => ({ error: event.error, outcome: 'refused' as const }) },
            target: 'refused',
            actions: { type: 'recordRefusal', params: ({ event }) => ({ error: event.error }) },
          },
          {
            guard: { type: 'lostAs', params: ({ event }) => ({ error: event.error, outcome: 'offline' as const, held: true as const }) },
            target: 'held',
            actions: ['holdForNetwork', 'shareOverdue'],
          },
          {
            guard: { type: 'lostAs', params: ({ event }) => ({ error: event.error, outcome: 'offline' as const }) },
            target: 'armed',
            actions: ['holdForNetwork', 'shareOverdue'],
          },
          {
            guard: 'heldAttempt',
            target: 'held',
            actions: [{ type: 'arm', params: ({ context }) => ({ attempt: context.attempt + 1, retryAfterUntil: undefined }) }, 'shareArmed'],
          },
          {
            target: 'armed',
            actions: [{ type: 'arm', params: ({ context }) => ({ attempt: context.attempt + 1, retryAfterUntil: undefined }) }, 'shareArmed'],
          },
        ],
      },
      on: {
        // Leaving aborts the request; the daemon may already have accepted it, so revoke.
        'retry.cancel': { target: 'cancelled.revoking' },
      },
    },
    watching: {
      on: {
        'run.settled': [
          { guard: and(['watchedRun', 'runCompleted']), target: 'idle', actions: 'settle' },
          // The operator pressed Stop: a cancelled run must never arm tier 2.
          { guard: and(['watchedRun', 'runCancelled']), target: 'cancelled.quiet' },
          {
            guard: and(['watchedRun', 'runFailedArmable', 'failureHeld']),
            target: 'held',
            actions: rearmAfterRun(),
          },
          {
            guard: and(['watchedRun', 'runFailedArmable']),
            target: 'armed',
            actions: rearmAfterRun(),
          },
          // Failed for a reason tier 2 must not retry: the operator decides.
          { guard: and(['watchedRun', 'runFailed']), target: 'idle', actions: 'settle' },
        ],
        'retry.cancel': { target: 'cancelled.revoking' },
      },
    },
    cancelled: {
      initial: 'quiet',
      states: {
        // The regenerate may have been accepted: cancel that run at once, best effort. Nothing
        // arms here: a failure reported now may be the very run being cancelled. The scheduler
        // re-reports failures, and `quiet` judges them once the cancelled run is known.
        revoking: {
          invoke: {
            id: 'cancelAccepted',
            src: 'cancelAccepted',
            input: ({ context }) => ({
              sessionId: context.sessionId,
              anchorId: context.anchorId,
              runId: context.runId ?? undefined,
              dispatchedAt: context.dispatchedAt ?? context.clock.now(),
            }),
            onDone: {
              target: 'quiet',
              actions: {
                type: 'recordRevokedRun',
                params: ({ event }) => ({ runId: (event.output as { runId?: string } | undefined)?.runId }),
              },
            },
            // Best effort: a run that cannot be cancelled has ended or never existed.
            onError: { target: 'quiet' },
          },
        },
        quiet: { on: { 'failure.observed': armOnFreshFailure() } },
      },
    },
    // The daemon refused the regenerate itself: retrying would loop, so the operator decides.
    refused: { on: { 'failure.observed': armOnFreshFailure() } },
  },
})

/**
 * The one list of transitions a fresh, armable, persisted failure takes: arm from attempt 1, held
 * when its reply ran a `write` tool, counting down otherwise.
 */
function armOnFreshFailure() {
  const actions = [
    'clearRefusal',
    {
      type: 'arm',
      params: ({ event }: { event: RetryEvent }) => {
        assertEvent(event, 'failure.observed')
        return { attempt: 1, retryAfterUntil: event.message.retry?.retry_after_until, failure: event.message }
      },
    },
    'shareArmed',
  ] as const
  return [
    { guard: and(['freshArmableFailure', 'failureHeld']), target: '#retry.held', reenter: true, actions },
    { guard: 'freshArmableFailure', target: '#retry.armed', reenter: true, actions },
  ] as const
}

/** The watched run failed armable: the attempt after it, from its failure (and its provider time). */
function rearmAfterRun() {
  return [
    {
      type: 'arm',
      params: ({ context, event }: { context: RetryContext; event: RetryEvent }) => {
        assertEvent(event, 'run.settled')
        return { attempt: context.attempt + 1, retryAfterUntil: event.message.retry?.retry_after_until, failure: event.message }
      },
    },
    'shareArmed',
  ] as const
}

/** A snapshot of the machine, as `retryView` reads it. */
export type RetrySnapshot = SnapshotFrom<typeof retryMachine>
