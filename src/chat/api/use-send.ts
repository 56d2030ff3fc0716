/**
 * Sending from a session view: new text, Send again for a parked entry, and Edit (take the text
 * back). The rules (one id per send, the outbox, the 409 and history look-ups) are in
 * src/send/deliver.ts; this hook binds them to the session and shows an accepted send from its
 * receipt (history is read when its run ends, unless the stream saw it complete).
 */
import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react'
import { newEntry, resumeSends, sendEntry, takeBack, type SendHooks, type SendOutcome } from '../../send/deliver'
import type { OutboxEntry } from '../../send/outbox'
import { useChatRuntime } from '../runtime'
import { refreshSession, showAcceptedSend } from './queries'

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
  const entries = useSyncExternalStore(outbox.subscribe, outbox.entries, outbox.entries)
  const pending = useMemo(() => entries.filter((e) => e.sessionId === sessionId), [entries, sessionId])

  const hooks = useMemo<SendHooks>(
    () => ({
      onAccepted: (entry, { messageId, run }) => {
        // The other tabs on this session show the message and follow its run too.
        runtime.historyChanged(entry.sessionId)
        // The receipt says what a read would: the message and the run it started. A message found
        // in history after a lost answer comes without a receipt, and history is read.
        const shown =
          run !== undefined &&
          showAcceptedSend(queryClient, {
            sessionId: entry.sessionId,
            messageId,
            clientMessageId: entry.clientMessageId,
            content: entry.content,
            run,
            at: runtime.clock.now(),
          })
        return shown ? undefined : refreshSession(queryClient, entry.sessionId)
      },
    }),
    [queryClient, runtime],
  )

  // A reload in the middle of a send: the entry is still "sending", so finish it with the same id.
  useEffect(() => {
    if (sessionId) resumeSends(runtime, sessionId, hooks)
  }, [runtime, hooks, sessionId])

  const send = useCallback(
    (content: string) => (sessionId ? sendEntry(runtime, newEntry(runtime, sessionId, content), hooks) : Promise.resolve(undefined)),
    [hooks, runtime, sessionId],
  )

  const resend = useCallback(
    (clientMessageId: string) => {
      const entry = outbox.get(clientMessageId)
      // Under the entry's lock it must still be "not sent": another tab may have sent it again.
      return entry ? sendEntry(runtime, entry, hooks, { expect: entry.state }) : Promise.resolve(undefined)
    },
    [hooks, outbox, runtime],
  )

  const drop = useCallback((clientMessageId: string) => takeBack(runtime, clientMessageId), [runtime])

  return { send, resend, takeBack: drop, pending }
}
