/**
 * The runtime's React side: the provider that connects it to the query cache and the page, and
 * the hook components reach it by.
 */
import { createContext, useContext, useEffect, type ReactNode } from 'react'
import type { ChatRuntime, HistoryRefresher } from '../thread/runtime'

const RuntimeContext = createContext<ChatRuntime | null>(null)

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
