/**
 * The chat runtime: the daemon client and the client-side stores every chat hook shares.
 * Components reach it through hooks; only tests and the app shell build one.
 */
import { createContext, useContext, type ReactNode } from 'react'
import type { DaemonClient } from '../wire/http'
import { createLiveRuns, type LiveRuns } from './live-runs'
import { createOutbox, type Outbox } from './outbox'

export type ChatRuntime = {
  client: DaemonClient
  outbox: Outbox
  live: LiveRuns
  /** Clock for retry deadlines and timestamps; injected so tests and future clock-skew correction can replace it. */
  clock: { now(): number }
  /** Makes a `client_message_id`. */
  newId: () => string
}

const RuntimeContext = createContext<ChatRuntime | null>(null)

/** Builds a runtime over the given client, with the tab's sessionStorage when there is one. */
export function createChatRuntime(client: DaemonClient, storage: Storage | undefined = safeSessionStorage()): ChatRuntime {
  return {
    client,
    outbox: createOutbox(storage),
    live: createLiveRuns(storage),
    clock: { now: () => Date.now() },
    newId: () => crypto.randomUUID(),
  }
}

export function ChatRuntimeProvider({ runtime, children }: { runtime: ChatRuntime; children: ReactNode }) {
  return <RuntimeContext.Provider value={runtime}>{children}</RuntimeContext.Provider>
}

export function useChatRuntime(): ChatRuntime {
  const runtime = useContext(RuntimeContext)
  if (!runtime) throw new Error('useChatRuntime needs a <ChatRuntimeProvider> above it')
  return runtime
}

function safeSessionStorage(): Storage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage
  } catch {
    return undefined
  }
}
