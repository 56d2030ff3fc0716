/**
 * A real tier 2 actor under fake timers, for the suites of what the UI reads of it (the view and
 * the announcer): failures of one anchor, and a snapshot in each status the view distinguishes.
 * Fake `setTimeout`, `clearTimeout` and `Date` at NOW before using it.
 */
import { createActor, fromPromise } from 'xstate'
import { vi } from 'vitest'
import {
  fromRegenerate,
  retryMachine,
  type CancelAcceptedInput,
  type CancelAcceptedOutput,
  type RetrySnapshot,
} from '../../src/retry/machine'
import { retryView, type RetryStatus, type RetryView } from '../../src/retry/view'
import type { Message, RegenerateReceipt } from '../../src/wire/types'

export const NOW = Date.UTC(2026, 6, 1, 12)
export const SECOND = 1000
export const MINUTE = 60 * SECOND
export const ANCHOR = 'op1'
const SID = 'ses_1'

let created = 0
export function failure(overrides: Partial<Message> = {}): Message {
  created += 1
  const id = overrides.id ?? `reply_${created}`
  return {
    id,
    session_id: SID,
    role: 'agent',
    content: '',
    created_at: NOW + created,
    superseded: false,
    reply_to: ANCHOR,
    run_id: `run_${id}`,
    status: 'failed',
    error: { code: 'model_rate_limited', message: 'Rate limited.' },
    retry: { retryable: true, retry_class: 'rate_limited' },
    ...overrides,
  }
}

/** A real actor whose regenerate answers are settled by the test and whose revokes succeed at once. */
function start() {
  const answers: Array<{ resolve: (r: RegenerateReceipt) => void; reject: (e: unknown) => void }> = []
  const machine = retryMachine.provide({
    actors: {
      regenerate: fromRegenerate(
        () =>
          new Promise<RegenerateReceipt>((resolve, reject) => {
            answers.push({ resolve, reject })
          }),
      ),
      cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(async ({ input }) => ({ runId: input.runId })),
    },
  })
  const actor = createActor(machine, { input: { anchorId: ANCHOR, sessionId: SID, clock: { now: () => Date.now() } } }).start()
  return {
    actor,
    snapshot: (): RetrySnapshot => actor.getSnapshot(),
    view: (): RetryView => retryView(actor.getSnapshot(), Date.now()),
    accept: async (runId: string) => {
      answers.at(-1)!.resolve({ run_id: runId, superseded: [], queued: false })
      await vi.advanceTimersByTimeAsync(0)
    },
    refuse: async (status: number, code: string) => {
      answers.at(-1)!.reject(Object.assign(new Error(code), { status, code }))
      await vi.advanceTimersByTimeAsync(0)
    },
  }
}

/** A `write_file` call that ran: a failed reply holding it arms held. */
const RAN_WRITE: NonNullable<Message['parts']> = [
  { type: 'tool', tool_call_id: 'tc_w', name: 'write_file', effect: 'write', input: '{}', status: 'done', started_at: NOW, ended_at: NOW },
]

/** A snapshot of a real actor in each status the view distinguishes. */
export async function snapshotIn(status: RetryStatus) {
  const h = start()
  const failed = failure()
  if (status === 'idle') return { h, failed }
  if (status === 'held') {
    const held = failure({ ...failed, parts: RAN_WRITE })
    h.actor.send({ type: 'failure.observed', message: held })
    return { h, failed: held }
  }
  if (status === 'paused') {
    h.actor.send({ type: 'failure.observed', message: failure({ ...failed, retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 50 * MINUTE } }) })
    return { h, failed }
  }
  h.actor.send({ type: 'failure.observed', message: failed })
  if (status === 'armed') return { h, failed }
  if (status === 'cancelled') {
    h.actor.send({ type: 'retry.cancel' })
    return { h, failed }
  }
  h.actor.send({ type: 'retry.now' })
  if (status === 'dispatching') return { h, failed }
  if (status === 'refused') {
    await h.refuse(422, 'not_operator_message')
    return { h, failed }
  }
  await h.accept('run_next')
  return { h, failed }
}
