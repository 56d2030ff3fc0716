import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import type { i18n as I18n } from 'i18next'
import { useCallback, type ReactNode } from 'react'
import { I18nextProvider } from 'react-i18next'
import { refreshSession } from '../thread/history'
import { ChatRuntimeProvider } from '../chat/runtime'
import { type ChatRuntime, type HistoryRefresher } from '../thread/runtime'

/**
 * The query client never retries on its own: a send must not be repeated behind the operator's
 * back, and the retry scheduler is the only thing that retries a run.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, staleTime: 2_000 },
      mutations: { retry: false },
    },
  })
}

export function Providers({ i18n, queryClient, runtime, children }: { i18n: I18n; queryClient: QueryClient; runtime: ChatRuntime; children: ReactNode }) {
  const refreshHistory = useCallback<HistoryRefresher>((sessionId, settled, reason = 'unsure') => refreshSession(queryClient, sessionId, settled, { kind: reason }), [queryClient])
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        <ChatRuntimeProvider runtime={runtime} refreshHistory={refreshHistory}>
          {children}
        </ChatRuntimeProvider>
      </QueryClientProvider>
    </I18nextProvider>
  )
}
