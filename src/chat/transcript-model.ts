/**
 * From history and the outbox to what the transcript shows: the main flow, with superseded
 * replies folded under the reply that replaced them, and sends the daemon has not confirmed.
 */
import type { Message } from '../wire/types'
import type { OutboxEntry } from '../send/outbox'

export type TranscriptItem =
  | { kind: 'operator'; key: string; message: Message }
  | { kind: 'pending'; key: string; entry: OutboxEntry }
  | { kind: 'agent'; key: string; message: Message; earlier: Message[]; followers: Record<string, Message[]>; isLatest: boolean }

/**
 * What identifies a reply on screen: its run. A reply shown from a send's receipt has a stand-in
 * id until history gives its own, and keeps its row (and any focus wish on it) across the change.
 */
export function replyKey(reply: Message): string {
  return reply.run_id ? `run:${reply.run_id}` : reply.id
}

type HistoryItems = { items: readonly TranscriptItem[]; landed: ReadonlySet<string> }

/**
 * The rows of one history, kept as long as that history is: the cached history is replaced, never
 * changed in place, so its identity says it is the same. A change of the outbox alone (a send
 * going out, accepted, taken back) then costs its own rows, not a pass over 10,000 messages.
 */
const historyRows = new WeakMap<readonly Message[], HistoryItems>()

export function buildTranscript(messages: readonly Message[], pending: readonly OutboxEntry[]): readonly TranscriptItem[] {
  let rows = historyRows.get(messages)
  if (!rows) historyRows.set(messages, (rows = historyItems(messages)))
  const { items, landed } = rows
  // A send whose message history already holds is shown from history, never twice.
  const waiting = pending.filter((entry) => !landed.has(entry.clientMessageId))
  if (waiting.length === 0) return items
  return [...items, ...waiting.map((entry): TranscriptItem => ({ kind: 'pending', key: `pending:${entry.clientMessageId}`, entry }))]
}

function historyItems(messages: readonly Message[]): HistoryItems {
  const items: TranscriptItem[] = []
  const superseded = new Map<string, Message[]>()
  // What a regenerate replaced after each earlier reply (later operator messages and their
  // replies), so nothing the operator wrote disappears from view.
  const followers: Record<string, Message[]> = {}
  let openVersion: Message | undefined
  const landed = new Set<string>()
  for (const m of messages) {
    if (m.client_message_id) landed.add(m.client_message_id)
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
  }
  const main = messages.filter((m) => !m.superseded)
  const lastAgent = main.findLast((m) => m.role === 'agent')
  for (const m of main) {
    if (m.role === 'operator') items.push({ kind: 'operator', key: m.id, message: m })
    else
      items.push({
        kind: 'agent',
        key: replyKey(m),
        message: m,
        earlier: m.reply_to ? (superseded.get(m.reply_to) ?? []) : [],
        followers,
        isLatest: m === lastAgent,
      })
  }
  return { items, landed }
}

/** Messages a regenerate from `anchorId` would supersede, and how many of them are operator messages. */
export function regenerateImpact(messages: readonly Message[], anchorId: string): { replaced: number; operator: number } {
  const main = messages.filter((m) => !m.superseded)
  const index = main.findIndex((m) => m.id === anchorId)
  if (index < 0) return { replaced: 0, operator: 0 }
  const after = main.slice(index + 1)
  return { replaced: after.length, operator: after.filter((m) => m.role === 'operator').length }
}

/** True while a reply is queued or streaming (Stop applies). */
export function isActive(message: Message): boolean {
  return message.status === 'queued' || message.status === 'streaming'
}

/** What find-in-session searches in a row: the message, and the earlier versions folded under it. */
export function transcriptText(item: TranscriptItem): string {
  if (item.kind === 'pending') return item.entry.content
  if (item.kind === 'operator') return item.message.content
  return [item.message.content, ...item.earlier.map((m) => m.content)].join('\n')
}

