/**
 * When tier 2 arms, in one place. A failed reply arms its anchor's scheduler only when all three
 * hold, each a pure function here:
 *
 * 1. `armingCandidate` (the scheduler's `feed`, on every history read): it is the reply at the end
 *    of the conversation, history has recorded its failure, and the operator has not cancelled its
 *    retry;
 * 2. `isArmable` (the machine's `freshArmableFailure` guard): its persisted classification says
 *    `retryable` and names a transient class;
 * 3. `isFreshFailure` (the same guard): it is newer than anything this anchor's scheduler has
 *    already armed from, settled or cancelled.
 *
 * And how it arms (`rerunsWrites`): counting down, or held for the operator when regenerating
 * would run a `write` tool again.
 *
 * And when a scheduler is let go again (`outlivedBy`). Everything is read from the daemon's
 * persisted messages, never from a frame the stream has not confirmed in history.
 */
import type { Message, ToolStatus } from '../wire/types'
import { TRANSIENT_RETRY_CLASSES } from '../wire/types'

const ENDED = new Set(['complete', 'failed', 'cancelled'])
const transientClasses: ReadonlySet<string> = new Set(TRANSIENT_RETRY_CLASSES)

/** The last message of the main flow (superseded ones are history's past, not its end). */
function tailOf(history: readonly Message[]): Message | undefined {
  return history.findLast((m) => !m.superseded)
}

/**
 * The failed reply that may arm tier 2 now, with its anchor: only the reply at the end of the
 * conversation (regenerating an earlier one would supersede what the operator wrote after it),
 * only a failure history has recorded, and never one whose retry the operator cancelled (`cancelled`
 * holds the failed replies' ids and the ids of the runs a cancel reached).
 */
export function armingCandidate(history: readonly Message[], cancelled: ReadonlySet<string>): { anchorId: string; failure: Message } | undefined {
  const tail = tailOf(history)
  if (!tail || tail.role !== 'agent' || !tail.reply_to || tail.status !== 'failed') return undefined
  if (cancelled.has(tail.id) || (tail.run_id !== undefined && cancelled.has(tail.run_id))) return undefined
  return { anchorId: tail.reply_to, failure: tail }
}

/**
 * Whether this message may arm tier 2: a current (not superseded) agent reply that failed with a
 * persisted classification saying `retryable` and naming a transient class. Everything else —
 * a cancelled run, a superseded reply, a coarse failure with no classification, a terminal or
 * unknown class even when marked retryable — is left to the operator.
 */
export function isArmable(message: Message): boolean {
  if (message.role !== 'agent' || message.superseded) return false
  // A cancelled run ends `cancelled`, never `failed`: a cancelled run must never arm tier 2.
  if (message.status !== 'failed') return false
  const retry = message.retry
  if (retry === undefined || retry.retryable !== true) return false
  return transientClasses.has(retry.retry_class)
}

/**
 * The statuses of a tool that ran: it reached `running` (a tool that failed ran too). `input`,
 * `awaiting_approval` and `denied` never ran; `cancelled` is counted as not run, since a cancel
 * ends a tool that was still waiting for its input or the operator's decision.
 */
const RAN: ReadonlySet<ToolStatus> = new Set(['running', 'done', 'failed'])

/**
 * The `write` tools a regenerate of this failed reply would run again: those that ran, by name, in
 * the order they were called, each once. Regenerating re-runs the agent from its anchor, so a
 * reply holding any of them arms held (no countdown; only Retry now regenerates); a reply whose
 * tools were all `read` (or never ran) counts down as usual.
 */
export function rerunsWrites(message: Pick<Message, 'parts'>): string[] {
  const names: string[] = []
  for (const part of message.parts ?? []) {
    if (part.type === 'tool' && part.effect === 'write' && RAN.has(part.status) && !names.includes(part.name)) names.push(part.name)
  }
  return names
}

/** What a scheduler remembers of its anchor's last episode, as `isFreshFailure` reads it. */
export type EpisodeMemory = {
  anchorId: string
  /** The failed reply it last armed from (or settled on). */
  failedMessageId: string | null
  /** `created_at` of that reply. */
  failureCreatedAt: number | null
  /** The run it last watched, settled or cancelled. */
  runId: string | null
}

/** Whether `message` is a failure of this anchor the scheduler has not dealt with yet. */
export function isFreshFailure(memory: EpisodeMemory, message: Message): boolean {
  if (message.reply_to !== memory.anchorId) return false
  // The same failure never arms twice, and an older one (from a stale transcript) never re-arms.
  if (message.id === memory.failedMessageId) return false
  if (memory.failureCreatedAt !== null && message.created_at <= memory.failureCreatedAt) return false
  // A failure of a run this scheduler already settled or cancelled (a cancel that landed too
  // late) never arms: the operator's cancel must stick.
  return message.run_id === undefined || message.run_id !== memory.runId
}

/** True while the reply at the end of the conversation still answers `anchorId`. */
export function answersTail(history: readonly Message[], anchorId: string): boolean {
  const tail = tailOf(history)
  return tail?.role === 'agent' && tail.reply_to === anchorId
}

/**
 * Whether history has moved past an anchor's scheduler, so that it is let go: the operator wrote
 * after its reply, or regenerated it (here or in another tab), and its countdown must not
 * regenerate over that. A scheduler at rest (settled, cancelled, refused) of an earlier reply has
 * nothing more to show or do (its cancel is remembered in storage), so letting it go keeps one
 * scheduler per session however long the conversation runs. One with a request or a run in
 * flight (`busy`) handles its own outcome.
 */
export function outlivedBy(
  history: readonly Message[],
  anchorId: string,
  failedMessageId: string | null,
  stance: 'waiting' | 'at rest' | 'busy',
): boolean {
  if (stance === 'busy') return false
  if (!answersTail(history, anchorId)) return true
  const failure = failedMessageId ? history.find((m) => m.id === failedMessageId) : undefined
  return stance === 'waiting' && failure?.superseded === true
}

/** The reply of `runId` once history records its end (with its persisted outcome). */
export function settledReply(history: readonly Message[], runId: string): Message | undefined {
  const reply = history.find((m) => m.run_id === runId)
  return reply?.status && ENDED.has(reply.status) ? reply : undefined
}

/** How far before the request a reply may be dated and still be its run (clocks and rounding). */
export const STRAY_SLACK_MS = 1000

/**
 * The run a regenerate started although its request was aborted in flight: the reply for the
 * anchor created after the request went out. An ended one counts too: a run that failed at once
 * must be known as the cancelled one, or its failure would arm again.
 */
export function strayRun(history: readonly Message[], anchorId: string, dispatchedAt: number): string | undefined {
  const stray = history.find(
    (m) =>
      m.role === 'agent' &&
      m.reply_to === anchorId &&
      !m.superseded &&
      m.run_id &&
      m.created_at >= dispatchedAt - STRAY_SLACK_MS,
  )
  return stray?.run_id
}
