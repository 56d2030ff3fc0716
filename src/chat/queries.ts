/**
 * Server state: one query for the sessions, one for the messages of a session. The stream is
 * merged into the messages cache (see use-run-streams.ts); receipts come through mutations.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query'
import type { Message } from '../wire/types'
import type { ChatRuntime } from './runtime'

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

export function messagesQuery({ client, live }: ChatRuntime, sessionId: string) {
  return queryOptions({
    queryKey: chatKeys.messages(sessionId),
    // The streamed text is laid over history as it lands, so a refetch mid-stream never rolls it back.
    queryFn: async ({ signal }) => live.overlay(await client.listMessages(sessionId, signal)),
    // Each read of history yields fresh objects, so a message read from history is never
    // mistaken for the streamed copy it replaces (see isStreamed).
    structuralSharing: false,
  })
}

/** Applies `update` to one message (found by `match`) in a session's cached messages. */
export function patchMessage(queryClient: QueryClient, sessionId: string, match: (m: Message) => boolean, update: (m: Message) => Message): boolean {
  let found = false
  queryClient.setQueryData<Message[]>(chatKeys.messages(sessionId), (messages) =>
    messages?.map((m) => {
      if (!match(m)) return m
      found = true
      return update(m)
    }),
  )
  return found
}
