/**
 * Which failed reply may arm which anchor's scheduler, given history. Pure functions of the
 * daemon's persisted messages (never a frame the stream has not confirmed in history) and the
 * failures the operator cancelled. The machine then checks the classification itself
 * (`isArmable` in schedule.ts) and that the failure is fresh.
 */
import type { Message } from '../wire/types'

const ENDED = new Set(['complete', 'failed', 'cancelled'])

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

/** True while the reply at the end of the conversation still answers `anchorId`. */
export function answersTail(history: readonly Message[], anchorId: string): boolean {
  const tail = tailOf(history)
  return tail?.role === 'agent' && tail.reply_to === anchorId
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
