/**
 * The chat runtime: the daemon client and the React-free core every chat hook shares (the keyed
 * store and what lives in it, the live-run store and its stream follower, the tier 2 scheduler).
 * Components reach it through hooks; only tests and the app shell build one.
 */
import { createContext, useContext, useEffect, type ReactNode } from 'react'
import { v4 as uuidv4 } from 'uuid'
import { createLiveRunStore, type LiveRunStore } from '../live/live-runs'
import { createRunFollower, type RunFollower } from '../live/run-follower'
import { createRetryScheduler, type RetryScheduler } from '../retry/scheduler'
import { createDrafts, type Drafts } from '../send/drafts'
import { createOutbox, type Outbox } from '../send/outbox'
import { browserSessionStorage, createKeyedStore, type KeyedStore, type StorageBackend } from '../storage/keyed-store'
import type { DaemonClient } from '../wire/http'

/** Re-reads a session's history; resolves once the new read is in. */
export type HistoryRefresher = (sessionId: string) => Promise<unknown>

export type ChatRuntime = {
  client: DaemonClient
  store: KeyedStore
  outbox: Outbox
  drafts: Drafts
  live: LiveRunStore
  follower: RunFollower
  retry: RetryScheduler
  /** Clock for retry deadlines and timestamps; injected so tests and clock-skew correction can replace it. */
  clock: { now(): number }
  /** Makes a `client_message_id`: a v4 UUID, also outside secure contexts (plain http on a LAN). */
  newId: () => string
  /** Connects the core to the query cache that holds history (the providers do this). */
  connectHistory: (refresh: HistoryRefresher) => () => void
}

const RuntimeContext = createContext<ChatRuntime | null>(null)

/** Builds a runtime over the given client, with the tab's sessionStorage when there is one. */
export function createChatRuntime(client: DaemonClient, storage: StorageBackend | undefined = browserSessionStorage()): ChatRuntime {
  const store = createKeyedStore(storage)
  const clock = { now: () => Date.now() }
  let refresher: HistoryRefresher | undefined
  // Reads asked for before the providers connected are made once they do.
  const stale = new Set<string>()
  const refreshHistory = (sessionId: string): Promise<unknown> => {
    if (refresher) return refresher(sessionId)
    stale.add(sessionId)
    return Promise.resolve()
  }
  const live = createLiveRunStore({ store, clock })
  return {
    client,
    store,
    outbox: createOutbox(store),
    drafts: createDrafts(store),
    live,
    follower: createRunFollower({ client, live, refreshHistory }),
    retry: createRetryScheduler({ client, clock, store, refreshHistory: (sid) => void refreshHistory(sid) }),
    clock,
    newId: () => uuidv4(),
    connectHistory(refresh) {
      refresher = refresh
      for (const sessionId of stale) void refresh(sessionId)
      stale.clear()
      return () => {
        if (refresher === refresh) refresher = undefined
      }
    },
  }
}

export function ChatRuntimeProvider({ runtime, refreshHistory, children }: { runtime: ChatRuntime; refreshHistory: HistoryRefresher; children: ReactNode }) {
  useEffect(() => runtime.connectHistory(refreshHistory), [runtime, refreshHistory])
  // The reattach points of streaming runs are written when the page goes away, not per delta.
  useEffect(() => {
    const persist = () => runtime.live.persist()
    window.addEventListener('pagehide', persist)
    return () => window.removeEventListener('pagehide', persist)
  }, [runtime])
  return <RuntimeContext.Provider value={runtime}>{children}</RuntimeContext.Provider>
}

export function useChatRuntime(): ChatRuntime {
  const runtime = useContext(RuntimeContext)
  if (!runtime) throw new Error('useChatRuntime needs a <ChatRuntimeProvider> above it')
  return runtime
}
