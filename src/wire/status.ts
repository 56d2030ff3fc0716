/**
 * The status predicates every layer shares, so "is this reply still going" has one answer for
 * the live-run store, the follower, the thread and the view.
 */
import { TOOL_RESULT_STATUSES, type MessageStatus, type RunStatus, type ToolStatus } from './types'

/** A reply (or its run) is queued or streaming: Stop applies, and its end is still to come. */
export function isActive(status: MessageStatus | undefined): boolean {
  return status === 'queued' || status === 'streaming'
}

const TOOL_ENDED: ReadonlySet<ToolStatus> = new Set<ToolStatus>(TOOL_RESULT_STATUSES)

/** A tool has ended (done, failed, denied, cancelled): its duration is known and no later event changes it. */
export function isToolEnded(status: ToolStatus): boolean {
  return TOOL_ENDED.has(status)
}

/** The daemon has ended the run (`GET …/runs/:rid`): nothing more will come of it. */
export function isRunEnded(status: RunStatus | undefined): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled'
}
