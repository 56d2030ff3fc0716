import { useEffect, useId, useState, type ReactNode, type Ref } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import type { LinkState } from '../../wire/events'
import type { Message } from '../../wire/types'
import { ConnectionStatus } from './connection-status'
import { FailureNotice } from './failure-notice'
import { explainedClass } from '../../thread/reply-state'
import { CopyButton } from '../../markdown/copy-button'
import { LazyReplyMarkdown } from '../../markdown/lazy-reply-markdown'
import { isActive } from '../../wire/status'
import { LazyReplyParts, prefetchReplyParts } from './steps/lazy-reply-parts'
import type { LoadToolOutput, ToolApproval } from './steps/tool-step'
import { UsageLine } from './steps/usage-line'
import { StreamingCaret } from './streaming-caret'

/**
 * A reply as shown: history's record, with what the live stream timed of its first reasoning
 * (browser clock) while it was watched (the record carries no time for reasoning), and its
 * stream's connection while that is lost.
 */
export type ShownReply = Message & {
  reasoningStartedAt?: number | undefined
  reasoningEndedAt?: number | undefined
  connection?: Exclude<LinkState, 'open'> | undefined
}

export type AgentReplyProps = {
  message: ShownReply
  /** Replies this one replaced, oldest first; shown read-only on request. */
  earlier?: Message[]
  /** For each earlier reply (by id), the later messages the same regenerate replaced. */
  followers?: Record<string, Message[]>
  /** Queue position while queued, when the stream told it. */
  position?: number
  onStop?: () => void
  onRegenerate?: () => void
  /** Busy while a stop or regenerate request is in flight. */
  busy?: boolean
  /** The retry scheduler's status for this reply, when it has one. */
  retry?: ReactNode
  /** The daemon's own retry (tier 1) while it waits inside the run. */
  tier1?: ReactNode
  /** The article, which takes focus (tabIndex -1) when the control that had it goes away. */
  articleRef?: Ref<HTMLElement>
  /** Regenerate, where focus lands after Stop and Cancel retry. */
  regenerateRef?: Ref<HTMLButtonElement>
  /**
   * Fetches a tool's whole output when its step shows a cut one ("Load full output"); without it
   * the button is not offered. Keep it stable (useCallback): the steps are memoized on it.
   */
  onLoadOutput?: LoadToolOutput
  /**
   * The controls under a tool that waits for the operator's decision (Approve, Deny), given the
   * tool; without it the tool just says it waits. Keep it stable, as onLoadOutput.
   */
  approval?: ToolApproval
  /** A fixed time for running tools' elapsed time (stories, tests); the runtime's ticking clock when absent. */
  now?: number
}

type ReplyBodyProps = Pick<AgentReplyProps, 'onLoadOutput' | 'approval' | 'now'> & {
  message: ShownReply
  streaming: boolean
  earlier: boolean
}

/**
 * What the reply says: its steps in order when it has them, else its text as one piece. A reply
 * without parts (an older daemon, a plain reply) reads exactly as before steps existed.
 */
function ReplyBody({ message, streaming, earlier, onLoadOutput, approval, now }: ReplyBodyProps) {
  const parts = message.parts
  if (parts !== undefined && parts.length > 0) {
    return (
      <LazyReplyParts
        parts={parts}
        messageId={message.id}
        runId={message.run_id}
        streaming={streaming}
        earlier={earlier}
        reasoningStartedAt={message.reasoningStartedAt}
        reasoningEndedAt={message.reasoningEndedAt}
        now={now}
        onLoadOutput={onLoadOutput}
        approval={approval}
      />
    )
  }
  if (!message.content && !streaming) return null
  return (
    <div className="message__body message__body--markdown" aria-busy={streaming}>
      <LazyReplyMarkdown source={message.content} streaming={streaming} />
      {streaming ? <StreamingCaret length={message.content.length} /> : null}
    </div>
  )
}

/**
 * One agent reply in the main flow: its steps and text (daemon text always as text), status,
 * failure, actions and what its run spent.
 */
export function AgentReply({ message, earlier = [], followers = {}, position, onStop, onRegenerate, busy = false, retry, tier1, articleRef, regenerateRef, onLoadOutput, approval, now }: AgentReplyProps) {
  const { t } = useTranslation()
  const [showEarlier, setShowEarlier] = useState(false)
  const earlierId = useId()
  // The steps' chunk, while the page is idle: the first reply with steps need not wait for it.
  useEffect(prefetchReplyParts, [])
  const status = message.status ?? 'complete'
  const active = isActive(message.status)
  const statusText =
    status === 'queued' && position !== undefined && position > 0 ? t('status.queuedPosition', { position }) : t(`status.${status}`)

  return (
    <article ref={articleRef} tabIndex={-1} className={`message message--agent message--${status}`} aria-label={t('transcript.agent')} data-status={status}>
      <header className="message__meta">
        <span className="message__author">{t('transcript.agent')}</span>
        <span className={`badge badge--${status}`}>
          {statusText}
        </span>
      </header>
      <ReplyBody message={message} streaming={status === 'streaming'} earlier={false} onLoadOutput={onLoadOutput} approval={approval} now={now} />
      {status === 'streaming' ? tier1 : null}
      {status === 'failed' ? <FailureNotice error={message.error} retryClass={explainedClass(message)} /> : null}
      {retry}
      {active && message.connection ? <ConnectionStatus state={message.connection} runId={message.run_id} /> : null}
      <div className="message__actions">
        {active && onStop ? (
          <button type="button" className="button button--stop" onClick={onStop} disabled={busy}>
            {t('actions.stop')}
          </button>
        ) : null}
        {!active && onRegenerate ? (
          <button ref={regenerateRef} type="button" className="button" onClick={onRegenerate} disabled={busy}>
            {t('actions.regenerate')}
          </button>
        ) : null}
        {!active && message.content ? <CopyButton text={message.content} className="button" /> : null}
        {earlier.length > 0 ? (
          <button type="button" className="button button--link" aria-expanded={showEarlier} aria-controls={earlierId} onClick={() => setShowEarlier((v) => !v)}>
            {showEarlier ? t('transcript.hideEarlierVersions') : t('transcript.earlierVersions', { count: earlier.length })}
          </button>
        ) : null}
      </div>
      {message.usage ? <UsageLine usage={message.usage} /> : null}
      {earlier.length > 0 && showEarlier ? (
        <ol className="earlier" id={earlierId}>
          {earlier.map((m, i) => (
            <li key={m.id} className="earlier__item" data-status={m.status}>
              <div className="message__meta">
                <span>{t('transcript.earlierVersion', { n: i + 1 })}</span>
                <span className={`badge badge--${m.status ?? 'complete'}`}>{t(`status.${m.status ?? 'complete'}`)}</span>
              </div>
              <ReplyBody message={m} streaming={false} earlier onLoadOutput={onLoadOutput} now={now} />
              {m.status === 'failed' ? <FailureNotice error={m.error} retryClass={explainedClass(m)} /> : null}
              {m.content ? (
                <div className="message__actions">
                  <CopyButton text={m.content} className="button" />
                </div>
              ) : null}
              {(followers[m.id] ?? []).map((f) => (
                <div key={f.id} className="earlier__follower">
                  <div className="message__meta">
                    <span className="message__author">{f.role === 'operator' ? t('transcript.operator') : t('transcript.agent')}</span>
                  </div>
                  {f.role === 'agent' ? (
                    <ReplyBody message={f} streaming={false} earlier onLoadOutput={onLoadOutput} now={now} />
                  ) : f.content ? (
                    <div className="message__body">{f.content}</div>
                  ) : null}
                </div>
              ))}
            </li>
          ))}
        </ol>
      ) : null}
    </article>
  )
}
