/**
 * From history and the outbox to what the transcript shows: the main flow, with superseded
 * replies folded under the reply that replaced them, and sends the daemon has not confirmed.
 */
import type { Message } from '../wire/types'
import type { OutboxEntry } from '../send/outbox'
import type { Gap } from './pages'

export type TranscriptItem =
  | { kind: 'operator'; key: string; message: Message }
  | { kind: 'pending'; key: string; entry: OutboxEntry }
  | { kind: 'agent'; key: string; message: Message; earlier: Message[]; followers: Record<string, Message[]>; isLatest: boolean }
  | GapItem

/** Messages not held between two rows (or before the first): the view stands in for them and reads them when it reaches them. */
type GapItem = { kind: 'gap'; key: string; gap: Gap }

/**
 * What identifies a reply on screen: its run. A reply shown from a send's receipt has a stand-in
 * id until history gives its own, and keeps its row (and any focus wish on it) across the change.
 */
export function replyKey(reply: Message): string {
  return reply.run_id ? `run:${reply.run_id}` : reply.id
}

type HistoryItems = {
  items: readonly TranscriptItem[]
  landed: ReadonlySet<string>
  /** The history these rows were built from, and what the build knew of its earlier versions. */
  messages: readonly Message[]
  superseded: ReadonlyMap<string, Message[]>
  followers: Record<string, Message[]>
  /** Whether any message from this index on is superseded (then a change there is built afresh). */
  supersededFrom: number
}

/**
 * The rows of one history, kept as long as that history is: the cached history is replaced, never
 * changed in place, so its identity says it is the same. A change of the outbox alone (a send
 * going out, accepted, taken back) then costs its own rows, not a pass over 10,000 messages.
 */
const historyRows = new WeakMap<readonly Message[], HistoryItems>()
/** The last history built: the next one is most often it with its end changed (a send, a run's end). */
let lastBuilt: WeakRef<HistoryItems> | undefined

export function buildTranscript(messages: readonly Message[], pending: readonly OutboxEntry[]): readonly TranscriptItem[] {
  let rows = historyRows.get(messages)
  if (!rows) {
    rows = extendRows(lastBuilt?.deref(), messages) ?? historyItems(messages)
    historyRows.set(messages, rows)
  }
  lastBuilt = new WeakRef(rows)
  const { items, landed } = rows
  // A send whose message history already holds is shown from history, never twice.
  const waiting = pending.filter((entry) => !landed.has(entry.clientMessageId))
  if (waiting.length === 0) return items
  return [...items, ...waiting.map((entry): TranscriptItem => ({ kind: 'pending', key: `pending:${entry.clientMessageId}`, entry }))]
}

function historyItems(messages: readonly Message[]): HistoryItems {
  const superseded = new Map<string, Message[]>()
  // What a regenerate replaced after each earlier reply (later operator messages and their
  // replies), so nothing the operator wrote disappears from view.
  const followers: Record<string, Message[]> = {}
  let openVersion: Message | undefined
  let lastSuperseded = -1
  const landed = new Set<string>()
  messages.forEach((m, index) => {
    if (m.client_message_id) landed.add(m.client_message_id)
    if (m.superseded) lastSuperseded = index
    if (m.superseded && m.role === 'agent' && m.reply_to && !(openVersion && followers[openVersion.id]?.some((f) => f.id === m.reply_to))) {
      const list = superseded.get(m.reply_to) ?? []
      list.push(m)
      superseded.set(m.reply_to, list)
      openVersion = m
      followers[m.id] = []
    } else if (m.superseded && openVersion) {
      followers[openVersion.id]!.push(m)
    } else if (!m.superseded) {
      openVersion = undefined
    }
  })
  const items = mainItems(messages, 0, superseded, followers)
  return { items: markLatest(items, 0), landed, messages, superseded, followers, supersededFrom: lastSuperseded + 1 }
}

/** The rows of the main-flow messages from `from` on (none of them superseded), without `isLatest`. */
function mainItems(messages: readonly Message[], from: number, superseded: ReadonlyMap<string, Message[]>, followers: Record<string, Message[]>): TranscriptItem[] {
  const items: TranscriptItem[] = []
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!
    if (m.superseded) continue
    if (m.role === 'operator') items.push({ kind: 'operator', key: m.id, message: m })
    else
      items.push({
        kind: 'agent',
        key: replyKey(m),
        message: m,
        earlier: m.reply_to ? (superseded.get(m.reply_to) ?? []) : [],
        followers,
        isLatest: false,
      })
  }
  return items
}

/** Marks the last agent row as the latest, un-marking any other from `from` on (rows are replaced, not changed). */
function markLatest(items: TranscriptItem[], from: number): TranscriptItem[] {
  let latest = -1
  for (let i = items.length - 1; i >= 0; i--) {
    if (items[i]!.kind === 'agent') {
      latest = i
      break
    }
  }
  // The latest row may lie before `from` (a history that lost its last reply): it is marked too.
  for (let i = latest >= 0 ? Math.min(from, latest) : from; i < items.length; i++) {
    const item = items[i]!
    if (item.kind === 'agent' && item.isLatest !== (i === latest)) items[i] = { ...item, isLatest: i === latest }
  }
  return items
}

/**
 * The rows of `messages` from those of `base`, when `messages` is `base`'s history with its end
 * changed: messages appended (a send shown from its receipt), or the last ones replaced (a run's
 * end). The rows before the change are kept as they are, so a send over 10,000 messages costs
 * its own rows. Undefined when the change reaches a superseded message or a regenerate's
 * versions: those are built afresh.
 */
function extendRows(base: HistoryItems | undefined, messages: readonly Message[]): HistoryItems | undefined {
  if (!base) return undefined
  const before = base.messages
  const shared = Math.min(before.length, messages.length)
  let k = 0
  while (k < shared && before[k] === messages[k]) k++
  // Nothing kept, or the change reaches what the earlier versions were built from.
  if (k === 0 || k < base.supersededFrom) return undefined
  for (let i = k; i < messages.length; i++) if (messages[i]!.superseded) return undefined
  // Every message of `before` from `k` on is in the main flow: one row each, at the end.
  const kept = base.items.length - (before.length - k)
  const items = base.items.slice(0, kept).concat(mainItems(messages, k, base.superseded, base.followers))
  // The latest row may move: from a kept row to a new one, or back when a reply is taken away.
  const firstAgentChange = Math.max(0, base.items.findLastIndex((item) => item.kind === 'agent' && item.isLatest))
  let landed = base.landed
  const dropped = before.slice(k).some((m) => m.client_message_id)
  const added = messages.slice(k).filter((m) => m.client_message_id)
  if (dropped || added.length > 0) {
    const next = new Set(dropped ? messages.slice(0, k).flatMap((m) => (m.client_message_id ? [m.client_message_id] : [])) : base.landed)
    for (const m of added) next.add(m.client_message_id as string)
    landed = next
  }
  return {
    items: markLatest(items, Math.min(firstAgentChange, kept)),
    landed,
    messages,
    superseded: base.superseded,
    followers: base.followers,
    supersededFrom: base.supersededFrom,
  }
}

/**
 * The rows with the gaps of a paged history laid between them, by seq: a gap goes before the
 * first row past it. Rows are built over the messages held as one history, so a reply whose
 * earlier versions lie in a page not held shows them once that page is read (and a superseded
 * operator message at the top of a page, whose replaced reply is in the page before, is shown
 * from then on too).
 */
export function withGaps(rows: readonly TranscriptItem[], gaps: readonly Gap[]): readonly TranscriptItem[] {
  if (gaps.length === 0) return rows
  const out: TranscriptItem[] = []
  let next = 0
  for (const row of rows) {
    const seq = row.kind === 'operator' || row.kind === 'agent' ? row.message.seq : undefined
    // Rows without a seq (sends shown from a receipt, the outbox) are at the end, past every gap.
    while (next < gaps.length && (seq === undefined || seq > gaps[next]!.hi)) out.push(gapItem(gaps[next++]!))
    out.push(row)
  }
  while (next < gaps.length) out.push(gapItem(gaps[next++]!))
  return out
}

function gapItem(gap: Gap): GapItem {
  return { kind: 'gap', key: gap.key, gap }
}

/** The seq of the message a row shows, when it has one. */
export function rowSeq(item: TranscriptItem): number | undefined {
  return item.kind === 'operator' || item.kind === 'agent' ? item.message.seq : undefined
}

/** Messages a regenerate from `anchorId` would supersede, and how many of them are operator messages. */
export function regenerateImpact(messages: readonly Message[], anchorId: string): { replaced: number; operator: number } {
  const main = messages.filter((m) => !m.superseded)
  const index = main.findIndex((m) => m.id === anchorId)
  if (index < 0) return { replaced: 0, operator: 0 }
  const after = main.slice(index + 1)
  return { replaced: after.length, operator: after.filter((m) => m.role === 'operator').length }
}

/**
 * What find-in-session searches in a row: the message, and the earlier versions folded under it;
 * for a reply, its reasoning and its tools' names and inputs too (as the daemon's search does).
 */
export function transcriptText(item: TranscriptItem): string {
  if (item.kind === 'gap') return ''
  if (item.kind === 'pending') return item.entry.content
  if (item.kind === 'operator') return item.message.content
  return [item.message, ...item.earlier].map(replyText).join('\n')
}

function replyText(message: Message): string {
  if (!message.parts || message.parts.length === 0) return message.content
  return message.parts.map((part) => (part.type === 'tool' ? `${part.name}\n${part.input}` : part.text)).join('\n')
}

