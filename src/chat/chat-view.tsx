import { useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { RefusalError } from '../wire/errors'
import { useRegenerate, useStopRun } from './api/use-runs'
import { useSend } from './api/use-send'
import { messagesQuery } from './api/queries'
import { ComposerPanel } from './composer/composer-panel'
import { ConfirmRegenerate } from './dialogs/confirm-regenerate'
import { FailureNotice } from './reply/failure-notice'
import { OperatorMessage } from './transcript/operator-message'
import { RefusedNotice } from './reply/refused-notice'
import { replyFocusOf } from './reply-focus'
import { ReplyRow } from './reply/reply-row'
import { SessionAnnouncer } from './announce/session-announcer'
import { useChatRuntime } from './runtime'
import { Transcript } from './transcript/transcript'
import { buildTranscript, isActive, regenerateImpact, transcriptText, type TranscriptItem } from '../thread/transcript-model'
import { useShortcuts } from './use-shortcuts'
import { overlay } from '../live/live-runs'
import { isCancellable, retryView } from '../retry/view'

/**
 * One session: its history (server state) fed to the core's stream follower and retry
 * scheduler, the transcript, and the composer. Composition only: every rule lives in the core.
 */
export function ChatView({ sessionId, autoFocusComposer = false }: { sessionId: string; autoFocusComposer?: boolean }) {
  const { t } = useTranslation()
  const runtime = useChatRuntime()
  const messagesResult = useQuery(messagesQuery(runtime, sessionId))
  const history = messagesResult.data
  const { send, resend, takeBack, pending } = useSend(sessionId)
  const [confirming, setConfirming] = useState<{ anchorId: string; count: number }>()
  // Errors are kept as values and worded where they are shown, so a language switch rewords them.
  const [regenerateError, setRegenerateError] = useState<{ anchorId: string; error: unknown }>()
  const [resendErrors, setResendErrors] = useState<Record<string, unknown>>({})
  const composerRef = useRef<HTMLTextAreaElement>(null)
  const stop = useStopRun(sessionId)
  const regenerate = useRegenerate(sessionId)

  // Every read of history goes to the core: follow what is running, arm or settle tier 2.
  useEffect(() => {
    if (!history) return
    runtime.follower.watch(sessionId, history)
    runtime.retry.feed(sessionId, history)
  }, [history, runtime, sessionId])
  // Leaving the session lets go of its streams (the runs go on in the daemon) and its schedulers.
  useEffect(
    () => () => {
      runtime.follower.release(sessionId)
      runtime.retry.release(sessionId)
    },
    [runtime, sessionId],
  )

  // A parked send that history shows after all (its answer was lost, a later read found it)
  // has landed: it leaves the outbox, so it is neither shown twice nor kept for ever.
  useEffect(() => {
    // Most changes of the outbox park nothing: no pass over a long history for them.
    if (!history || !pending.some((entry) => entry.state === 'not_sent')) return
    const landed = new Set(history.map((m) => m.client_message_id))
    for (const entry of pending) {
      if (entry.state === 'not_sent' && landed.has(entry.clientMessageId)) runtime.outbox.remove(entry.clientMessageId)
    }
  }, [history, pending, runtime])

  const regenerateNow = useCallback(
    (anchorId: string) => {
      setRegenerateError(undefined)
      regenerate.mutate(anchorId, { onError: (error) => setRegenerateError({ anchorId, error }) })
    },
    [regenerate],
  )
  const requestRegenerate = useCallback(
    (anchorId: string) => {
      const impact = regenerateImpact(history ?? [], anchorId)
      // Replacing later operator messages is worth a question; replacing just this reply is not.
      if (impact.operator > 0) setConfirming({ anchorId, count: impact.replaced })
      else regenerateNow(anchorId)
    },
    [history, regenerateNow],
  )
  const stopRun = useCallback((runId: string) => stop.mutate(runId), [stop])

  // The session's shortcuts act on the reply at the end of the conversation.
  useShortcuts((id) => {
    if (id !== 'stopOrCancel' && id !== 'retryOrRegenerate') return false
    const tail = (history ?? []).findLast((m) => !m.superseded)
    if (!tail || tail.role !== 'agent' || !tail.reply_to) return false
    const anchorId = tail.reply_to
    const snapshot = runtime.retry.snapshot(sessionId).get(anchorId)
    const view = snapshot ? retryView(snapshot, runtime.clock.now()) : undefined
    const shown = overlay(tail, runtime.live.get(tail.run_id))
    if (id === 'stopOrCancel') {
      if (view && isCancellable(view.status)) runtime.retry.cancel(sessionId, anchorId)
      else if (isActive(shown) && tail.run_id) stopRun(tail.run_id)
      else return false
      return true
    }
    if (view && (view.status === 'armed' || view.status === 'paused')) runtime.retry.retryNow(sessionId, anchorId)
    else if (!isActive(shown) && !(view && isCancellable(view.status))) requestRegenerate(anchorId)
    else return false
    return true
  })

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

  const items = buildTranscript(history ?? [], pending)
  // Records the last read could not understand were skipped, not fatal: say how many.
  const unreadable = history ? runtime.client.unreadableCount(sessionId) : 0
  const loading = messagesResult.isPending
  const renderItem = (item: TranscriptItem) => {
    if (item.kind === 'operator') return <OperatorMessage content={item.message.content} delivery="sent" />
    if (item.kind === 'pending') {
      const id = item.entry.clientMessageId
      return (
        <OperatorMessage
          content={item.entry.content}
          delivery={item.entry.state === 'sending' ? 'sending' : 'not_sent'}
          error={id in resendErrors ? <RefusedNotice error={resendErrors[id]} template="composer.refused" /> : undefined}
          onSendAgain={async () => {
            setResendErrors(({ [id]: _, ...rest }) => rest)
            const outcome = await resend(id)
            if (outcome?.kind === 'refused') setResendErrors((prev) => ({ ...prev, [id]: outcome.error }))
          }}
          onEdit={() => {
            const text = takeBack(id)
            if (text !== undefined) {
              // Whatever the operator typed since stays; the parked text comes after it.
              const draft = runtime.drafts.read(sessionId)
              runtime.drafts.write(sessionId, draft.trim() ? `${draft}\n${text}` : text)
              composerRef.current?.focus()
            }
          }}
        />
      )
    }
    const { message } = item
    const anchorId = message.reply_to
    return (
      <div className="reply">
        <ReplyRow
          sessionId={sessionId}
          message={message}
          earlier={item.earlier}
          followers={item.followers}
          busy={(stop.isPending && stop.variables === message.run_id) || (regenerate.isPending && regenerate.variables === anchorId)}
          onStop={stopRun}
          onRegenerate={requestRegenerate}
        />
        {confirming && confirming.anchorId === anchorId ? (
          <ConfirmRegenerate
            count={confirming.count}
            // After Replace the reply being replaced holds focus until its successor takes it.
            fallbackFocus={() => replyFocusOf(runtime).articleOf(confirming.anchorId)}
            onConfirm={() => {
              setConfirming(undefined)
              regenerateNow(confirming.anchorId)
            }}
            onCancel={() => setConfirming(undefined)}
          />
        ) : null}
        {regenerateError && regenerateError.anchorId === anchorId && item.isLatest ? (
          <div role="alert" className="failure failure--inline">
            <p className="failure__text">
              <RefusedNotice error={regenerateError.error} template="regenerate.refused" />
            </p>
          </div>
        ) : null}
      </div>
    )
  }
  return (
    <section className="chat">
      <Transcript
        items={items}
        itemKey={(item) => item.key}
        itemText={transcriptText}
        renderItem={renderItem}
        loading={loading}
        active={(history ?? []).some((m) => !m.superseded && isActive(m))}
      />
      {unreadable > 0 ? (
        <p className="failure failure__text chat__unreadable" role="status">
          {t('robust.unreadableMessages', { count: unreadable })}
        </p>
      ) : null}
      <SessionAnnouncer sessionId={sessionId} />
      <ComposerPanel ref={composerRef} sessionId={sessionId} send={send} autoFocus={autoFocusComposer} />
    </section>
  )
}
