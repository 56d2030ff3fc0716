/**
 * What the session's polite live region says, as values: each outcome of a reply or a send once,
 * derived from what the view already holds (history, the outbox, the tier 2 schedulers, the live
 * store's news of tier 1, tool failures and connections) by comparing it with what was seen
 * before. Pure: the announcer words it.
 */
import type { LiveNews, Tier1Wait } from '../live/live-runs'
import type { SessionRetries } from '../retry/scheduler'
import { nextAnnouncement, SILENT, type AnnouncerState, type RetryAnnouncement } from '../retry/announcer'
import { retryView, type RetryView } from '../retry/view'
import type { OutboxEntry, OutboxState } from '../send/outbox'
import type { Message, MessageStatus, WireError } from '../wire/types'
import { isActive } from '../wire/status'

/** A tier 2 arming: the countdown, the "retry after" time, or held for the operator. */
export type Arming = Extract<RetryAnnouncement, { kind: 'armed' | 'paused' | 'held' }>

/** One thing the live region says. */
export type Outcome =
  /** The operator regenerated a reply (by hand, or Replace): the new one is on its way. */
  | { kind: 'regenerating' }
  | { kind: 'complete' }
  | { kind: 'stopped' }
  /** A reply failed; with `arming` when that failure armed tier 2 (one sentence, not two). */
  | { kind: 'failed'; error: WireError | undefined; arming?: Arming }
  /** Tier 2 on its own: an arming of a failure seen before, a cancel, a refusal. */
  | { kind: 'retry'; announcement: RetryAnnouncement }
  /** A send parked as "not sent". */
  | { kind: 'notSent' }
  /** Tier 1 began a wait inside the run. */
  | { kind: 'tier1'; wait: Tier1Wait }
  /** A tool failed; the run goes on (said politely, once: not every step is news). */
  | { kind: 'toolFailed'; name: string; error: WireError | undefined }
  /** A run's stream lost its connection (the run may go on), and it is back. */
  | { kind: 'connectionLost' }
  | { kind: 'reconnected' }

/** What the region has seen: every reply's status, every send's state, tier 2's keys, the last news. */
export type OutcomeMemory = {
  replies: ReadonlyMap<string, MessageStatus>
  sends: ReadonlyMap<string, OutboxState>
  retry: AnnouncerState
  newsSeq: number | undefined
}

export type SessionInputs = {
  history: readonly Message[]
  /** This session's outbox entries. */
  sends: readonly OutboxEntry[]
  retries: SessionRetries
  news: LiveNews | undefined
  now: number
}

const statusOf = (message: Message): MessageStatus => message.status ?? 'complete'

/**
 * The memory of a session just opened: what history and the outbox hold already ended is not
 * news, and neither is the last tier 1 wait. Tier 2 starts silent, so a countdown running at
 * open is still said once.
 */
export function openingMemory({ history, sends, news }: SessionInputs): OutcomeMemory {
  return {
    replies: new Map(history.filter((m) => m.role === 'agent').map((m) => [m.id, statusOf(m)])),
    sends: new Map(sends.map((e) => [e.clientMessageId, e.state])),
    retry: SILENT,
    newsSeq: news?.seq,
  }
}

/**
 * The outcomes since `memory`, in the order they read best (a regenerate before the end of its
 * reply, ends before a bare tier 2 change, sends and tier 1 last), and the memory after them.
 *
 * - A reply is announced when it goes from queued or streaming to an end, or first shows up
 *   already ended (a failure before the first delta ends before the first read).
 * - A failure that armed tier 2 is said with its countdown (or its hold) in one sentence.
 * - A reply the operator's Cancel retry stopped is not also "stopped": the cancel was said.
 * - A new reply for an anchor whose earlier reply was replaced, with no scheduler on that anchor
 *   (a hand regenerate dismisses it), is "regenerating"; tier 2's own regenerates were announced
 *   by their countdown.
 */
export function nextOutcomes(memory: OutcomeMemory, { history, sends, retries, news, now }: SessionInputs): { memory: OutcomeMemory; outcomes: Outcome[] } {
  const views = new Map<string, RetryView>([...retries].map(([anchorId, snapshot]) => [anchorId, retryView(snapshot, now)]))
  const retry = nextAnnouncement(memory.retry, views)
  let arming: { failedMessageId: string | null; announcement: RetryAnnouncement } | undefined
  if (retry.current && retry.current !== memory.retry.current) {
    const snapshot = retry.speaker ? retries.get(retry.speaker) : undefined
    arming = { failedMessageId: snapshot?.context.failedMessageId ?? null, announcement: retry.current }
  }

  const outcomes: Outcome[] = []
  const replies = new Map(memory.replies)
  for (const message of history) {
    if (message.role !== 'agent') continue
    const status = statusOf(message)
    const before = memory.replies.get(message.id)
    replies.set(message.id, status)
    if (before === status || (before !== undefined && !isActive(before))) continue
    if (before === undefined && message.superseded) continue
    if (before === undefined && isActive(status) && isHandRegenerate(message, history, memory, views)) outcomes.push({ kind: 'regenerating' })
    if (isActive(status)) continue
    if (status === 'complete') outcomes.push({ kind: 'complete' })
    else if (status === 'cancelled') {
      const snapshot = message.reply_to ? retries.get(message.reply_to) : undefined
      const cancelledByRetry = snapshot?.matches('cancelled') && snapshot.context.runId !== null && snapshot.context.runId === message.run_id
      if (!cancelledByRetry) outcomes.push({ kind: 'stopped' })
    } else if (status === 'failed') {
      if (arming && arming.failedMessageId === message.id && isArming(arming.announcement)) {
        outcomes.push({ kind: 'failed', error: message.error, arming: arming.announcement })
        arming = undefined
      } else outcomes.push({ kind: 'failed', error: message.error })
    }
  }
  if (arming) outcomes.push({ kind: 'retry', announcement: arming.announcement })

  const sent = new Map<string, OutboxState>()
  for (const entry of sends) {
    sent.set(entry.clientMessageId, entry.state)
    if (entry.state === 'not_sent' && memory.sends.get(entry.clientMessageId) !== 'not_sent') outcomes.push({ kind: 'notSent' })
  }

  let { newsSeq } = memory
  if (news && news.seq !== newsSeq) {
    newsSeq = news.seq
    outcomes.push(newsOutcome(news))
  }
  return { memory: { replies, sends: sent, retry, newsSeq }, outcomes }
}

function newsOutcome(news: LiveNews): Outcome {
  switch (news.kind) {
    case 'tier1':
      return { kind: 'tier1', wait: news.wait }
    case 'toolFailed':
      return { kind: 'toolFailed', name: news.name, error: news.error }
    case 'connection':
      return news.state === 'lost' ? { kind: 'connectionLost' } : { kind: 'reconnected' }
  }
}

const isArming = (announcement: RetryAnnouncement): announcement is Arming =>
  announcement.kind === 'armed' || announcement.kind === 'paused' || announcement.kind === 'held'

/** A reply that replaces one seen before, while no scheduler owns its anchor: the operator's regenerate. */
function isHandRegenerate(message: Message, history: readonly Message[], memory: OutcomeMemory, views: ReadonlyMap<string, RetryView>): boolean {
  const anchorId = message.reply_to
  if (!anchorId || views.has(anchorId)) return false
  return history.some((m) => m.role === 'agent' && m.superseded && m.reply_to === anchorId && memory.replies.has(m.id))
}
