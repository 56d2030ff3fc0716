/**
 * The rules around a tool that waits for the operator's approval, pure so they are tested without
 * a DOM: which tools wait (history with the live stream laid over it), what the assertive live
 * region says of them (each once), when the approval may take focus by itself, and which key
 * presses may act on its buttons.
 */
import { overlay, type LiveRun } from '../live/live-runs'
import type { LiveToolPart } from '../live/parts'
import type { Message } from '../wire/types'
import { decisionKey, needsOperator, type DecisionRecord } from './decisions'

/** A tool waiting for the operator, in a reply still going. */
export type AwaitingTool = { runId: string; toolCallId: string; name: string; key: string }

/**
 * The tools of the session's running replies that wait for approval, oldest first, decided or not
 * (see `needsOperator`). Only the running replies are read, from the end of history, where they are:
 * a long history costs nothing.
 */
export function awaitingApprovals(messages: readonly Message[], activeRuns: readonly string[], liveOf: (runId: string) => LiveRun | undefined): AwaitingTool[] {
  if (activeRuns.length === 0) return []
  const wanted = new Set(activeRuns)
  const replies: Message[] = []
  for (let i = messages.length - 1; i >= 0 && wanted.size > 0; i--) {
    const message = messages[i] as Message
    if (message.role !== 'agent' || message.superseded || !message.run_id || !wanted.has(message.run_id)) continue
    wanted.delete(message.run_id)
    replies.unshift(message)
  }
  const tools: AwaitingTool[] = []
  for (const reply of replies) {
    const runId = reply.run_id as string
    for (const part of overlay(reply, liveOf(runId)).parts ?? []) {
      if (part.type !== 'tool' || part.status !== 'awaiting_approval') continue
      tools.push({ runId, toolCallId: part.tool_call_id, name: part.name, key: decisionKey(runId, part.tool_call_id) })
    }
  }
  return tools
}

/** The first tool the operator has to decide (none taken or on the wire in any tab), if any. */
export function firstUndecided(tools: readonly AwaitingTool[], decisions: ReadonlyMap<string, DecisionRecord>): AwaitingTool | undefined {
  return tools.find((tool) => needsOperator(decisions.get(tool.key)))
}

/**
 * What the assertive live region says since `announced`: each tool that waits for a decision
 * nobody has taken, once ("write_file is waiting for your approval"), and the tools said so far.
 * A tool decided in another tab before this one saw it wait is not news.
 */
export function nextApprovalAlerts(
  announced: ReadonlySet<string>,
  tools: readonly AwaitingTool[],
  decisions: ReadonlyMap<string, DecisionRecord>,
): { announced: ReadonlySet<string>; alerts: AwaitingTool[] } {
  const alerts = tools.filter((tool) => !announced.has(tool.key) && decisions.get(tool.key) === undefined)
  if (alerts.length === 0) return { announced, alerts }
  return { announced: new Set([...announced, ...alerts.map((tool) => tool.key)]), alerts }
}

/** Where focus is when an approval shows up. */
export type FocusContext = {
  /** A modal dialog has the page. */
  modalOpen: boolean
  /** Focus is in a field that takes text (the composer, the find bar), empty or not. */
  inTextField: boolean
  /** Focus is already on another approval's controls. */
  inApproval: boolean
}

/**
 * An approval that shows up takes focus only when the operator is not typing: never from a field
 * that takes text, even an empty one (the composer keeps the focus after a send, and the next keys
 * there are the operator's next message; on Approve, a space or Enter among them would decide for
 * them), never from under a dialog, and never from another approval. The assertive live region
 * says it waits, and the shortcut or a clicked notification brings the operator to it.
 */
export function approvalTakesFocus({ modalOpen, inTextField, inApproval }: FocusContext): boolean {
  return !modalOpen && !inApproval && !inTextField
}

/** How long after an approval took focus by itself its buttons ignore Enter and Space. */
export const KEY_GRACE_MS = 600

/**
 * Whether a key press on Approve or Deny may act: never a repeat (Enter held down in the composer
 * when focus moved), and not within KEY_GRACE_MS of the approval taking focus by itself (a key
 * meant for the composer, pressed as focus moved). A click, or a press after that, acts.
 * `sinceAutoFocusMs` is undefined when the operator put focus there themselves.
 */
export function keyActs({ repeat, sinceAutoFocusMs }: { repeat: boolean; sinceAutoFocusMs: number | undefined }): boolean {
  if (repeat) return false
  return sinceAutoFocusMs === undefined || sinceAutoFocusMs >= KEY_GRACE_MS
}

/** The daemon's reason for asking, when it gave one (the stream's `tool_approval` carries it). */
export function approvalReason(tool: LiveToolPart): string | undefined {
  const reason = tool.reason?.trim()
  return reason ? reason : undefined
}
