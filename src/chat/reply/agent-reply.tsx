import { useEffect, useId, useRef, useState, type ReactNode, type Ref } from 'react'
import { useTranslation } from 'react-i18next'
import type { Message } from '../../wire/types'
import { FailureNotice } from './failure-notice'
import { CopyButton } from '../../markdown/copy-button'
import { LazyReplyMarkdown } from '../../markdown/lazy-reply-markdown'
import { isActive } from '../../thread/transcript-model'

export type AgentReplyProps = {
  message: Message
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
}

/** How long a streaming reply must go without new text before its caret blinks. */
const CARET_PAUSE_MS = 1000

/**
 * The caret at the end of a streaming reply: steady while text arrives, blinking once the reply
 * has paused (a retry's wait, a long think), as a text cursor does. A blink running through the
 * whole stream cost a style recalculation on every frame.
 */
function StreamingCaret({ length }: { length: number }) {
  // The text length at which the reply was last seen paused: paused until more text arrives.
  const [pausedAt, setPausedAt] = useState<number>()
  const paused = pausedAt === length
  // The latest length and when it arrived (set once committed), read by the timer below.
  const latest = useRef({ length, at: 0 })
  useEffect(() => {
    latest.current = { length, at: Date.now() }
  }, [length])
  // One timer per pause, not one per commit: while text streams (20 commits a second) the timer
  // finds the text newer than the pause and waits out the rest of it.
  useEffect(() => {
    if (paused) return
    let timer: ReturnType<typeof setTimeout>
    const check = () => {
      const quiet = Date.now() - latest.current.at
      if (quiet >= CARET_PAUSE_MS) setPausedAt(latest.current.length)
      else timer = setTimeout(check, CARET_PAUSE_MS - quiet)
    }
    timer = setTimeout(check, CARET_PAUSE_MS)
    return () => clearTimeout(timer)
  }, [paused])
  return <span className="caret" data-paused={paused ? '' : undefined} aria-hidden="true" />
}

/** One agent reply in the main flow: its text (always as text), status, failure and actions. */
export function AgentReply({ message, earlier = [], followers = {}, position, onStop, onRegenerate, busy = false, retry, tier1, articleRef, regenerateRef }: AgentReplyProps) {
  const { t } = useTranslation()
  const [showEarlier, setShowEarlier] = useState(false)
  const earlierId = useId()
  const status = message.status ?? 'complete'
  const active = isActive(message)
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
      {message.content || status === 'streaming' ? (
        <div className="message__body message__body--markdown" aria-busy={status === 'streaming'}>
          <LazyReplyMarkdown source={message.content} streaming={status === 'streaming'} />
          {status === 'streaming' ? <StreamingCaret length={message.content.length} /> : null}
        </div>
      ) : null}
      {status === 'streaming' ? tier1 : null}
      {status === 'failed' ? <FailureNotice error={message.error} /> : null}
      {retry}
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
      {earlier.length > 0 && showEarlier ? (
        <ol className="earlier" id={earlierId}>
          {earlier.map((m, i) => (
            <li key={m.id} className="earlier__item" data-status={m.status}>
              <div className="message__meta">
                <span>{t('transcript.earlierVersion', { n: i + 1 })}</span>
                <span className={`badge badge--${m.status ?? 'complete'}`}>{t(`status.${m.status ?? 'complete'}`)}</span>
              </div>
              {m.content ? (
                <div className="message__body message__body--markdown">
                  <LazyReplyMarkdown source={m.content} />
                </div>
              ) : null}
              {m.status === 'failed' ? <FailureNotice error={m.error} /> : null}
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
                  {f.content ? (
                    <div className={`message__body${f.role === 'agent' ? ' message__body--markdown' : ''}`}>
                      {f.role === 'agent' ? <LazyReplyMarkdown source={f.content} /> : f.content}
                    </div>
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
