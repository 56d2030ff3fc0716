/**
 * The tier 2 retry scheduler for one anchor (the operator message whose replies keep failing):
 * arms from a persisted, classified failure, counts down to a deadline, regenerates the anchor,
 * watches the new run, and stops the moment the operator cancels. The schedule itself is in
 * `schedule.ts`; this machine only decides when to consult it.
 *
 * The network is injected: `regenerate` and `cancelAccepted` are named actors whose real
 * implementations are supplied with `retryMachine.provide({ actors: { ... } })`.
 */
import { and, assertEvent, assign, fromPromise, setup } from 'xstate'
import type { SnapshotFrom } from 'xstate'
import type { Message, RegenerateReceipt } from '../wire/types'
import { isArmable, remainingMs, retryDeadline } from './schedule'

/**
 * The clock the machine reads; injected so tests and the hook agree on "now". `fromDaemon`
 * places a daemon time (`retry_after_until`) on this clock, correcting for skew.
 */
export type RetryClock = { now(): number; fromDaemon?(daemonMs: number): number }

/** What one scheduler instance is created with. */
export type RetryInput = {
  anchorId: string
  sessionId: string
  clock: RetryClock
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

/** Input of the `regenerate` actor. */
export type RegenerateInput = { sessionId: string; anchorId: string; generation: number }
/** Output of the `regenerate` actor: the receipt, tagged with the generation that asked for it. */
export type RegenerateOutput = { generation: number; receipt: RegenerateReceipt }

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

function notProvided(name: string): never {
  throw new Error(
    `retryMachine: the "${name}" actor was not provided; supply it with retryMachine.provide({ actors: { ${name} } })`,
  )
}

/**
 * Builds the `regenerate` actor from a plain request function, tagging the output with the
 * generation it was started with so the machine can drop a late answer to an older arming.
 */
export function fromRegenerate(
  request: (input: RegenerateInput, signal: AbortSignal) => Promise<RegenerateReceipt>,
) {
  return fromPromise<RegenerateOutput, RegenerateInput>(async ({ input, signal }) => ({
    generation: input.generation,
    receipt: await request(input, signal),
  }))
}

/** True for an error shaped like a daemon refusal: a numeric HTTP status and a string code. */
export function isRegenerateRefusal(error: unknown): error is RegenerateRefusal {
  if (typeof error !== 'object' || error === null) return false
  const { status, code } = error as { status?: unknown; code?: unknown }
  return typeof status === 'number' && typeof code === 'string'
}

function isFreshFailure(context: RetryContext, message: Message): boolean {
  if (message.reply_to !== context.anchorId) return false
  // The same failure never arms twice, and an older one (from a stale transcript) never re-arms.
  if (message.id === context.failedMessageId) return false
  if (context.failureCreatedAt !== null && message.created_at <= context.failureCreatedAt) return false
  // A failure of a run this scheduler already settled or cancelled (a cancel that landed too
  // late) never arms: the operator's cancel must stick.
  return message.run_id === undefined || message.run_id !== context.runId
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
    untilDeadline: ({ context }) =>
      Math.min(MAX_TIMER_MS, remainingMs(context.deadline ?? 0, context.clock.now())),
  },
  guards: {
    freshArmableFailure: ({ context, event }) => {
      assertEvent(event, 'failure.observed')
      return isArmable(event.message) && isFreshFailure(context, event.message)
    },
    deadlineReached: ({ context }) => context.deadline !== null && context.clock.now() >= context.deadline,
    currentGeneration: ({ context }, params: { generation: number }) => params.generation === context.generation,
    // 4xx refusals (message_not_found, not_operator_message, unauthorized…) will not pass by
    // themselves: retrying them would loop. 5xx (internal_error, daemon_unavailable) change
    // nothing on the daemon and may pass, so they are retried like a network failure.
    refusedByDaemon: (_, params: { error: unknown }) =>
      isRegenerateRefusal(params.error) && params.error.status < 500,
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
      const { clock } = context
      // The provider's time is on the daemon's clock: a browser clock minutes off must neither
      // fire early nor wait minutes too long.
      const until = typeof retryAfterUntil === 'number' && clock.fromDaemon ? clock.fromDaemon(retryAfterUntil) : retryAfterUntil
      const { deadline, paused } = retryDeadline({ attempt, now: clock.now(), retryAfterUntil: until })
      return {
        attempt,
        generation: context.generation + 1,
        deadline,
        paused,
        ...(failure ? { failedMessageId: failure.id, failureCreatedAt: failure.created_at } : {}),
      }
    }),
    clearRefusal: assign({ lastError: null }),
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
    failedMessageId: null,
    failureCreatedAt: null,
    runId: null,
    lastError: null,
    dispatchedAt: null,
  }),
  initial: 'idle',
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
        // Someone regenerated by hand and that failed too: start over from the new failure.
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
        }),
        onDone: {
          guard: { type: 'currentGeneration', params: ({ event }) => ({ generation: event.output.generation }) },
          target: 'watching',
          actions: { type: 'recordRun', params: ({ event }) => ({ runId: event.output.receipt.run_id }) },
        },
        // An abort never arrives here: it happens only when this state is left, and XState drops
        // the result of a stopped actor.
        onError: [
          {
            guard: { type: 'refusedByDaemon', params: ({ event }) => ({ error: event.error }) },
            target: 'refused',
            actions: { type: 'recordRefusal', params: ({ event }) => ({ error: event.error }) },
          },
          // A regenerate lost in transit is as transient as the failure that armed us: no run was
          // seen, so that failure still stands and the next attempt simply waits longer.
          {
            target: 'armed',
            actions: { type: 'arm', params: ({ context }) => ({ attempt: context.attempt + 1, retryAfterUntil: undefined }) },
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
            guard: and(['watchedRun', 'runFailedArmable']),
            target: 'armed',
            actions: {
              type: 'arm',
              params: ({ context, event }) => ({
                attempt: context.attempt + 1,
                retryAfterUntil: event.message.retry?.retry_after_until,
                failure: event.message,
              }),
            },
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

/** The one list of transitions a fresh, armable, persisted failure takes: arm from attempt 1. */
function armOnFreshFailure() {
  return {
    guard: 'freshArmableFailure',
    target: '#retry.armed',
    reenter: true,
    actions: [
      'clearRefusal',
      {
        type: 'arm',
        params: ({ event }: { event: RetryEvent }) => {
          assertEvent(event, 'failure.observed')
          return { attempt: 1, retryAfterUntil: event.message.retry?.retry_after_until, failure: event.message }
        },
      },
    ],
  } as const
}

/** The machine's type. */
export type RetryMachine = typeof retryMachine
/** A snapshot of the machine, as `retryView` reads it. */
export type RetrySnapshot = SnapshotFrom<typeof retryMachine>
