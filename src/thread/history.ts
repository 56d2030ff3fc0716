/**
 * Server state: one query for the sessions, one for the messages of a session. History is pure
 * server state: the live-run store is laid over it where a message is shown, never written in.
 */
import type { QueryClient, QueryFunctionContext } from '@tanstack/query-core'
import type { SettledRun } from '../live/run-follower'
import type { Message } from '../wire/types'
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

export function messagesQuery({ client }: ChatRuntime, sessionId: string) {
  return {
    queryKey: chatKeys.messages(sessionId),
    queryFn: ({ signal }: QueryFunctionContext) => client.listMessages(sessionId, signal),
  }
}

/**
 * A session's history changed on the daemon (a send or regenerate was accepted, a run ended or
 * was stopped): read it again, and the session list with it (status and title follow). Resolves
 * once the messages are in. A run the stream saw complete (`settled`) is written into the history
 * held instead, when it holds that reply: the stream told all a read would, and over a long
 * session a read is megabytes to parse for one changed message.
 */
export async function refreshSession(queryClient: QueryClient, sessionId: string, settled?: SettledRun): Promise<void> {
  void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
  if (settled && settleRun(queryClient, sessionId, settled)) return
  const key = chatKeys.messages(sessionId)
  // A first read still on its way left before this change: invalidating would hand back that very
  // read (TanStack Query reuses a fetch in flight while a query has no data yet), and the message
  // just sent would not show until something else read history again. Cancel it, so the read
  // that follows starts after the change.
  await queryClient.cancelQueries({ queryKey: key })
  await queryClient.invalidateQueries({ queryKey: key })
}

/**
 * The history held for a session when it can stand in for a read: there is one, and no read is
 * on its way (a read that left before a change would drop what is written into the cache).
 */
function idleHistory(queryClient: QueryClient, key: readonly unknown[]): Message[] | undefined {
  const state = queryClient.getQueryState<Message[]>(key)
  return state?.data && state.fetchStatus === 'idle' ? state.data : undefined
}

/**
 * Writes a run that completed into the cached history: its reply takes the id, the text and the
 * status the stream ended with, every other message stays as it is (the same objects, so the
 * transcript builds one row). False when that cannot stand in for a read: no history held, a read
 * on its way (it may predate the end), or no reply of that run still shown as going.
 */
function settleRun(queryClient: QueryClient, sessionId: string, { runId, messageId, content, parts, usage }: SettledRun): boolean {
  const key = chatKeys.messages(sessionId)
  const messages = idleHistory(queryClient, key)
  if (!messages) return false
  const at = messages.findLastIndex((m) => m.run_id === runId)
  const reply = messages[at]
  if (!reply || reply.superseded || (reply.status !== 'queued' && reply.status !== 'streaming')) return false
  const { error: _error, retry: _retry, ...kept } = reply
  const next = messages.slice()
  // The steps as the stream ended them; a reply without steps keeps none (`content` says it all).
  next[at] = { ...kept, id: messageId, content, status: 'complete', ...(parts.length > 0 ? { parts: [...parts] } : {}), ...(usage ? { usage } : {}) }
  queryClient.setQueryData<Message[]>(key, next)
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
 * (`settleRun`) or, for a run that did not complete, one history read brings its persisted
 * outcome. Returns false when this cannot stand in for a read: no history
 * read yet, or one on its way that left before the send and would drop what is written here
 * (then `refreshSession` is the caller's way). When it returns true the session list is read
 * again, as `refreshSession` would: its status and first-message title follow.
 */
export function showAcceptedSend(queryClient: QueryClient, sent: AcceptedSend): boolean {
  const key = chatKeys.messages(sent.sessionId)
  if (!idleHistory(queryClient, key)) return false
  void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
  queryClient.setQueryData<Message[]>(key, (messages) => {
    // Already there (another tab's news was read first): history's copy stands.
    if (!messages || messages.some((m) => m.id === sent.messageId || m.run_id === sent.run.id)) return messages
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
    return [...messages, operator, reply]
  })
  return true
}
