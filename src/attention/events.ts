/**
 * What deserves the operator's attention while they look elsewhere, as values: a tool waiting for
 * their approval, a reply that finished, a reply that failed for good, a retry paused until a time
 * or held for their word. Each has an id that every tab (and the background watch) derives alike
 * from the same facts, so the ledger counts it once however many tabs saw it.
 *
 * This module reads a session a tab has open (history, the live runs, the tier 2 schedulers) by
 * comparing it with what it read before, as the live region does (thread/session-outcomes.ts).
 * Pure: no storage, no clock of its own.
 */
import { overlay, type LiveRun } from '../live/live-runs'
import type { SessionRetries } from '../retry/scheduler'
import { isCancellable, retryView } from '../retry/view'
import type { Message, MessageStatus, WireError } from '../wire/types'
import { isActive } from '../wire/status'

export const ATTENTION_KINDS = ['approval', 'finished', 'failed', 'paused', 'held'] as const

/** One thing worth the operator's attention, in one session. */
export type AttentionEvent =
  /** A tool waits for the operator's decision. */
  | { id: string; kind: 'approval'; sessionId: string; runId: string; toolCallId: string; tool: string }
  /** A reply completed. */
  | { id: string; kind: 'finished'; sessionId: string; runId: string }
  /** A reply failed and nothing retries it. */
  | { id: string; kind: 'failed'; sessionId: string; runId: string; error?: WireError }
  /** Tier 2 waits for a provider's time beyond its cap: it retries at `until` (browser clock). */
  | { id: string; kind: 'paused'; sessionId: string; runId: string; until: number }
  /** Tier 2 waits for the operator: retrying would run these `write` tools again. */
  | { id: string; kind: 'held'; sessionId: string; runId: string; tools: readonly string[] }

/**
 * The ids, one rule for every tab and the background watch. A run or a tool call happens once; a
 * paused or held retry belongs to the failed reply that armed it (its attempt number starts again
 * after a cancel, its failure never does).
 */
export const attentionId = {
  approval: (runId: string, toolCallId: string) => `approval:${runId}:${toolCallId}`,
  finished: (runId: string) => `finished:${runId}`,
  failed: (runId: string) => `failed:${runId}`,
  paused: (failedMessageId: string) => `paused:${failedMessageId}`,
  held: (failedMessageId: string) => `held:${failedMessageId}`,
}

/** A reply's run, or the reply itself for a record without one. */
const runOf = (message: Message): string => message.run_id ?? message.id
const statusOf = (message: Message): MessageStatus => message.status ?? 'complete'

/** Tools awaiting approval in the replies still going, from what is shown of them (the stream's steps first). */
export function approvalsIn(sessionId: string, history: readonly Message[], live: (runId: string | undefined) => LiveRun | undefined = () => undefined): AttentionEvent[] {
  const events: AttentionEvent[] = []
  for (const message of history) {
    if (message.role !== 'agent' || message.superseded) continue
    const shown = overlay(message, live(message.run_id))
    if (!isActive(shown.status)) continue
    for (const part of shown.parts ?? []) {
      if (part.type !== 'tool' || part.status !== 'awaiting_approval') continue
      const runId = runOf(message)
      events.push({ id: attentionId.approval(runId, part.tool_call_id), kind: 'approval', sessionId, runId, toolCallId: part.tool_call_id, tool: part.name })
    }
  }
  return events
}

/** What the session looked like at the last read: each reply's status, by run. */
export type ViewMemory = { replies: ReadonlyMap<string, MessageStatus> }

export type ViewInputs = {
  sessionId: string
  /** The session's history as read (superseded included). */
  history: readonly Message[]
  /** The live record of a run this tab follows. */
  live?: (runId: string | undefined) => LiveRun | undefined
  retries: SessionRetries
  now: number
}

/**
 * The memory of a session just opened: what history holds already ended is not news (it ended
 * while nobody here looked, and the background watch or another tab counted it if it was new).
 */
export function openingView({ history }: ViewInputs): ViewMemory {
  return { replies: new Map(history.filter((m) => m.role === 'agent').map((m) => [runOf(m), statusOf(m)])) }
}

/**
 * The events of an open session since `memory`, and the memory after them.
 *
 * - A reply counts when it goes from queued or streaming to an end, or first shows up already
 *   ended (a failure before the first delta ends before the first read). Replies are known by run:
 *   a sent reply shown from its receipt changes id when the stream settles it.
 * - A failure is `failed` only when tier 2 leaves it be; armed and counting down it is not news
 *   (the retry's own outcome will be), paused it is `paused`, held it is `held`.
 * - Approvals, paused and held retries count while they last: the ledger keeps each id once.
 */
export function detectView(memory: ViewMemory, inputs: ViewInputs): { memory: ViewMemory; events: AttentionEvent[] } {
  const { sessionId, history, retries, now } = inputs
  const events: AttentionEvent[] = approvalsIn(sessionId, history, inputs.live)
  const replies = new Map(memory.replies)
  for (const message of history) {
    if (message.role !== 'agent') continue
    const key = runOf(message)
    const status = statusOf(message)
    const before = memory.replies.get(key)
    replies.set(key, status)
    if (message.superseded || before === status || (before !== undefined && !isActive(before)) || isActive(status)) continue
    if (status === 'complete') events.push(finishedEvent(sessionId, message))
    else if (status === 'failed' && !ownedByRetry(message, retries, now)) events.push(failedEvent(sessionId, message))
  }
  for (const [, snapshot] of retries) {
    const failedMessageId = snapshot.context.failedMessageId
    const failure = failedMessageId ? history.find((m) => m.id === failedMessageId) : undefined
    if (!failure || failure.superseded) continue
    const view = retryView(snapshot, now)
    if (view.status === 'paused' && view.deadline !== null) events.push(pausedEvent(sessionId, failure, view.deadline))
    else if (view.status === 'held') events.push(heldEvent(sessionId, failure, view.rerun ?? []))
  }
  return { memory: { replies }, events: unique(events) }
}

/**
 * Whether tier 2 took this failure on (it is then no failure for good): counting down, paused,
 * held, or already retrying it. Cancelled or refused, the failure stands.
 */
function ownedByRetry(failure: Message, retries: SessionRetries, now: number): boolean {
  const snapshot = failure.reply_to ? retries.get(failure.reply_to) : undefined
  if (!snapshot || snapshot.context.failedMessageId !== failure.id) return false
  return isCancellable(retryView(snapshot, now).status)
}

export function failedEvent(sessionId: string, failure: Message): AttentionEvent {
  const runId = runOf(failure)
  return { id: attentionId.failed(runId), kind: 'failed', sessionId, runId, ...(failure.error ? { error: failure.error } : {}) }
}

export function pausedEvent(sessionId: string, failure: Message, until: number): AttentionEvent {
  return { id: attentionId.paused(failure.id), kind: 'paused', sessionId, runId: runOf(failure), until }
}

export function heldEvent(sessionId: string, failure: Message, tools: readonly string[]): AttentionEvent {
  return { id: attentionId.held(failure.id), kind: 'held', sessionId, runId: runOf(failure), tools }
}

export function finishedEvent(sessionId: string, reply: Message): AttentionEvent {
  const runId = runOf(reply)
  return { id: attentionId.finished(runId), kind: 'finished', sessionId, runId }
}

function unique(events: AttentionEvent[]): AttentionEvent[] {
  const seen = new Set<string>()
  return events.filter((event) => !seen.has(event.id) && Boolean(seen.add(event.id)))
}
