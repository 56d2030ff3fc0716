/**
 * The operator's decision on a tool that waits for approval, made once whatever happens: a double
 * click, Enter held down, two tabs deciding at once, a reload between the click and the answer, a
 * lost response. It follows the model of an idempotent send (src/send/deliver.ts):
 *
 * - a record per tool call in the keyed store (shared by the tabs, kept across a reload), written
 *   `sending` BEFORE the request goes out, so a reload sends the same decision again, once;
 * - a Web Lock per tool call while the request is on the wire, checked again under the lock, so
 *   two tabs never both send;
 * - the record's change reaches the other tabs at once (the keyed store's change event), so they
 *   show "Approved — waiting for the agent" before their stream says the tool runs.
 *
 * The records and what they show are here; sending a decision is src/thread/decide.ts, fetched
 * with the first decision (or a reload that finds one on the wire).
 *
 * The daemon's own rule is the backstop: the same decision again is 200 and changes nothing; the
 * other decision is 409 `decision_conflict`, and the decision already taken stands.
 */
import { z } from 'zod/mini'
import { createCappedList } from '../storage/capped-list'
import type { KeyedStore } from '../storage/keyed-store'
import { TOOL_DECISIONS, type ToolDecision, type WireError } from '../wire/types'

/**
 * Where a decision stands:
 * - `sending`: recorded, and on the wire (or it was when the page went away);
 * - `taken`: the daemon has it (200);
 * - `conflict`: the daemon had the other decision already (409 `decision_conflict`): that one stands;
 * - `refused`: the daemon refused it for good (`tool_not_awaiting`, `tool_call_not_found`, `run_not_found`…);
 * - `failed`: it could not be delivered (network, the daemon unavailable): the operator may send it again.
 */
const DECISION_STATES = ['sending', 'taken', 'conflict', 'refused', 'failed'] as const
const recordSchema = z.object({
  sessionId: z.string(),
  runId: z.string(),
  toolCallId: z.string(),
  decision: z.enum(TOOL_DECISIONS),
  state: z.enum(DECISION_STATES),
  /** Why it was refused or failed, as a value: worded where shown. */
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
  /** When it was last written (browser clock). */
  at: z.number(),
})

export type DecisionState = (typeof DECISION_STATES)[number]

export type DecisionRecord = z.infer<typeof recordSchema>

const DECISION_NAMESPACE = 'decision'
/** The records' keys, oldest first, so the oldest can be let go. */
const DECISION_INDEX_NAMESPACE = 'decision-index'
/** Records kept at most, besides those still on the wire: one matters only while its tool waits. */
const DECISION_LIMIT = 200

/** A tool call's key in a session's decisions (tool call ids are the run's). */
export const decisionKey = (runId: string, toolCallId: string) => `${runId}/${toolCallId}`

const storeKey = (sessionId: string, runId: string, toolCallId: string) =>
  `${encodeURIComponent(sessionId)}.${encodeURIComponent(runId)}.${encodeURIComponent(toolCallId)}`

/** The other decision: what stands after a `decision_conflict`. */
const otherDecision = (decision: ToolDecision): ToolDecision => (decision === 'approve' ? 'deny' : 'approve')

/** The decisions of every session, in the keyed store. */
export type DecisionBook = {
  read(sessionId: string, runId: string, toolCallId: string): DecisionRecord | undefined
  write(record: DecisionRecord): void
  /** A session's records by `decisionKey`. */
  session(sessionId: string): Map<string, DecisionRecord>
  /** A record changed, in this tab or another. */
  subscribe(listener: () => void): () => void
}

export function createDecisionBook(store: KeyedStore): DecisionBook {
  const slotAt = (key: string) => store.slot(DECISION_NAMESPACE, key, recordSchema)
  const index = createCappedList(store, DECISION_INDEX_NAMESPACE, {
    limit: DECISION_LIMIT,
    letGo(key) {
      const record = slotAt(key).read()
      // One on the wire is what a reload sends again: it stays however old it is.
      if (record?.state === 'sending') return false
      slotAt(key).write(undefined)
      return true
    },
  })
  return {
    read: (sessionId, runId, toolCallId) => slotAt(storeKey(sessionId, runId, toolCallId)).read(),
    write(record) {
      const key = storeKey(record.sessionId, record.runId, record.toolCallId)
      const slot = slotAt(key)
      // Indexed first: a tab told of the record's write finds it through the index.
      if (slot.read() === undefined) index.add(key)
      slot.write(record)
    },
    session(sessionId) {
      const prefix = `${encodeURIComponent(sessionId)}.`
      const records = new Map<string, DecisionRecord>()
      for (const key of index.read()) {
        if (!key.startsWith(prefix)) continue
        const record = slotAt(key).read()
        if (record && record.sessionId === sessionId) records.set(decisionKey(record.runId, record.toolCallId), record)
      }
      return records
    },
    subscribe: (listener) => store.subscribe(DECISION_NAMESPACE, () => listener()),
  }
}

/** One book per store, so every thread of a tab reads the same records. */
const books = new WeakMap<KeyedStore, DecisionBook>()

export function decisionBookOf(store: KeyedStore): DecisionBook {
  let book = books.get(store)
  if (!book) books.set(store, (book = createDecisionBook(store)))
  return book
}

/**
 * What a waiting tool's approval shows, from its record:
 * - `open`: Approve and Deny;
 * - `deciding`: the decision is on the wire (here or in another tab);
 * - `taken`: the daemon has it, and the agent has yet to act on it;
 * - `conflict`: the other decision was already taken, and it stands (`standing`);
 * - `refused`: the daemon refused it for good;
 * - `failed`: it could not be delivered: the same decision can be sent again.
 */
export type DecisionView =
  | { kind: 'open' }
  | { kind: 'deciding'; decision: ToolDecision }
  | { kind: 'taken'; decision: ToolDecision }
  | { kind: 'conflict'; decision: ToolDecision; standing: ToolDecision }
  | { kind: 'refused'; decision: ToolDecision; error: WireError | undefined }
  | { kind: 'failed'; decision: ToolDecision; error: WireError | undefined }

const OPEN: DecisionView = { kind: 'open' }

export function decisionView(record: DecisionRecord | undefined): DecisionView {
  if (!record) return OPEN
  const { decision } = record
  switch (record.state) {
    case 'sending':
      return { kind: 'deciding', decision }
    case 'taken':
      return { kind: 'taken', decision }
    case 'conflict':
      return { kind: 'conflict', decision, standing: otherDecision(decision) }
    case 'refused':
      return { kind: 'refused', decision, error: record.error }
    case 'failed':
      return { kind: 'failed', decision, error: record.error }
  }
}

/** The operator has something to do on this tool: nothing was decided yet, or a decision failed to go out. */
export function needsOperator(record: DecisionRecord | undefined): boolean {
  return record === undefined || record.state === 'failed'
}
