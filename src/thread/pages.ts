/**
 * A session's history held in pages (the design's "History in pages"): runs of messages read by
 * `seq`, with what lies between them not held. Opening reads the newest page only; earlier pages
 * are read as the operator scrolls to them (or jumps to a find hit), and pages far from the view
 * are let go, so what a session costs is the few pages around the view and its end, not its length.
 *
 * Pure rules, no I/O: what a read covers, how it merges into what is held, where the gaps are and
 * what to read for one, what a refresh re-reads, and what is let go.
 */
import type { Message, MessagePage, PageQuery } from '../wire/types'
import { isActive } from '../wire/status'

/** The newest page, and every page read for a gap: enough to fill a tall window several times. */
export const PAGE_SIZE = 100
/** The most the daemon gives in one page (`limit` 1–1000). */
export const MAX_PAGE = 1000
/**
 * Messages kept either side of what the view shows, a page's worth; beyond them pages are let go
 * (and read again when the operator scrolls back). The newest page is always kept: the core (the
 * runs followed, tier 2, the shortcuts, a send shown from its receipt) works on the session's
 * end. Back at the end after a long scroll, a session holds about what it held when it opened.
 */
const KEEP_AROUND_VIEW = PAGE_SIZE

/**
 * A run of held messages with nothing missing in between: every message whose `seq` is in
 * `lo…hi` is here. `lo` is -Infinity when the run starts the session; `hi` is Infinity for the
 * run at the session's end (as far as its last read saw).
 */
type Segment = { lo: number; hi: number; messages: readonly Message[] }

export type PagedHistory = {
  /** Oldest first, never touching (two runs that touch are one). The last one ends the session. */
  segments: readonly Segment[]
  /** Every held message, oldest first: the segments' messages one after the other. */
  messages: readonly Message[]
  /** Records a read could not read (skipped so the rest shows): the most any one read skipped. */
  skipped: number
  /**
   * Where the session stood when it was opened: the first seq of the newest page read then. What
   * is read above it later is the session's past, never news (see `sinceOpened`).
   */
  opened: number
}

/** What is not held between two runs (or before the first): the seqs `lo…hi` (estimated when open-ended). */
export type Gap = {
  /** Stable while the gap is the same: it names its bounds. */
  key: string
  /** First seq not held (-Infinity before the first run when the session's start is not known). */
  lo: number
  /** Last seq not held: the one before the run below. */
  hi: number
  /** How many messages it holds at most (what the scroll height stands in for). */
  count: number
  /** The gap before everything held: the session's earlier messages. */
  start: boolean
}

/** A read's answer and the seqs it vouches for. */
export type Read = { messages: readonly Message[]; lo: number; hi: number; skipped: number }

/** The parameters of one page read. */
export type PageRequest = PageQuery

const seqOf = (m: Message): number => m.seq ?? Number.POSITIVE_INFINITY
/** By seq, stand-ins (no seq) last; a stable sort keeps equals in the order given. */
function bySeq(a: Message, b: Message): number {
  const x = seqOf(a)
  const y = seqOf(b)
  return x === y ? 0 : x < y ? -1 : 1
}

/** The seqs a page read vouches for, from what it asked and what came back. */
export function coverOf(request: PageRequest, page: Pick<MessagePage, 'messages' | 'has_more'>): Read & { skipped: 0 } {
  const { messages, has_more: more } = page
  const first = messages[0]?.seq
  const last = messages.at(-1)?.seq
  if (request.after !== undefined) {
    // Everything after `after`, or the first `limit` of it when more lie beyond.
    return { messages, lo: request.after + 1, hi: more && last !== undefined ? last : Number.POSITIVE_INFINITY, skipped: 0 }
  }
  const hi = request.before !== undefined ? request.before - 1 : Number.POSITIVE_INFINITY
  // The page is the newest `limit` before `before` (or of all): from its first message on, or from
  // the session's start when nothing more lies before it.
  const lo = !more ? Number.NEGATIVE_INFINITY : first !== undefined ? first : hi
  return { messages, lo, hi, skipped: 0 }
}

const EMPTY: PagedHistory = { segments: [], messages: [], skipped: 0, opened: Number.NEGATIVE_INFINITY }

/** Nothing held yet. */
export function emptyHistory(): PagedHistory {
  return EMPTY
}

function historyOf(segments: readonly Segment[], skipped: number, opened: number): PagedHistory {
  const messages = segments.length === 1 ? segments[0]!.messages : segments.flatMap((s) => s.messages)
  return { segments, messages, skipped, opened }
}

/** A history of one read (the newest page when a session opens). */
export function historyFrom(read: Read): PagedHistory {
  return historyOf([{ lo: read.lo, hi: read.hi, messages: read.messages }], read.skipped, read.lo)
}

const sinceCache = new WeakMap<PagedHistory, readonly Message[]>()

/**
 * The messages held from where the session stood when it was opened on (and sends shown from a
 * receipt): what the core and the announcers work on. Pages read above it as the operator scrolls
 * are the session's past: a reply there that "first shows up ended" is not news. The same array
 * for the same history, and the history's own when nothing above is held.
 */
export function sinceOpened(history: PagedHistory): readonly Message[] {
  const { messages, opened } = history
  if (messages.length === 0 || (messages[0]!.seq ?? Number.POSITIVE_INFINITY) >= opened) return messages
  let since = sinceCache.get(history)
  if (!since) {
    since = messages.filter((m) => m.seq === undefined || m.seq >= opened)
    sinceCache.set(history, since)
  }
  return since
}

/**
 * Merges a read into what is held. `replace`: the read is newer than what is held in its range,
 * so its copy of each message stands (a reply that ended, a flag a regenerate set) and a message
 * that did not change keeps its held object, so its row is not built or rendered again. `fill`:
 * the read only adds what is missing (a page read for a gap may have left before a refresh that
 * wrote a newer copy of a message it shares).
 *
 * Messages held without a `seq` (a send shown from its receipt) stay at the end until a read
 * brings the message (same id) or its reply (same run).
 */
export function mergeRead(history: PagedHistory, read: Read, mode: 'replace' | 'fill'): PagedHistory {
  let lo = read.lo
  let hi = read.hi
  const incoming = new Map<string, Message>()
  const runs = new Set<string>()
  for (const m of read.messages) {
    incoming.set(m.id, m)
    if (m.run_id) runs.add(m.run_id)
  }
  const kept: Segment[] = []
  const joined: Message[] = []
  for (const segment of history.segments) {
    if (segment.hi + 1 < lo || hi + 1 < segment.lo) {
      kept.push(segment)
      continue
    }
    lo = Math.min(lo, segment.lo)
    hi = Math.max(hi, segment.hi)
    for (const m of segment.messages) {
      if (m.seq === undefined) {
        // A stand-in: the read brings the real one.
        if (!incoming.has(m.id) && !(m.run_id && runs.has(m.run_id))) joined.push(m)
        continue
      }
      const fresh = incoming.get(m.id)
      if (!fresh) {
        if (m.seq < read.lo || m.seq > read.hi || mode === 'fill') joined.push(m)
        continue
      }
      // Held and read: one copy, the read's when it is newer and differs.
      incoming.delete(m.id)
      joined.push(mode === 'fill' || sameValue(m, fresh) ? m : fresh)
    }
  }
  for (const m of read.messages) if (incoming.has(m.id)) joined.push(m)
  // Stable: stand-ins (no seq) stay last, in the order they were shown.
  joined.sort(bySeq)
  const merged: Segment = { lo, hi, messages: dedupe(joined) }
  const segments = [...kept, merged].sort((a, b) => a.lo - b.lo)
  // A record that cannot be read stays so: the notice counts the most any read skipped (a page
  // read twice, or a catch-up over part of it, must not count it again or forget it).
  return historyOf(segments, Math.max(history.skipped, read.skipped), history.opened)
}

/** One message per id (a message keeps its id and its seq for ever; the later copy in order wins). */
function dedupe(messages: Message[]): Message[] {
  const seen = new Set<string>()
  let duplicate = false
  for (const m of messages) {
    if (seen.has(m.id)) duplicate = true
    seen.add(m.id)
  }
  if (!duplicate) return messages
  const last = new Map(messages.map((m, i) => [m.id, i]))
  return messages.filter((m, i) => last.get(m.id) === i)
}

/** Structural equality of two JSON values (messages as read). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ak = Object.keys(a)
  const bk = Object.keys(b)
  if (ak.length !== bk.length) return false
  for (const k of ak) if (!sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false
  return true
}

/** Replaces the run at the session's end by `messages` (a send shown, a run's end written in). */
export function withTail(history: PagedHistory, messages: readonly Message[]): PagedHistory {
  const segments = history.segments.slice()
  const tail = segments.at(-1)
  if (!tail) segments.push({ lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY, messages })
  else segments[segments.length - 1] = { ...tail, messages }
  return historyOf(segments, history.skipped, history.opened)
}

/** The run at the session's end (what the core works on). */
export function tailOf(history: PagedHistory): readonly Message[] {
  return history.segments.at(-1)?.messages ?? []
}

/** Whether messages before everything held are still to be read. */
export function hasEarlier(history: PagedHistory): boolean {
  const first = history.segments[0]
  return first !== undefined && first.lo !== Number.NEGATIVE_INFINITY
}

/** The gaps, oldest first: before the first run (when the session's start is not held) and between runs. */
export function gapsOf(history: PagedHistory): Gap[] {
  const gaps: Gap[] = []
  const { segments } = history
  segments.forEach((segment, i) => {
    const before = segments[i - 1]
    if (!before && segment.lo === Number.NEGATIVE_INFINITY) return
    const lo = before ? before.hi + 1 : Number.NEGATIVE_INFINITY
    const hi = segment.lo - 1
    // Seqs start at 1 on every daemon seen; an open start is estimated from there.
    const count = Math.max(1, hi - (lo === Number.NEGATIVE_INFINITY ? 0 : lo - 1))
    gaps.push({ key: `gap:${lo}:${hi}`, lo, hi, count, start: !before })
  })
  return gaps
}

/**
 * The page to read for a gap the view shows at `at` (0 its top, 1 its bottom): the page just
 * above the run below when the view is near that run (scrolling up), the page just below the run
 * above when near that one, else the page around the seq the view is at (a scrollbar dragged far).
 * A gap of a page or less is read whole.
 */
export function gapRequest(gap: Gap, at: number): PageRequest {
  const below = gap.hi + 1
  const top = gap.lo === Number.NEGATIVE_INFINITY ? 1 : gap.lo
  if (gap.hi - top + 1 <= PAGE_SIZE) return { limit: PAGE_SIZE, before: below }
  const target = top + Math.min(1, Math.max(0, at)) * (gap.hi - top)
  if (gap.hi - target < PAGE_SIZE) return { limit: PAGE_SIZE, before: below }
  if (target - top < PAGE_SIZE) return { limit: PAGE_SIZE, before: top + PAGE_SIZE }
  return { limit: PAGE_SIZE, before: Math.round(target) + PAGE_SIZE / 2 }
}

/** The page around `seq` (a find hit not held): half before it, half after. */
export function aroundRequest(seq: number): PageRequest {
  return { limit: PAGE_SIZE, before: seq + PAGE_SIZE / 2 }
}

/** Whether `seq` lies in a run held. */
export function holds(history: PagedHistory, seq: number): boolean {
  return history.segments.some((s) => s.lo <= seq && seq <= s.hi)
}

/**
 * Why history is read again, which says from where:
 * - `ended`: a run's stream ended, a stop was sent, a send landed: its messages are at the end,
 *   from the first reply still going on (nothing before it changed).
 * - `unsure`: another tab's news, the retry scheduler, a reconnect (of the page, or of a run's
 *   stream after a break) or a return to the page: a
 *   regenerate may have flagged earlier messages superseded (without a new seq), so the newest
 *   page held is read again with what follows it.
 * - `regenerated`: from the anchor on, every message may now be superseded.
 * - `settled`: a reply the stream completed in place, read again from it on for what only history
 *   has: its tools' times on the daemon's clock (the stream timed them as their events arrived).
 */
export type Refresh = { kind: 'ended' } | { kind: 'unsure' } | { kind: 'regenerated'; anchorId: string } | { kind: 'settled'; messageId: string }

/**
 * The seq after which a refresh reads (`?after=`), undefined when nothing with a seq is held (the
 * newest page is read instead). What lies after it in the tail is read again and replaced.
 */
export function refreshFrom(history: PagedHistory, refresh: Refresh): number | undefined {
  const tail = tailOf(history)
  const withSeq = tail.filter((m) => m.seq !== undefined)
  const last = withSeq.at(-1)
  if (!last) return undefined
  const lastSeq = last.seq as number
  const going = withSeq.find((m) => m.role === 'agent' && isActive(m.status))
  const newestPage = (withSeq[Math.max(0, withSeq.length - PAGE_SIZE)]!.seq as number) - 1
  switch (refresh.kind) {
    case 'ended':
      return going ? (going.seq as number) - 1 : lastSeq
    case 'unsure':
      return Math.min(newestPage, going ? (going.seq as number) - 1 : lastSeq)
    case 'settled': {
      const reply = withSeq.findLast((m) => m.id === refresh.messageId)
      return Math.min(reply ? (reply.seq as number) - 1 : lastSeq, going ? (going.seq as number) - 1 : lastSeq)
    }
    case 'regenerated': {
      const anchor = history.messages.find((m) => m.id === refresh.anchorId)
      const from = anchor?.seq ?? newestPage
      return Math.min(from, newestPage, going ? (going.seq as number) - 1 : lastSeq)
    }
  }
}

/**
 * The runs held before the tail that a re-read from `after` reaches, each as the page read that
 * replaces its messages after `after` (a regenerate far back flags messages of an earlier page).
 */
export function staleRuns(history: PagedHistory, after: number): PageRequest[] {
  const requests: PageRequest[] = []
  for (const segment of history.segments.slice(0, -1)) {
    const stale = segment.messages.filter((m) => m.seq !== undefined && m.seq > after)
    for (let end = stale.length; end > 0; end -= MAX_PAGE) {
      const last = stale[end - 1]!.seq as number
      requests.push({ limit: Math.min(MAX_PAGE, end), before: last + 1 })
    }
  }
  return requests
}

/**
 * A regenerate another tab made far back, seen in a refresh's read: the newest reply answers an
 * anchor held before the read's range, and held messages between them are not flagged superseded
 * yet. Returns that anchor, so the range from it is read again.
 */
export function farRegenerate(history: PagedHistory, readFrom: number): string | undefined {
  const main = history.messages
  const reply = main.findLast((m) => m.role === 'agent' && !m.superseded && m.reply_to)
  if (!reply?.reply_to || reply.seq === undefined || reply.seq <= readFrom) return undefined
  const anchor = main.find((m) => m.id === reply.reply_to)
  if (anchor?.seq === undefined || anchor.seq > readFrom) return undefined
  const anchorSeq = anchor.seq
  const unflagged = main.some((m) => m.seq !== undefined && m.seq > anchorSeq && m.seq <= readFrom && !m.superseded)
  return unflagged ? anchor.id : undefined
}

/**
 * Lets go of the messages more than `keep` seqs from those the view shows (`viewLo…viewHi`),
 * keeping the newest page of the tail and what is shown from a receipt. Returns the history
 * itself when nothing is let go.
 */
export function evict(history: PagedHistory, viewLo: number, viewHi: number, keep = KEEP_AROUND_VIEW): PagedHistory {
  const segments: Segment[] = []
  let changed = false
  const last = history.segments.length - 1
  history.segments.forEach((segment, i) => {
    const { messages } = segment
    const newest = i === last ? Math.max(0, messages.length - PAGE_SIZE) : messages.length
    const kept = messages.map((m, index) => index >= newest || m.seq === undefined || (m.seq >= viewLo - keep && m.seq <= viewHi + keep))
    const pieces = keptPieces(segment, kept)
    if (pieces.length !== 1 || pieces[0]!.messages !== messages) changed = true
    segments.push(...pieces)
  })
  if (!changed) return history
  return historyOf(segments, history.skipped, history.opened)
}

/** The runs of a run's messages that are kept, each with the bounds it still vouches for. */
function keptPieces(segment: Segment, kept: readonly boolean[]): Segment[] {
  const { messages } = segment
  if (messages.length === 0 || kept.every(Boolean)) return [segment]
  const pieces: Segment[] = []
  let start = -1
  for (let i = 0; i <= messages.length; i++) {
    if (i < messages.length && kept[i]) {
      if (start < 0) start = i
      continue
    }
    if (start < 0) continue
    const part = messages.slice(start, i)
    // From the first seq kept to the last, or to the run's own bound where the piece reaches it.
    const lo = start === 0 ? segment.lo : (part[0]!.seq ?? segment.lo)
    const hi = i === messages.length ? segment.hi : (part.findLast((m) => m.seq !== undefined)?.seq ?? segment.hi)
    pieces.push({ lo, hi, messages: part })
    start = -1
  }
  return pieces
}
