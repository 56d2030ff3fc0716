/**
 * Server state: one query for the sessions, one for the messages of a session. History is pure
 * server state: the live-run store is laid over it where a message is shown, never written in.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query'
import type { ChatRuntime } from '../runtime'

export const chatKeys = {
  sessions: ['sessions'] as const,
  messages: (sessionId: string) => ['messages', sessionId] as const,
}

export function sessionsQuery({ client }: ChatRuntime) {
  return queryOptions({
    queryKey: chatKeys.sessions,
    queryFn: ({ signal }) => client.listSessions(signal),
  })
}

export function messagesQuery({ client }: ChatRuntime, sessionId: string) {
  return queryOptions({
    queryKey: chatKeys.messages(sessionId),
    queryFn: ({ signal }) => client.listMessages(sessionId, signal),
  })
}

/**
 * A session's history changed on the daemon (a send or regenerate was accepted, a run ended or
 * was stopped): read it again, and the session list with it (status and title follow). Resolves
 * once the messages are in.
 */
export async function refreshSession(queryClient: QueryClient, sessionId: string): Promise<void> {
  void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
  const key = chatKeys.messages(sessionId)
  // A first read still on its way left before this change: invalidating would hand back that very
  // read (TanStack Query reuses a fetch in flight while a query has no data yet), and the message
  // just sent would not show until something else read history again. Cancel it, so the read
  // that follows starts after the change.
  await queryClient.cancelQueries({ queryKey: key })
  await queryClient.invalidateQueries({ queryKey: key })
}
