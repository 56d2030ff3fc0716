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
}

export const EMPTY_LEDGER: UsageLedger = { spans: [], running: new Set() }

/** What the session spent as far as it is known: `since` undefined means from its start. */
export type SessionSpent = { usage: Usage | undefined; since: number | undefined }

type Segment = { lo: number; hi: number; messages: readonly Message[] }

/** The ledger with `segments` (a history's runs of held messages) counted in. */
export function countSegments(ledger: UsageLedger, segments: readonly Segment[]): UsageLedger {
  let spans = ledger.spans
  let running = ledger.running
  let changed = false
  for (const segment of segments) {
    const withSeq = segment.messages.filter((m) => m.seq !== undefined)
    if (withSeq.length === 0 && segment.lo !== Number.NEGATIVE_INFINITY) continue
    const hi = Number.isFinite(segment.hi) ? segment.hi : Math.max(segment.lo, ...withSeq.map((m) => m.seq!))
    // Counted already: inside an earlier span, unless it was running then.
    const fresh = withSeq.filter((m) => !covered(spans, m.seq!) || running.has(m.id))
    const startsEarlier = !spans.some((s) => s.lo <= segment.lo && hi <= s.hi)
    if (fresh.length === 0 && !startsEarlier) continue
    changed = true
    let usage: Usage | undefined
    for (const m of fresh) {
      if (m.role !== 'agent') continue
      if (isActive(m.status)) {
        if (!running.has(m.id)) running = new Set(running).add(m.id)
        continue
      }
      if (running.has(m.id)) {
        running = new Set(running)
        ;(running as Set<string>).delete(m.id)
      }
      usage = addUsage(usage, m.usage)
    }
    spans = withSpan(spans, { lo: segment.lo, hi, firstAt: withSeq[0]?.created_at, usage })
  }
  return changed ? { spans, running } : ledger
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
