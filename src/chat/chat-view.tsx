import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { describeFailure, failureFromError } from '../i18n/describe-failure'
import { RefusalError } from '../wire/errors'
import type { Message } from '../wire/types'
import { AgentReply } from './agent-reply'
import { Composer } from './composer'
import { ConfirmRegenerate } from './confirm-regenerate'
import { FailureNotice } from './failure-notice'
import { OperatorMessage } from './operator-message'
import { chatKeys, messagesQuery } from './queries'
import { RetryAnnouncer } from './retry-announcer'
import { RetryStatus } from './retry-status'
import { useChatRuntime } from './runtime'
import { buildTranscript, regenerateImpact } from './transcript-model'
import { useDraft } from './use-draft'
import { useRetryScheduler } from './use-retry-scheduler'
import { useRunStreams } from './use-run-streams'
import { useSend } from './use-send'
import { useStickToBottom } from './use-stick-to-bottom'

/** One session: its transcript, the retry scheduler, and the composer. */
export function ChatView({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation()
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const messagesResult = useQuery(messagesQuery(runtime, sessionId))
  const messages = messagesResult.data
  useRunStreams(sessionId, messages)
  const { send, resend, takeBack, pending } = useSend(sessionId)
  const [draft, setDraft] = useDraft(sessionId)
  const [sending, setSending] = useState(false)
  const [sendError, setSendError] = useState<string>()
  const [confirming, setConfirming] = useState<{ anchorId: string; count: number }>()
  const [regenerateError, setRegenerateError] = useState<{ anchorId: string; error: unknown }>()
  const [resendErrors, setResendErrors] = useState<Record<string, string>>({})
  const composerRef = useRef<HTMLTextAreaElement>(null)
  const retry = useRetryScheduler(sessionId, messages)
  const items = buildTranscript(messages ?? [], pending)
  const lastItem = items.at(-1)
  const logRef = useStickToBottom<HTMLDivElement>(`${items.length}:${lastItem?.kind === 'agent' ? lastItem.message.content.length : ''}`)

  // A parked send that history shows after all (its answer was lost, a later read found it)
  // has landed: it leaves the outbox, so it is neither shown twice nor kept for ever.
  useEffect(() => {
    if (!messages) return
    const landed = new Set(messages.map((m) => m.client_message_id))
    for (const entry of pending) {
      if (entry.state === 'not_sent' && landed.has(entry.clientMessageId)) runtime.outbox.remove(entry.clientMessageId)
    }
  }, [messages, pending, runtime])

  const refresh = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: chatKeys.messages(sessionId) })
    void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
  }, [queryClient, sessionId])

  const stop = useMutation({
    mutationFn: (runId: string) => runtime.client.cancelRun(sessionId, runId),
    onSettled: refresh,
  })
  const regenerate = useMutation({
    mutationFn: (anchorId: string) => runtime.client.regenerate(sessionId, anchorId),
    onMutate: (anchorId) => {
      setRegenerateError(undefined)
      retry.dismiss(anchorId)
    },
    onError: (error, anchorId) => setRegenerateError({ anchorId, error }),
    onSettled: refresh,
  })

  const onSubmit = async (content: string) => {
    setSending(true)
    setSendError(undefined)
    try {
      const outcome = await send(content)
      if (!outcome) return
      if (outcome.kind === 'refused') {
        // The draft stays in the box, and the refusal says why.
        setSendError(t('composer.refused', { reason: describeFailure(t, failureFromError(outcome.error)).text }))
      } else {
        // Accepted, or parked as "not sent" with its own Send again: either way the text is safe.
        setDraft('')
      }
    } finally {
      setSending(false)
    }
  }

  const requestRegenerate = (anchorId: string) => {
    const impact = regenerateImpact(messages ?? [], anchorId)
    // Replacing later operator messages is worth a question; replacing just this reply is not.
    if (impact.operator > 0) setConfirming({ anchorId, count: impact.replaced })
    else regenerate.mutate(anchorId)
  }

  if (messagesResult.isError) {
    const error = messagesResult.error
    const gone = error instanceof RefusalError && error.code === 'session_not_found'
    return (
      <section className="chat chat--error" aria-label={t('transcript.label')}>
        <div className="failure" role="alert">
          <p className="failure__text">{gone ? t('sessions.notFound') : t('transcript.loadFailed')}</p>
          {gone ? null : <FailureNotice thrown={error} />}
          <button type="button" className="button" onClick={() => void messagesResult.refetch()}>
            {t('sessions.retry')}
          </button>
        </div>
      </section>
    )
  }

  return (
    <section className="chat">
      <div ref={logRef} className="transcript" role="log" aria-label={t('transcript.label')} aria-live="off" aria-busy={messagesResult.isPending}>
        {messagesResult.isPending ? <p className="muted">{t('app.loading')}</p> : null}
        {!messagesResult.isPending && items.length === 0 ? <p className="muted">{t('transcript.empty')}</p> : null}
        {items.map((item) => {
          if (item.kind === 'operator') return <OperatorMessage key={item.key} content={item.message.content} delivery="sent" />
          if (item.kind === 'pending') {
            const id = item.entry.clientMessageId
            return (
              <OperatorMessage
                key={item.key}
                content={item.entry.content}
                delivery={item.entry.state === 'sending' ? 'sending' : 'not_sent'}
                error={resendErrors[id]}
                onSendAgain={async () => {
                  setResendErrors(({ [id]: _, ...rest }) => rest)
                  const outcome = await resend(id)
                  if (outcome?.kind === 'refused') {
                    const reason = describeFailure(t, failureFromError(outcome.error)).text
                    setResendErrors((prev) => ({ ...prev, [id]: t('composer.refused', { reason }) }))
                  }
                }}
                onEdit={() => {
                  const text = takeBack(id)
                  if (text !== undefined) {
                    // Whatever the operator typed since stays; the parked text comes after it.
                    setDraft(draft.trim() ? `${draft}\n${text}` : text)
                    composerRef.current?.focus()
                  }
                }}
              />
            )
          }
          const message: Message = item.message
          const anchorId = message.reply_to
          const retryView = anchorId ? retry.viewFor(anchorId, message) : undefined
          const live = runtime.live.get(message.run_id ?? '')
          return (
            <div key={item.key} className="reply">
              <AgentReply
                message={message}
                earlier={item.earlier}
                followers={item.followers}
                position={live?.status === 'queued' ? live.position : undefined}
                busy={(stop.isPending && stop.variables === message.run_id) || (regenerate.isPending && regenerate.variables === anchorId)}
                onStop={message.run_id ? () => stop.mutate(message.run_id as string) : undefined}
                // While the scheduler owns this reply, its own buttons are the way to act.
                onRegenerate={anchorId && !retryView?.cancellable ? () => requestRegenerate(anchorId) : undefined}
                retry={
                  retryView ? (
                    <RetryStatus view={retryView.view} now={retry.now} onRetryNow={() => retry.retryNow(retryView.anchorId)} onCancel={() => retry.cancel(retryView.anchorId)} />
                  ) : undefined
                }
              />
              {confirming && confirming.anchorId === anchorId ? (
                <ConfirmRegenerate
                  count={confirming.count}
                  onConfirm={() => {
                    setConfirming(undefined)
                    regenerate.mutate(confirming.anchorId)
                  }}
                  onCancel={() => setConfirming(undefined)}
                />
              ) : null}
              {regenerateError && regenerateError.anchorId === anchorId && item.isLatest ? (
                <div role="alert" className="failure failure--inline">
                  <p className="failure__text">{t('regenerate.refused', { reason: describeFailure(t, failureFromError(regenerateError.error)).text })}</p>
                </div>
              ) : null}
            </div>
          )
        })}
      </div>
      <RetryAnnouncer announcement={retry.announcement} />
      <Composer ref={composerRef} value={draft} onChange={setDraft} onSubmit={(content) => void onSubmit(content)} sending={sending} error={sendError} />
    </section>
  )
}
