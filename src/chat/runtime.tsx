/**
 * The runtime's React side: the provider that connects it to the query cache and the page, and
 * the hooks components reach it and the session threads by.
 */
import { useQueryClient } from '@tanstack/react-query'
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react'
import type { ChatRuntime, HistoryRefresher } from '../thread/runtime'
import { createThreads, type Threads } from '../thread/threads'

const RuntimeContext = createContext<{ runtime: ChatRuntime; threads: Threads } | null>(null)

export function ChatRuntimeProvider({ runtime, refreshHistory, children }: { runtime: ChatRuntime; refreshHistory: HistoryRefresher; children: ReactNode }) {
  const queryClient = useQueryClient()
  const [value] = useState(() => ({ runtime, threads: createThreads(runtime, queryClient) }))
  useEffect(() => runtime.connectHistory(refreshHistory), [runtime, refreshHistory])
  // The reattach points of streaming runs are written when the page goes away, not per delta.
  useEffect(() => {
    const persist = () => runtime.live.persist()
    window.addEventListener('pagehide', persist)
    return () => window.removeEventListener('pagehide', persist)
  }, [runtime])
  return <RuntimeContext.Provider value={value}>{children}</RuntimeContext.Provider>
}

function useRuntimeContext() {
  const value = useContext(RuntimeContext)
  if (!value) throw new Error('the chat hooks need a <ChatRuntimeProvider> above them')
  return value
}

export function useChatRuntime(): ChatRuntime {
  return useRuntimeContext().runtime
}

/** The tab's session threads (a view connects the one it shows with `useThread`). */
export function useThreads(): Threads {
  return useRuntimeContext().threads
}
