/**
 * The attention ledger: every event any tab counted, once, in the keyed store the tabs share, with
 * whether the operator has seen it and whether it was notified. The tab title's count is the
 * events not yet seen, the same in every tab.
 *
 * The browser's storage is no transaction: two tabs writing at once can each write over the
 * other's event, and Web Locks do not help, since the other tab's copy of storage may not have the
 * write yet when its lock is granted. So the ledger is a set that only grows, whose flags only go
 * one way (seen, notified), and whose cap keeps the newest: a tab merges what it reads with what it
 * knows, and writes back what storage lacks. Every tab ends up with the same ledger, whatever the
 * order of their writes.
 */
import { z } from 'zod/mini'
import type { KeyedStore } from '../storage/keyed-store'
import { LOCK_PREFIX, type LockManagerLike } from '../storage/locks'
import { ATTENTION_KINDS, type AttentionEvent } from './events'

export const LEDGER_NAMESPACE = 'attention'
/** Events kept; the oldest go first. An operator with this many unseen is told "(200)" either way. */
const LEDGER_LIMIT = 200
const LEDGER_LOCK = `${LOCK_PREFIX}attention.ledger`

const entrySchema = z.object({
  id: z.string(),
  kind: z.enum(ATTENTION_KINDS),
  sessionId: z.string(),
  /** When a tab first counted it (browser clock). */
  at: z.number(),
  runId: z.string(),
  toolCallId: z.optional(z.string()),
  tool: z.optional(z.string()),
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
  until: z.optional(z.number()),
  tools: z.optional(z.array(z.string())),
  /** The operator looked at the session after it happened. */
  seen: z.optional(z.boolean()),
  /** The tab that notifies decided: a notification was shown, or none was due. */
  notified: z.optional(z.enum(['shown', 'skipped'])),
})
export type LedgerEntry = z.infer<typeof entrySchema>
const ledgerSchema = z.array(entrySchema)

/** Both ledgers' events, each once with the flags either has; the newest LEDGER_LIMIT, oldest first. */
export function mergeLedgers(a: readonly LedgerEntry[], b: readonly LedgerEntry[]): LedgerEntry[] {
  const byId = new Map<string, LedgerEntry>()
  for (const entry of [...a, ...b]) {
    const known = byId.get(entry.id)
    if (!known) {
      byId.set(entry.id, canonical(entry))
      continue
    }
    const notified = known.notified === 'shown' || entry.notified === 'shown' ? 'shown' : (known.notified ?? entry.notified)
    byId.set(entry.id, canonical({ ...(entry.at < known.at ? entry : known), seen: known.seen === true || entry.seen === true, notified }))
  }
  return [...byId.values()].sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)).slice(-LEDGER_LIMIT)
}

/**
 * The entry with its fields in one order and no empty flag: two tabs holding the same ledger
 * write the same text, or each would take the other's copy for a different one and write back.
 */
function canonical(entry: LedgerEntry): LedgerEntry {
  const { id, kind, sessionId, at, runId, toolCallId, tool, error, until, tools, seen, notified } = entry
  const out: LedgerEntry = { id, kind, sessionId, at, runId }
  if (toolCallId !== undefined) out.toolCallId = toolCallId
  if (tool !== undefined) out.tool = tool
  if (error !== undefined) out.error = { code: error.code, message: error.message }
  if (until !== undefined) out.until = until
  if (tools !== undefined) out.tools = tools
  if (seen === true) out.seen = true
  if (notified !== undefined) out.notified = notified
  return out
}

const sameLedger = (a: readonly LedgerEntry[], b: readonly LedgerEntry[]) =>
  a.length === b.length && JSON.stringify(a.map(canonical)) === JSON.stringify(b.map(canonical))

/** The ledger entry of an event counted at `at`. */
function entryOf(event: AttentionEvent, at: number, seen: boolean): LedgerEntry {
  const entry: LedgerEntry = { id: event.id, kind: event.kind, sessionId: event.sessionId, at, runId: event.runId }
  if (event.kind === 'approval') Object.assign(entry, { toolCallId: event.toolCallId, tool: event.tool })
  if (event.kind === 'failed' && event.error) entry.error = { code: event.error.code, message: event.error.message }
  if (event.kind === 'paused') entry.until = event.until
  if (event.kind === 'held') entry.tools = [...event.tools]
  if (seen) entry.seen = true
  return entry
}

/** Events not yet seen: the tab title's count. */
export const unseenCount = (entries: readonly LedgerEntry[]): number => entries.filter((e) => !e.seen).length

/**
 * What a session's unseen events ask of the operator, for its row in the session list: `needsYou`
 * when one waits on them (a tool's approval, a retry held until they say), else `news` (a reply
 * finished, failed, or paused until a time).
 */
export type SessionMark = 'needsYou' | 'news'

/** Each session with unseen events and its mark. */
export function sessionMarks(entries: readonly LedgerEntry[]): Map<string, SessionMark> {
  const marks = new Map<string, SessionMark>()
  for (const entry of entries) {
    if (entry.seen) continue
    const mark: SessionMark = entry.kind === 'approval' || entry.kind === 'held' ? 'needsYou' : 'news'
    if (marks.get(entry.sessionId) !== 'needsYou') marks.set(entry.sessionId, mark)
  }
  return marks
}

/** The marks as one comparable string (sessions in order), so a change of the ledger that changes no mark renders nothing. */
export const marksKey = (marks: ReadonlyMap<string, SessionMark>): string =>
  [...marks]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, mark]) => `${id}:${mark}`)
    .join(' ')

export function createLedger({ store, locks }: { store: KeyedStore; locks: LockManagerLike }) {
  const slot = store.slot(LEDGER_NAMESPACE, 'v1', ledgerSchema)
  const listeners = new Set<() => void>()
  let known: LedgerEntry[] = mergeLedgers([], slot.read() ?? [])
  let writing = false
  let again = false

  /**
   * Writes what storage lacks. Under a lock, so the tabs' writes do not interleave within one
   * browser process; the merge covers what the lock cannot (another process's late copy).
   */
  function persist(): void {
    if (writing) {
      again = true
      return
    }
    writing = true
    void locks
      .request(LEDGER_LOCK, {}, () => {
        const stored = slot.read() ?? []
        const merged = mergeLedgers(known, stored)
        if (!sameLedger(merged, stored)) slot.write(merged)
      })
      .catch(() => undefined)
      .finally(() => {
        writing = false
        if (again) {
          again = false
          persist()
        }
      })
  }

  function change(next: LedgerEntry[]): void {
    if (sameLedger(next, known)) return
    known = next
    for (const listener of [...listeners]) listener()
    persist()
  }

  /** What storage holds, merged in; what it lacks, written back (a tab wrote over it). */
  function hear(): void {
    const stored = slot.read() ?? []
    const merged = mergeLedgers(known, stored)
    if (!sameLedger(merged, known)) {
      known = merged
      for (const listener of [...listeners]) listener()
    }
    if (!sameLedger(merged, stored)) persist()
  }

  return {
    /** Every event kept, oldest first; the same array until the ledger changes. */
    entries: (): readonly LedgerEntry[] => known,
    /** Counts events not counted yet (an id already in the ledger changes nothing). */
    record(events: readonly AttentionEvent[], at: number, seen: (event: AttentionEvent) => boolean): void {
      const ids = new Set(known.map((e) => e.id))
      const fresh = events.filter((event) => !ids.has(event.id))
      if (fresh.length > 0) change(mergeLedgers(known, fresh.map((event) => entryOf(event, at, seen(event)))))
    },
    /** The operator looked at `sessionId`: everything counted in it until now is seen. */
    markSeen(sessionId: string): void {
      if (!known.some((e) => e.sessionId === sessionId && !e.seen)) return
      change(known.map((e) => (e.sessionId === sessionId && !e.seen ? canonical({ ...e, seen: true }) : e)))
    },
    /**
     * Sessions gone from the daemon's list (deleted) cannot be looked at: their events, counted
     * before the list was asked for (`before`), are seen.
     */
    markGone(present: ReadonlySet<string>, before: number): void {
      const gone = (e: LedgerEntry) => !e.seen && e.at < before && !present.has(e.sessionId)
      if (known.some(gone)) change(known.map((e) => (gone(e) ? canonical({ ...e, seen: true }) : e)))
    },
    /** The notifying tab's decision on one event. */
    settle(id: string, notified: 'shown' | 'skipped'): void {
      if (known.some((e) => e.id === id && e.notified === undefined)) change(known.map((e) => (e.id === id ? canonical({ ...e, notified }) : e)))
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    /** Hears the other tabs' writes (and reads what they wrote meanwhile); returns the stop. */
    connect(): () => void {
      hear()
      return store.subscribe(LEDGER_NAMESPACE, hear)
    },
    /** Reads storage again (a page back from sleep). */
    refresh: hear,
  }
}
