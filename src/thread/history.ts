/**
 * Server state: one query for the sessions, one for the messages of a session. History is pure
 * server state: the live-run store is laid over it where a message is shown, never written in.
 *
 * A session's history is held in pages (./pages.ts): the query reads the newest page when a
 * session opens, and every later read is a page: the end caught up (`?after=`), a gap filled as
 * the view reaches it, the page around a find hit. Reads of the end run one after another per
 * session, so an older answer never lands over a newer one.
 */
import type { QueryClient, QueryFunctionContext } from '@tanstack/query-core'
import type { SettledRun } from '../live/run-follower'
import type { DaemonClient } from '../wire/http'
import type { Message, Session } from '../wire/types'
import {
  coverOf,
  evict,
  farRegenerate,
  hasEarlier,
  historyFrom,
  MAX_PAGE,
  mergeRead,
  PAGE_SIZE,
  refreshFrom,
  staleRuns,
  tailOf,
  withTail,
  type PagedHistory,
  type PageRequest,
  type Refresh,
} from './pages'
import type { ChatRuntime } from './runtime'

export const chatKeys = {
  sessions: ['sessions'] as const,
  messages: (sessionId: string) => ['messages', sessionId] as const,
}

export function sessionsQuery({ client }: ChatRuntime) {
  return {
    queryKey: chatKeys.sessions,
    queryFn: ({ signal }: QueryFunctionContext) => client.listSessions(signal),
  }
}

type PageClient = Pick<DaemonClient, 'listMessagesPage'>

/** What reads one session's pages: the daemon, and the refreshes of its end waiting or under way. */
type Pager = {
  client: PageClient
  /** Refreshes asked for and not begun. */
  waiting: Refresh[]
  /** The refreshes of the end under way, one after another; resolves when none is left. */
  running: Promise<void> | undefined
  /** Page reads for gaps under way, by request, so the same page is never read twice at once. */
  pages: Map<string, Promise<boolean>>
}

const pagers = new WeakMap<QueryClient, Map<string, Pager>>()

function pagerOf(queryClient: QueryClient, sessionId: string, client?: PageClient): Pager | undefined {
  let sessions = pagers.get(queryClient)
  if (!sessions) pagers.set(queryClient, (sessions = new Map()))
  let pager = sessions.get(sessionId)
  if (!pager && client) sessions.set(sessionId, (pager = { client, waiting: [], running: undefined, pages: new Map() }))
  return pager
}

/**
 * The messages of a session, held in pages. A first read is the newest page; a read of a session
 * already held (the page coming back into focus, the network coming back, an invalidation) catches
 * its end up instead of reading it all again.
 */
export function messagesQuery({ client }: ChatRuntime, sessionId: string) {
  return {
    queryKey: chatKeys.messages(sessionId),
    queryFn: async ({ signal, client: queryClient }: QueryFunctionContext): Promise<PagedHistory> => {
      const pager = pagerOf(queryClient, sessionId, client) as Pager
      if (heldHistory(queryClient, sessionId)) {
        await refreshEnd(queryClient, sessionId, pager, { kind: 'unsure' })
        const held = heldHistory(queryClient, sessionId)
        if (held) return held
      }
      const request = { limit: PAGE_SIZE }
      const page = await client.listMessagesPage(sessionId, request, signal)
      return historyFrom({ ...coverOf(request, page), skipped: page.skipped })
    },
    // Pages keep the objects of messages that did not change themselves (pages.ts); a deep
    // comparison of every held message on each write would cost more than it saves.
    structuralSharing: false,
  }
}

/** The pager of a session, made with the daemon client its thread reads with. */
export function historyPager(queryClient: QueryClient, client: PageClient, sessionId: string): void {
  pagerOf(queryClient, sessionId, client)
}

/**
 * Whether the session is as new as one just made: untitled, its history read and empty, nothing
 * of it waiting to be sent, no draft. "New session" opens it again rather than make another.
 */
export function isBlankSession(queryClient: QueryClient, { outbox, drafts }: Pick<ChatRuntime, 'outbox' | 'drafts'>, sessionId: string): boolean {
  const session = queryClient.getQueryData<Session[]>(chatKeys.sessions)?.find((s) => s.id === sessionId)
  const held = heldHistory(queryClient, sessionId)
  if (session?.title !== '' || !held || held.messages.length > 0 || hasEarlier(held)) return false
  return !outbox.entries().some((entry) => entry.sessionId === sessionId) && drafts.read(sessionId).trim() === ''
}

const heldHistory = (queryClient: QueryClient, sessionId: string) => queryClient.getQueryData<PagedHistory>(chatKeys.messages(sessionId))

function write(queryClient: QueryClient, sessionId: string, next: PagedHistory): void {
  queryClient.setQueryData<PagedHistory>(chatKeys.messages(sessionId), next)
}

/**
 * Reads the end of a session again for `refresh`, after any refresh under way (their reads never
 * cross). Resolves once it is in. A failed read leaves what is held; the next refresh tries again.
 */
function refreshEnd(queryClient: QueryClient, sessionId: string, pager: Pager, refresh: Refresh): Promise<void> {
  pager.waiting.push(refresh)
  pager.running ??= (async () => {
    try {
      while (pager.waiting.length > 0) {
        const batch = pager.waiting.splice(0)
        try {
          const far = await catchUp(queryClient, sessionId, pager.client, batch)
          if (far) pager.waiting.push({ kind: 'regenerated', anchorId: far })
        } catch {
          // Kept as held: a read that failed changed nothing on screen, and the next one catches up.
        }
      }
    } finally {
      pager.running = undefined
    }
  })()
  return pager.running
}

/** One catch-up for a batch of refreshes: the earliest place any of them reads from, on. */
async function catchUp(queryClient: QueryClient, sessionId: string, client: PageClient, batch: readonly Refresh[]): Promise<string | undefined> {
  const held = heldHistory(queryClient, sessionId)
  if (!held) return undefined
  const starts = batch.map((refresh) => refreshFrom(held, refresh))
  if (starts.some((start) => start === undefined)) {
    await readNewest(queryClient, sessionId, client)
    return undefined
  }
  const after = Math.min(...(starts as number[]))
  // A regenerate far back flagged messages of earlier pages held too.
  for (const request of staleRuns(held, after)) {
    const page = await client.listMessagesPage(sessionId, request)
    merge(queryClient, sessionId, { ...coverOf(request, page), skipped: page.skipped }, 'replace')
  }
  const request = { after, limit: MAX_PAGE }
  const page = await client.listMessagesPage(sessionId, request)
  if (page.has_more) {
    // More came than a page holds (a long absence): the newest page, and a gap before it.
    await readNewest(queryClient, sessionId, client)
    return undefined
  }
  merge(queryClient, sessionId, { ...coverOf(request, page), skipped: page.skipped }, 'replace')
  const merged = heldHistory(queryClient, sessionId)
  const far = merged ? farRegenerate(merged, after) : undefined
  return far && !batch.some((r) => r.kind === 'regenerated' && r.anchorId === far) ? far : undefined
}

async function readNewest(queryClient: QueryClient, sessionId: string, client: PageClient): Promise<void> {
  const request = { limit: PAGE_SIZE }
  const page = await client.listMessagesPage(sessionId, request)
  merge(queryClient, sessionId, { ...coverOf(request, page), skipped: page.skipped }, 'replace')
}

/** Merges a read into the history held; nothing when none is (the session was deleted meanwhile). */
function merge(queryClient: QueryClient, sessionId: string, read: Parameters<typeof mergeRead>[1], mode: 'replace' | 'fill'): void {
  const held = heldHistory(queryClient, sessionId)
  if (held) write(queryClient, sessionId, mergeRead(held, read, mode))
}

/**
 * A session's history changed on the daemon (a send or regenerate was accepted, a run ended or
 * was stopped, another tab said so): its end is read again, and the session list with it (status
 * and title follow). Resolves once the messages are in. A run the stream saw complete (`settled`)
 * is written into the history held instead, when it holds that reply: the stream told all a read
 * would. `refresh` says what changed, and so how far back the read goes (pages.ts `Refresh`);
 * unsure by default.
 */
export async function refreshSession(queryClient: QueryClient, sessionId: string, settled?: SettledRun, refresh: Refresh = { kind: 'unsure' }): Promise<void> {
  void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
  const pager = pagerOf(queryClient, sessionId)
  if (settled && settleRun(queryClient, sessionId, settled)) {
    // Shown complete at once. Its tools' times are the stream's, taken as their events arrived:
    // the reply is read again, in the background, for the daemon's own (what a reload shows).
    if (pager && settled.parts.some((part) => part.type === 'tool')) void refreshEnd(queryClient, sessionId, pager, { kind: 'settled', messageId: settled.messageId })
    return
  }
  const key = chatKeys.messages(sessionId)
  if (!pager || !heldHistory(queryClient, sessionId)) {
    // A first read still on its way left before this change: invalidating would hand back that
    // very read (TanStack Query reuses a fetch in flight while a query has no data yet), and the
    // message just sent would not show until something else read history again. Cancel it, so
    // the read that follows starts after the change.
    await queryClient.cancelQueries({ queryKey: key })
    await queryClient.invalidateQueries({ queryKey: key })
    return
  }
  await refreshEnd(queryClient, sessionId, pager, refresh)
}

/** How far the daemon's clock, read from its `Date` headers (whole seconds), may be off this one. */
const CLOCK_SLACK_MS = 2000

/**
 * The session list says a session changed at `updatedAt` (the daemon's clock; `toLocal` puts it
 * on this one): when that is news to this tab, its end is read again (`?after=`) and a reply
 * running there is followed. News is a change this tab did not see: not while it follows a reply
 * of its own (`following`: the stream says what changes), nor before its history was last written
 * (a send's reply settled here), give or take the clocks' slack. True when it reads.
 */
export function catchUpWithList(queryClient: QueryClient, sessionId: string, updatedAt: number, { following, toLocal }: { following: boolean; toLocal: (daemonMs: number) => number }): boolean {
  if (following) return false
  const knownAt = queryClient.getQueryState(chatKeys.messages(sessionId))?.dataUpdatedAt ?? 0
  if (toLocal(updatedAt) <= knownAt + CLOCK_SLACK_MS) return false
  void refreshSession(queryClient, sessionId)
  return true
}

/**
 * The history held for a session when it can stand in for a read: there is one, and no read of
 * its end is on its way (a read that left before a change would drop what is written into it).
 */
function idleHistory(queryClient: QueryClient, sessionId: string): PagedHistory | undefined {
  const state = queryClient.getQueryState<PagedHistory>(chatKeys.messages(sessionId))
  if (!state?.data || state.fetchStatus !== 'idle') return undefined
  return pagerOf(queryClient, sessionId)?.running ? undefined : state.data
}

/**
 * Writes a run that completed into the cached history: its reply takes the id, the text and the
 * status the stream ended with, every other message stays as it is (the same objects, so the
 * transcript builds one row). False when that cannot stand in for a read: no history held, a read
 * on its way (it may predate the end), or no reply of that run still shown as going.
 */
function settleRun(queryClient: QueryClient, sessionId: string, { runId, messageId, content, parts, usage }: SettledRun): boolean {
  const history = idleHistory(queryClient, sessionId)
  if (!history) return false
  const messages = tailOf(history)
  const at = messages.findLastIndex((m) => m.run_id === runId)
  const reply = messages[at]
  if (!reply || reply.superseded || (reply.status !== 'queued' && reply.status !== 'streaming')) return false
  const { error: _error, retry: _retry, ...kept } = reply
  const next = messages.slice()
  // The steps as the stream ended them; a reply without steps keeps none (`content` says it all).
  next[at] = { ...kept, id: messageId, content, status: 'complete', ...(parts.length > 0 ? { parts: [...parts] } : {}), ...(usage ? { usage } : {}) }
  write(queryClient, sessionId, withTail(history, next))
  return true
}

/** An accepted send, as far as its receipt tells. */
export type AcceptedSend = {
  sessionId: string
  messageId: string
  clientMessageId: string
  content: string
  run: { id: string; queued: boolean }
  /** When it was accepted (the client's clock; history's own time replaces it at the next read). */
  at: number
}

/** The id a reply has in the cache until its own is known (the stream's end, or the read after it). */
const awaitedReplyId = (runId: string) => `awaited:${runId}`

/**
 * Shows an accepted send from its receipt, without reading history: the operator message as sent
 * and its reply as its run begins, laid at the end of the cached history. The run follower sees
 * the reply's run and follows it. When the run ends, its stream's end settles the reply
 * (`settleRun`) or, for a run that did not complete, one read of the end brings its persisted
 * outcome. Returns false when this cannot stand in for a read: no history
 * read yet, or one on its way that left before the send and would drop what is written here
 * (then `refreshSession` is the caller's way). When it returns true the session list is read
 * again, as `refreshSession` would: its status and first-message title follow.
 */
export function showAcceptedSend(queryClient: QueryClient, sent: AcceptedSend): boolean {
  const history = idleHistory(queryClient, sent.sessionId)
  if (!history) return false
  void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
  const messages = tailOf(history)
  // Already there (another tab's news was read first): history's copy stands.
  if (messages.some((m) => m.id === sent.messageId || m.run_id === sent.run.id)) return true
  const operator: Message = {
    id: sent.messageId,
    session_id: sent.sessionId,
    role: 'operator',
    content: sent.content,
    created_at: sent.at,
    superseded: false,
    client_message_id: sent.clientMessageId,
  }
  const reply: Message = {
    id: awaitedReplyId(sent.run.id),
    session_id: sent.sessionId,
    role: 'agent',
    content: '',
    created_at: sent.at,
    superseded: false,
    reply_to: sent.messageId,
    run_id: sent.run.id,
    status: sent.run.queued ? 'queued' : 'streaming',
  }
  write(queryClient, sent.sessionId, withTail(history, [...messages, operator, reply]))
  return true
}

/**
 * Reads one page for a gap (or a find hit) and adds what it holds to the history. Resolves true
 * once it is in, false when it could not be read (the gap stays, and is asked for again when the
 * view comes back to it). The same page asked for while it is read is read once.
 */
export function loadPage(queryClient: QueryClient, sessionId: string, request: PageRequest, landing?: () => void): Promise<boolean> {
  const pager = pagerOf(queryClient, sessionId)
  if (!pager || !heldHistory(queryClient, sessionId)) return Promise.resolve(false)
  const id = JSON.stringify(request)
  let reading = pager.pages.get(id)
  if (!reading) {
    reading = pager.client.listMessagesPage(sessionId, request).then(
      (page) => {
        pager.pages.delete(id)
        // Said before the write, so whoever showed the read under way changes with it, at once.
        landing?.()
        // Only what is missing: a refresh of the end may have written a newer copy meanwhile.
        merge(queryClient, sessionId, { ...coverOf(request, page), skipped: page.skipped }, 'fill')
        return true
      },
      () => {
        pager.pages.delete(id)
        landing?.()
        return false
      },
    )
    pager.pages.set(id, reading)
  }
  return reading
}

/** Lets go of the pages far from what the view shows (`viewLo…viewHi`, seqs); pages.ts `evict`. */
export function releaseFarPages(queryClient: QueryClient, sessionId: string, viewLo: number, viewHi: number): void {
  const held = heldHistory(queryClient, sessionId)
  if (!held) return
  const next = evict(held, viewLo, viewHi)
  if (next !== held) write(queryClient, sessionId, next)
}
