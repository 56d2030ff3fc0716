/**
 * The background watch: sessions no view in this tab shows, seen through the session list. It runs
 * in one tab at a time (the one that notifies), so the tabs of a browser do not each poll. Every
 * list the query cache receives is read (the session list's own polling while a tab is visible,
 * a send's refresh); while nobody else refreshes it (the tab is hidden), the watch asks for one
 * every `pollMs`, and at once when the page wakes (a laptop back from sleep). A session whose
 * status or `updated_at` moved, or that is running, has its newest messages read (glance.ts).
 */
import type { QueryClient } from '@tanstack/query-core'
import type { WakeSource } from '../retry/browser'
import type { Session } from '../wire/types'
import { chatKeys, sessionsQuery } from '../thread/history'
import type { ChatRuntime } from '../thread/runtime'
import type { AttentionEvent } from './events'
import { GLANCE_PAGE, glanceAt, nextGlances, type BoardReader, type Glance } from './glance'

/** How stale the list may be before the watch asks for it; the list's own polling is 15 s. */
const BACKGROUND_POLL_MS = 20_000
/** On waking, a list older than this is read again at once. */
const WAKE_STALE_MS = 2_000
/** Events counted before the list was asked for: a session missing from it is gone. */
const LIST_SLACK_MS = 30_000

export type BackgroundOptions = {
  queryClient: QueryClient
  runtime: ChatRuntime
  board: BoardReader
  now: () => number
  /** Sessions a view in this tab shows: their thread says what happens in them. */
  shownHere: () => ReadonlySet<string>
  record: (events: AttentionEvent[]) => void
  /** The list's sessions, and a time before it was asked for. */
  listed: (present: ReadonlySet<string>, before: number) => void
  wake: WakeSource
  pollMs?: number
}

/** Starts watching; returns the stop. */
export function watchInBackground({ queryClient, runtime, board, now, shownHere, record, listed, wake, pollMs = BACKGROUND_POLL_MS }: BackgroundOptions): () => void {
  let glances: Map<string, Glance> | undefined
  const reading = new Set<string>()
  /** Sessions whose read failed: read again with the next list. */
  const unread = new Set<string>()
  let stopped = false

  const cache = queryClient.getQueryCache()
  const isList = (key: readonly unknown[]) => key.length === chatKeys.sessions.length && key[0] === chatKeys.sessions[0]

  function onList(sessions: readonly Session[], at: number): void {
    const skip = shownHere()
    const next = nextGlances(glances, sessions, skip)
    glances = next.glances
    listed(new Set(sessions.map((s) => s.id)), at - LIST_SLACK_MS)
    const toRead = new Set(next.read)
    for (const id of unread) if (glances.has(id) && !skip.has(id)) toRead.add(id)
    for (const id of toRead) void read(id)
  }

  async function read(sessionId: string): Promise<void> {
    if (reading.has(sessionId)) return
    reading.add(sessionId)
    try {
      const page = await runtime.client.listMessagesPage(sessionId, { limit: GLANCE_PAGE })
      const glance = glances?.get(sessionId)
      if (stopped || !glance) return
      unread.delete(sessionId)
      const result = glanceAt(sessionId, glance, page.messages, board, now())
      glances?.set(sessionId, { ...glance, ...pick(result.glance) })
      if (result.events.length > 0) record(result.events)
    } catch {
      // Offline, or the session just went: the next list says which.
      if (!stopped) unread.add(sessionId)
    } finally {
      reading.delete(sessionId)
    }
  }

  const stopCache = cache.subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success' || !isList(event.query.queryKey)) return
    const sessions = event.query.state.data as Session[] | undefined
    if (sessions) onList(sessions, event.query.state.dataUpdatedAt)
  })

  function refresh(staleAfter: number): void {
    const state = queryClient.getQueryState<Session[]>(chatKeys.sessions)
    if (state?.fetchStatus === 'fetching') return
    if (state?.data && Date.now() - state.dataUpdatedAt < staleAfter) return
    void queryClient.fetchQuery(sessionsQuery(runtime)).catch(() => undefined)
  }

  // The list already held is the first one: what is running now is read for approvals.
  const held = queryClient.getQueryState<Session[]>(chatKeys.sessions)
  if (held?.data) onList(held.data, held.dataUpdatedAt)
  else refresh(0)
  const timer = setInterval(() => refresh(pollMs), pollMs)
  const stopWake = wake(() => refresh(WAKE_STALE_MS))
  return () => {
    stopped = true
    clearInterval(timer)
    stopWake()
    stopCache()
  }
}

/** What a read of messages adds to a glance (the list owns status and `updated_at`). */
function pick({ tail, unclaimed }: Glance): Pick<Glance, 'tail' | 'unclaimed'> {
  return { tail, unclaimed }
}
