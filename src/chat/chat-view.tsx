import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from '../i18n/use-translation'
import { RefusalError } from '../wire/errors'
import { ComposerPanel } from './composer/composer-panel'
import { LazyConfirmRegenerate } from './dialogs/lazy-dialogs'
import { FailureNotice } from './reply/failure-notice'
import { OperatorMessage } from './transcript/operator-message'
import { RefusedNotice } from './reply/refused-notice'
import { replyFocusOf } from './reply-focus'
import { ReplyRow } from './reply/reply-row'
import { SessionAnnouncer } from './announce/session-announcer'
import { ApprovalAnnouncer } from './announce/approval-announcer'
import { LazyToolApproval, prefetchReplyParts, warmStepNumbers } from './reply/steps/lazy-reply-parts'
import type { ToolApproval as ApprovalSlot } from './reply/steps/tool-step'
import { focusApproval } from './approval-focus'
import { APPROVAL_FOCUS_EVENT, wantedApprovalFocus, type ApprovalTarget } from '../attention/approval-focus'
import { useChatRuntime } from './runtime'
import { Transcript } from './transcript/transcript'
import { SessionUsage } from './transcript/session-usage'
import { rowSeq, transcriptText, type TranscriptItem } from '../thread/transcript-model'
import { GapRow } from './transcript/gap-row'
import { useShortcuts } from './use-shortcuts'
import { useSessionMoved } from './api/use-sessions'
import { catchUpWithList } from '../thread/history'
import { useQueryClient } from '@tanstack/react-query'
import { useThread, useThreadState } from './use-thread'
import type { ThreadSnapshot } from '../thread/thread'

/**
 * One session: the thread's rows in the transcript, and the composer. Rendering only: what is
 * shown and what each action does is the thread's (src/thread/thread.ts).
 */
export function ChatView({ sessionId, autoFocusComposer = false }: { sessionId: string; autoFocusComposer?: boolean }) {
  const { t, i18n } = useTranslation()
  const runtime = useChatRuntime()
  const thread = useThread(sessionId)
  const state: ThreadSnapshot = useThreadState(thread, (snapshot) => snapshot)
  const composerRef = useRef<HTMLTextAreaElement>(null)
  const remoteFind = useMemo(() => ({ search: thread.search, held: thread.holds, reveal: thread.reveal }), [thread])

  // The session changed where this tab did not see it (another client of the daemon sent, or ran
  // a reply): the thread's history decides whether that is news and reads the end (history.ts).
  const queryClient = useQueryClient()
  useSessionMoved(sessionId, (updatedAt) => {
    catchUpWithList(queryClient, sessionId, updatedAt, { following: state.active, toLocal: runtime.client.daemonClock.toLocal })
  })

  // A session open is the moment to fetch how steps render, so its first reply's steps never wait for it.
  useEffect(prefetchReplyParts, [])
  useEffect(() => warmStepNumbers(i18n.language), [i18n.language])

  // The session's shortcuts act on the reply at the end of the conversation, or go to the approval waiting.
  useShortcuts((id) => {
    if (id === 'stopOrCancel' || id === 'retryOrRegenerate') return thread.shortcut(id)
    if (id === 'focusApproval') return focusApproval(thread.nextApproval())
    return false
  })
  // A clicked notification of an approval in this session: its row is brought into view, wherever
  // the operator had scrolled, so the approval's controls mount and take the focus.
  // (The view is mounted per session: a request made as it opened is read once, here.)
  const [wanted, setWanted] = useState<{ runId: string } | undefined>(() => {
    const target = wantedApprovalFocus(sessionId)
    return target && { runId: target.runId }
  })
  useEffect(() => {
    const onRequest = (event: Event) => {
      const { detail } = event as CustomEvent<ApprovalTarget>
      if (detail.sessionId === sessionId) setWanted({ runId: detail.runId })
    }
    window.addEventListener(APPROVAL_FOCUS_EVENT, onRequest)
    return () => window.removeEventListener(APPROVAL_FOCUS_EVENT, onRequest)
  }, [sessionId])
  const revealKey = wanted && state.rows.find((row) => row.kind === 'agent' && row.message.run_id === wanted.runId)?.key
  const reveal = useMemo(() => (revealKey === undefined || !wanted ? undefined : { key: revealKey, request: wanted }), [revealKey, wanted])

  // One function per thread: the replies' steps are memoized on it.
  const approval = useCallback<ApprovalSlot>((tool, runId) => <LazyToolApproval thread={thread} tool={tool} runId={runId} />, [thread])

  // The operator's sends from this view, counted: each brings the transcript to the end.
  const [sends, setSends] = useState(0)
  const send = useCallback(
    (content: string) => {
      setSends((count) => count + 1)
      return thread.send(content)
    },
    [thread],
  )

  if (state.phase === 'error') {
    const error = state.error
    const gone = error instanceof RefusalError && error.code === 'session_not_found'
    return (
      <section className="chat chat--error" aria-label={t('transcript.label')}>
        <div className="failure" role="alert">
          <p className="failure__text">{gone ? t('sessions.notFound') : t('transcript.loadFailed')}</p>
          {gone ? null : <FailureNotice thrown={error} />}
          <button type="button" className="button" onClick={thread.reload}>
            {t('sessions.retry')}
          </button>
        </div>
      </section>
    )
  }

  const { confirming, regenerateError, resendErrors } = state
  const renderItem = (item: TranscriptItem) => {
    if (item.kind === 'gap')
      return <GapRow start={item.gap.start} loading={state.loadingGaps.has(item.key)} onLoad={() => void (item.gap.start ? thread.loadEarlier() : thread.loadGap(item.key, 0))} />
    if (item.kind === 'operator') return <OperatorMessage content={item.message.content} delivery="sent" />
    if (item.kind === 'pending') {
      const id = item.entry.clientMessageId
      return (
        <OperatorMessage
          content={item.entry.content}
          delivery={item.entry.state === 'sending' ? 'sending' : 'not_sent'}
          error={id in resendErrors ? <RefusedNotice error={resendErrors[id]} template="composer.refused" /> : undefined}
          onSendAgain={() => thread.resend(id)}
          onEdit={() => {
            if (thread.edit(id)) composerRef.current?.focus()
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
          busy={(message.run_id !== undefined && state.stopping.has(message.run_id)) || (anchorId !== undefined && state.regenerating.has(anchorId))}
          onStop={thread.stop}
          onRegenerate={thread.regenerate}
          onRetryNow={thread.retryNow}
          onCancelRetry={thread.cancelRetry}
          onLoadOutput={thread.loadToolOutput}
          approval={approval}
        />
        {confirming && confirming.anchorId === anchorId ? (
          <LazyConfirmRegenerate
            count={confirming.count}
            // After Replace the reply being replaced holds focus until its successor takes it.
            fallbackFocus={() => replyFocusOf(runtime).articleOf(confirming.anchorId)}
            onConfirm={thread.confirmRegenerate}
            onCancel={thread.cancelConfirm}
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
      <SessionUsage thread={thread} />
      <Transcript
        items={state.rows}
        itemKey={rowKey}
        itemText={transcriptText}
        renderItem={renderItem}
        loading={state.phase === 'loading'}
        active={state.active}
        gapOf={gapOf}
        itemSeq={rowSeq}
        onGapReached={thread.loadGap}
        onViewing={thread.viewing}
        remoteFind={remoteFind}
        reveal={reveal}
        sends={sends}
      />
      {state.unreadable > 0 ? (
        <p className="failure failure__text chat__unreadable" role="status">
          {t('robust.unreadableMessages', { count: state.unreadable })}
        </p>
      ) : null}
      <SessionAnnouncer thread={thread} />
      <ApprovalAnnouncer thread={thread} />
      <ComposerPanel ref={composerRef} sessionId={sessionId} send={send} autoFocus={autoFocusComposer} />
    </section>
  )
}

const rowKey = (item: TranscriptItem) => item.key
const gapOf = (item: TranscriptItem) => (item.kind === 'gap' ? { key: item.key, count: item.gap.count } : undefined)
