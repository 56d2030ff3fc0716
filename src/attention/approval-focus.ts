/**
 * "Take me to the approval": a notification of a tool awaiting approval, clicked, opens its session
 * and asks whoever renders the approval controls to move focus to them. The request is a window
 * event (for a session already on screen) and is kept until taken (the session just opened may
 * still be loading its history).
 *
 * The session's view brings the approval's row into view (it may be scrolled away, out of the
 * transcript's window), so its controls mount and can take the request.
 *
 * For the approval controls: on mount, and on APPROVAL_FOCUS_EVENT, call
 * `takeApprovalFocus(sessionId, toolCallId)`; when it returns the target, focus the control (and
 * `preventDefault()` the event, if one came). The shell focuses the tool's step as a fallback when
 * nobody took the request.
 */

/** The tool whose approval the operator was called to. */
export type ApprovalTarget = { sessionId: string; runId: string; toolCallId: string }

/** Dispatched on `window`, cancelable, with the ApprovalTarget as `detail`. */
export const APPROVAL_FOCUS_EVENT = 'rebound:approval-focus'

let pending: ApprovalTarget | undefined

/** Asks for focus on an approval: kept until taken, and told to the page at once. */
export function requestApprovalFocus(target: ApprovalTarget): void {
  pending = target
  if (typeof window === 'undefined') return
  window.dispatchEvent(new CustomEvent<ApprovalTarget>(APPROVAL_FOCUS_EVENT, { detail: target, cancelable: true }))
}

/** The approval focus asked for in `sessionId`, left for its controls to take. */
export function wantedApprovalFocus(sessionId: string): ApprovalTarget | undefined {
  return pending?.sessionId === sessionId ? pending : undefined
}

/**
 * The approval focus asked for in `sessionId` (for `toolCallId`, when given), taken: the next call
 * returns nothing. Undefined when none is asked for there.
 */
export function takeApprovalFocus(sessionId: string, toolCallId?: string): ApprovalTarget | undefined {
  if (!pending || pending.sessionId !== sessionId || (toolCallId !== undefined && pending.toolCallId !== toolCallId)) return undefined
  const target = pending
  pending = undefined
  return target
}
