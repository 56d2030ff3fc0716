/**
 * Idempotent send. One `client_message_id` per thing the operator sent, made when they press
 * Enter and reused for every retry of that send; the outbox keeps text and id until the daemon
 * has accepted it. Together with the daemon's atomic send and its 409, this gives one operator
 * message and at most one run per send, whatever the network does.
 */
import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react'
import { RefusalError, TransportError } from '../wire/errors'
import type { Message } from '../wire/types'
import type { OutboxEntry } from './outbox'
import { chatKeys } from './queries'
import { useChatRuntime, type ChatRuntime } from './runtime'

export type SendOutcome =
  | { kind: 'accepted'; messageId: string }
  | { kind: 'refused'; error: RefusalError }
  | { kind: 'not_sent' }

/**
 * Delivers one outbox entry: a transport error is retried once with the same id; a 409 means an
 * earlier attempt got through, so the client finds its message by id and carries on with it.
 */
export async function deliver(runtime: ChatRuntime, entry: OutboxEntry): Promise<SendOutcome> {
  const { client } = runtime
  const body = { content: entry.content, client_message_id: entry.clientMessageId }
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      const receipt = await client.sendMessage(entry.sessionId, body)
      return { kind: 'accepted', messageId: receipt.message_id }
    } catch (error) {
      if (error instanceof RefusalError && error.code === 'message_duplicate') return findOwn(runtime, entry)
      if (error instanceof RefusalError) return { kind: 'refused', error }
      if (!(error instanceof TransportError)) throw error
    }
  }
  // Two transport errors: it may still have landed. History tells; if it cannot, it is not sent.
  return findOwn(runtime, entry)
}

async function findOwn(runtime: ChatRuntime, entry: OutboxEntry): Promise<SendOutcome> {
  let messages: Message[]
  try {
    messages = await runtime.client.listMessages(entry.sessionId)
  } catch {
    return { kind: 'not_sent' }
  }
  const own = messages.find((m) => m.role === 'operator' && m.client_message_id === entry.clientMessageId)
  return own ? { kind: 'accepted', messageId: own.id } : { kind: 'not_sent' }
}

export type SendApi = {
  /** Sends new text. Resolves once the daemon's answer is known; never sends a second copy. */
  send: (content: string) => Promise<SendOutcome | undefined>
  /** Sends a "not sent" entry again with its original id. */
  resend: (clientMessageId: string) => Promise<SendOutcome | undefined>
  /** Drops a "not sent" entry and hands its text back for editing. */
  takeBack: (clientMessageId: string) => string | undefined
  pending: OutboxEntry[]
}

export function useSend(sessionId: string | undefined): SendApi {
  const runtime = useChatRuntime()
  const { outbox } = runtime
  const queryClient = useQueryClient()
  const inFlight = useRef(new Set<string>())
  const entries = useSyncExternalStore(outbox.subscribe, outbox.entries, outbox.entries)
  const pending = entries.filter((e) => e.sessionId === sessionId)

  const run = useCallback(
    async (entry: OutboxEntry): Promise<SendOutcome | undefined> => {
      // A second Enter, a double click or a remount while this id is on the wire sends nothing more.
      if (inFlight.current.has(entry.clientMessageId)) return undefined
      inFlight.current.add(entry.clientMessageId)
      outbox.put({ ...entry, state: 'sending' })
      try {
        const outcome = await deliver(runtime, entry)
        if (outcome.kind === 'accepted') {
          outbox.update(entry.clientMessageId, { acceptedMessageId: outcome.messageId })
          await queryClient.invalidateQueries({ queryKey: chatKeys.messages(entry.sessionId) })
          void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
          outbox.remove(entry.clientMessageId)
        } else if (outcome.kind === 'refused') {
          outbox.remove(entry.clientMessageId)
        } else {
          outbox.update(entry.clientMessageId, { state: 'not_sent' })
        }
        return outcome
      } catch {
        outbox.update(entry.clientMessageId, { state: 'not_sent' })
        return { kind: 'not_sent' }
      } finally {
        inFlight.current.delete(entry.clientMessageId)
      }
    },
    [outbox, queryClient, runtime],
  )

  // A reload in the middle of a send: the entry is still "sending", so finish it with the same id.
  useEffect(() => {
    for (const entry of outbox.entries()) {
      if (entry.state === 'sending' && entry.sessionId === sessionId) void run(entry)
    }
  }, [outbox, run, sessionId])

  const send = useCallback(
    (content: string) => {
      if (!sessionId) return Promise.resolve(undefined)
      const entry: OutboxEntry = { clientMessageId: runtime.newId(), sessionId, content, state: 'sending', createdAt: runtime.clock.now() }
      return run(entry)
    },
    [run, runtime, sessionId],
  )

  const resend = useCallback(
    (clientMessageId: string) => {
      const entry = outbox.get(clientMessageId)
      return entry ? run(entry) : Promise.resolve(undefined)
    },
    [outbox, run],
  )

  const takeBack = useCallback(
    (clientMessageId: string) => {
      const entry = outbox.get(clientMessageId)
      if (!entry || inFlight.current.has(clientMessageId)) return undefined
      outbox.remove(clientMessageId)
      return entry.content
    },
    [outbox],
  )

  return { send, resend, takeBack, pending }
}
