import { useTranslation } from 'react-i18next'
import { countdownSeconds, formatClockTime } from '../i18n/format'
import { FailureNotice } from './failure-notice'

export type RetryStatusView = {
  status: 'armed' | 'paused' | 'dispatching' | 'watching' | 'cancelled' | 'refused'
  attempt: number
  deadline: number
  /** Milliseconds left, derived from the deadline and the clock. */
  remainingMs: number
  /** The refusal that stopped it, for `refused`. */
  refusal?: unknown
}

export type RetryStatusProps = {
  view: RetryStatusView
  now: number
  onRetryNow?: () => void
  onCancel?: () => void
}

/**
 * The visible face of the tier 2 scheduler: the attempt, a countdown (or "retry after HH:MM"
 * when the wait is long), and the two ways out. The countdown is not announced per tick;
 * RetryAnnouncer speaks the changes that matter.
 */
export function RetryStatus({ view, now, onRetryNow, onCancel }: RetryStatusProps) {
  const { t, i18n } = useTranslation()
  const seconds = countdownSeconds(view.remainingMs)
  let line: string
  switch (view.status) {
    case 'armed':
      line = t('retry.countdown', { seconds })
      break
    case 'paused':
      line = t('retry.after', { time: formatClockTime(view.deadline, now, i18n.language) })
      break
    case 'dispatching':
      line = t('retry.dispatching')
      break
    case 'watching':
      line = t('retry.watching')
      break
    case 'cancelled':
      line = t('retry.cancelled')
      break
    case 'refused':
      line = ''
      break
  }
  const waiting = view.status === 'armed' || view.status === 'paused'
  const cancellable = waiting || view.status === 'dispatching' || view.status === 'watching'
  return (
    <div className={`retry retry--${view.status}`} data-retry={view.status}>
      {view.status === 'refused' ? (
        <FailureNotice thrown={view.refusal} className="failure failure--retry" />
      ) : (
        <p className="retry__line">
          {view.status !== 'cancelled' ? <span className="retry__attempt">{t('retry.attempt', { attempt: view.attempt })}</span> : null}
          <span className="retry__text" aria-hidden={view.status === 'armed' ? true : undefined}>
            {line}
          </span>
        </p>
      )}
      {cancellable ? (
        <div className="message__actions">
          {waiting && onRetryNow ? (
            <button type="button" className="button button--primary" onClick={onRetryNow}>
              {t('actions.retryNow')}
            </button>
          ) : null}
          {onCancel ? (
            <button type="button" className="button" onClick={onCancel}>
              {t('actions.cancelRetry')}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}
