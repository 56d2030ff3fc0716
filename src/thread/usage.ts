/**
 * What a session spent: every run's usage added up, superseded and failed runs included, so an
 * operator sees what retries cost. A running reply's usage grows on the stream; the thread adds
 * the settled runs and the view adds the running one from its live record.
 */
import type { Message, Usage } from '../wire/types'
import { isActive } from '../wire/status'

/** `a + b`; a cost is known when either side knows one (the total of the costs known). */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b
  if (!b) return a
  const cost = a.cost_usd === undefined && b.cost_usd === undefined ? undefined : (a.cost_usd ?? 0) + (b.cost_usd ?? 0)
  return { input_tokens: a.input_tokens + b.input_tokens, output_tokens: a.output_tokens + b.output_tokens, ...(cost === undefined ? {} : { cost_usd: cost }) }
}

/**
 * A run of seqs whose ended runs are all counted: `lo` is -Infinity from the session's start, `hi`
 * the last seq read in it. `firstAt` is when its first message was written (what "since" says).
 */
type Span = { lo: number; hi: number; firstAt: number | undefined; usage: Usage | undefined }

/**
 * What a session spent, kept as pages come and go: every ended run read once is counted once, in
 * the span of seqs it was read in, and stays counted when its page is let go. A session opened on
 * its newest page knows what it spent from there on; scrolling up (or a session short enough to
 * be read whole) extends that to the start. Holds sums and the ids of runs still running, never
 * the messages.
 */
export type UsageLedger = {
  spans: readonly Span[]
  /** Agent messages read while running, counted when a read shows them ended. */
  running: ReadonlySet<string>
  /**
   * Replies counted before they had a seq (a run's end written in from its stream, before any
   * read brings the message): the read that does is not counted again.
   */
  unplaced: ReadonlySet<string>
}

export const EMPTY_LEDGER: UsageLedger = { spans: [], running: new Set(), unplaced: new Set() }

/** What the session spent as far as it is known: `since` undefined means from its start. */
export type SessionSpent = { usage: Usage | undefined; since: number | undefined }

type Segment = { lo: number; hi: number; messages: readonly Message[] }

/** The ledger with `segments` (a history's runs of held messages, the last one its end) counted in. */
export function countSegments(ledger: UsageLedger, segments: readonly Segment[]): UsageLedger {
  let { spans } = ledger
  const running = new Set(ledger.running)
  const unplaced = new Set(ledger.unplaced)
  let changed = false
  /** What `m` adds, once: nothing while it runs, and nothing when it was counted already. */
  const take = (m: Message): Usage | undefined => {
    if (m.role !== 'agent') return undefined
    if (isActive(m.status)) {
      running.add(m.id)
      return undefined
    }
    running.delete(m.id)
    if (unplaced.has(m.id)) {
      if (m.seq !== undefined) unplaced.delete(m.id)
      return undefined
    }
    if (m.seq === undefined) unplaced.add(m.id)
    return m.usage
  }
  segments.forEach((segment, i) => {
    const placed = segment.messages.filter((m) => m.seq !== undefined)
    // Messages shown from a receipt or a stream's end have no seq yet: they are the session's end.
    const loose = i === segments.length - 1 ? segment.messages.filter((m) => m.seq === undefined) : []
    if (placed.length === 0 && loose.length === 0 && segment.lo !== Number.NEGATIVE_INFINITY) return
    const hi = Number.isFinite(segment.hi) ? segment.hi : Math.max(segment.lo, ...placed.map((m) => m.seq!))
    // Counted already: inside an earlier span, unless it was running then.
    const fresh = [...placed.filter((m) => !covered(spans, m.seq!) || running.has(m.id) || unplaced.has(m.id)), ...loose]
    const extends_ = !spans.some((s) => s.lo <= segment.lo && hi <= s.hi)
    let usage: Usage | undefined
    for (const m of fresh) usage = addUsage(usage, take(m))
    if (!extends_ && usage === undefined) return
    changed = true
    spans = withSpan(spans, { lo: segment.lo, hi, firstAt: placed[0]?.created_at, usage })
  })
  const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((id) => b.has(id))
  if (!changed && sameSet(running, ledger.running) && sameSet(unplaced, ledger.unplaced)) return ledger
  return { spans, running, unplaced }
}

function covered(spans: readonly Span[], seq: number): boolean {
  return spans.some((s) => s.lo <= seq && seq <= s.hi)
}

/** `spans` with `span` joined in: spans that overlap or touch it become one, their sums added. */
function withSpan(spans: readonly Span[], span: Span): Span[] {
  let joined = span
  const kept: Span[] = []
  for (const s of spans) {
    if (s.hi + 1 < joined.lo || joined.hi + 1 < s.lo) {
      kept.push(s)
      continue
    }
    const first = s.lo <= joined.lo ? s : joined
    joined = { lo: Math.min(s.lo, joined.lo), hi: Math.max(s.hi, joined.hi), firstAt: first.firstAt, usage: addUsage(s.usage, joined.usage) }
  }
  return [...kept, joined].sort((a, b) => a.lo - b.lo)
}

/** What the session spent from the start of the span that reaches its end (the newest messages). */
export function ledgerSpent(ledger: UsageLedger): SessionSpent {
  const last = ledger.spans.at(-1)
  if (!last) return { usage: undefined, since: undefined }
  return { usage: last.usage, since: last.lo === Number.NEGATIVE_INFINITY ? undefined : last.firstAt }
}
