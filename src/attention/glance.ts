/**
 * The background watch's rules: which sessions of the list to read again, and what the end of a
 * session's history says. For the sessions no view here shows, the list (status, updated_at) tells
 * that something happened; the newest messages tell what. Pure: the watch (background.ts) reads.
 */
import type { BoardRecord } from '../retry/board'
import { isArmable } from '../retry/eligibility'
import type { Message, MessageStatus, Session } from '../wire/types'
import { isActive } from '../wire/status'
import { approvalsIn, failedEvent, finishedEvent, heldEvent, pausedEvent, type AttentionEvent } from './events'

/** How many of a session's newest messages are read: the reply at the end and what it answers, with room for a regenerate's superseded one. */
export const GLANCE_PAGE = 5

/**
 * How long a failure tier 2 would take on may go without a schedule on the board before it counts
 * as failed for good: a tab that shows its session arms within a history read, so a failure still
 * unclaimed after this is one nobody here retries.
 */
export const UNCLAIMED_FAILURE_MS = 10_000

/** What the watch knows of one session. */
export type Glance = {
  status: Session['status']
  updatedAt: number
  /**
   * `updated_at` when the watch first saw the session (daemon clock): a reply created after it
   * ended since. -Infinity for a session that appeared after the first list: all of it is new.
   */
  baseline: number
  /** The reply at the end of the session as last read, by run. */
  tail?: { key: string; status: MessageStatus }
  /** A failure tier 2 would take on, waiting to be claimed (`since`, browser clock). */
  unclaimed?: { id: string; since: number }
}

export type Glances = ReadonlyMap<string, Glance>

/**
 * The glances after a new list, and the sessions worth reading: running ones (a tool may wait for
 * approval), those whose status or `updated_at` moved, new ones, and those with a failure still
 * unclaimed. `first` is the first list the watch sees: only running sessions are read then, since
 * nothing is known of what came before. Sessions in `skip` (a view here shows them) are not read.
 */
export function nextGlances(glances: Glances | undefined, sessions: readonly Session[], skip: ReadonlySet<string>): { glances: Map<string, Glance>; read: string[] } {
  const next = new Map<string, Glance>()
  const read: string[] = []
  for (const session of sessions) {
    const before = glances?.get(session.id)
    const glance: Glance = before
      ? { ...before, status: session.status, updatedAt: session.updated_at }
      : { status: session.status, updatedAt: session.updated_at, baseline: glances === undefined ? session.updated_at : Number.NEGATIVE_INFINITY }
    next.set(session.id, glance)
    if (skip.has(session.id)) continue
    const moved = before !== undefined && (before.status !== session.status || before.updatedAt !== session.updated_at)
    const fresh = before === undefined && glances !== undefined
    if (session.status === 'running' || moved || fresh || before?.unclaimed) read.push(session.id)
  }
  return { glances: next, read }
}

/** The shared tier 2 board, as the glance reads it. */
export type BoardReader = (sessionId: string, anchorId: string) => BoardRecord | undefined

/**
 * What a session's newest messages say since its glance: tools awaiting approval, and the reply
 * at the end when it ended since the last read (or, never read, since the watch first saw the
 * session). A failure is classified by the tier 2 board, which every tab showing the session
 * writes: counting down or retrying, nothing yet; paused or held, that; cancelled or no schedule
 * at all, failed. A failure tier 2 would take on but has not (yet) is given UNCLAIMED_FAILURE_MS.
 */
export function glanceAt(sessionId: string, glance: Glance, messages: readonly Message[], board: BoardReader, now: number): { glance: Glance; events: AttentionEvent[] } {
  const events = approvalsIn(sessionId, messages)
  const tail = messages.findLast((m) => m.role === 'agent' && !m.superseded)
  if (!tail) return { glance, events }
  const key = tail.run_id ?? tail.id
  const status = tail.status ?? 'complete'
  const { unclaimed: waiting, ...rest } = glance
  const next: Glance = { ...rest, tail: { key, status } }
  const prior = glance.tail
  const endedSince = !isActive(status) && (prior ? prior.key !== key || isActive(prior.status) : tail.created_at > glance.baseline)
  const stillWaiting = waiting?.id === tail.id
  if (!endedSince && !stillWaiting) return { glance: next, events }
  if (status === 'complete') events.push(finishedEvent(sessionId, tail))
  else if (status === 'failed') {
    const record = tail.reply_to ? board(sessionId, tail.reply_to) : undefined
    const claimed = record?.failureId === tail.id ? record : undefined
    if (claimed) {
      if (claimed.phase === 'armed' && claimed.held && claimed.held.length > 0) events.push(heldEvent(sessionId, tail, claimed.held))
      else if (claimed.phase === 'armed' && claimed.paused) events.push(pausedEvent(sessionId, tail, claimed.deadline))
      else if (claimed.phase === 'cancelled' || claimed.phase === 'dismissed' || claimed.phase === 'settled') events.push(failedEvent(sessionId, tail))
    } else if (!isArmable(tail)) events.push(failedEvent(sessionId, tail))
    else {
      const since = stillWaiting ? waiting.since : now
      if (now - since >= UNCLAIMED_FAILURE_MS) events.push(failedEvent(sessionId, tail))
      else next.unclaimed = { id: tail.id, since }
    }
  }
  return { glance: next, events }
}
