import { useCallback, type Ref } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { countdownSeconds, formatClockTime } from '../../i18n/format'
import { isCancellable, isWaiting, type RetryStatus as SchedulerStatus } from '../../retry/view'
import { FailureNotice } from './failure-notice'
import { useChatRuntime } from '../runtime'
import { useTicker } from '../use-ticker'

export type RetryStatusView = {
  status: Exclude<SchedulerStatus, 'idle'>
  attempt: number
  /** When the attempt fires (epoch ms), while armed or paused. */
  deadline: number
  /** The refusal that stopped it, for `refused`. */
  refusal?: unknown
  /** Offline while it waits: no attempt is burned, and it fires once the network is back. */
  waitingForNetwork?: boolean
  /** Held: the `write` tools Retry now would run again. */
  rerun?: readonly string[]
}

export type RetryStatusProps = {
  view: RetryStatusView
  /** A fixed clock reading (stories); without it the line ticks on its own. */
  now?: number
  /** Attempts the daemon's own retry (tier 1) made before it gave up and tier 2 took over. */
  daemonAttempts?: number
  onRetryNow?: () => void
  onCancel?: () => void
  /** The status line, which takes focus (tabIndex -1) after Retry now. */
  lineRef?: Ref<HTMLParagraphElement>
}

const SECOND_MS = 1000
const MINUTE_MS = 60_000

/**
 * The visible face of the tier 2 scheduler: the attempt, a countdown (or "retry after HH:MM"
 * when the wait is long, or, held, which `write` tools a retry would run again), and the two
 * ways out. It keeps its own clock, so a tick re-renders
 * this line and nothing else; the polite announcer speaks the changes that matter, not ticks.
 */
export function RetryStatus({ view, now: fixedNow, daemonAttempts, onRetryNow, onCancel, lineRef }: RetryStatusProps) {
  const { t, i18n } = useTranslation()
  const { clock } = useChatRuntime()
  const { status, deadline } = view
  // The countdown shows whole seconds left, rounded up, so its digit changes when the time left
  // crosses a whole second: tick then. A paused wait shows a clock time: once a minute is enough.
  const nextTickIn = useCallback(
    (clockNow: number): number | null => {
      if (fixedNow !== undefined) return null
      if (status === 'paused') return MINUTE_MS - (clockNow % MINUTE_MS) || MINUTE_MS
      if (status !== 'armed') return null
      const left = deadline - clockNow
      return left > 0 ? left % SECOND_MS || SECOND_MS : null
    },
    [deadline, fixedNow, status],
  )
  useTicker(nextTickIn)
  const now = fixedNow ?? clock.now()
  let line: string
  switch (status) {
    case 'armed':
      line = view.waitingForNetwork ? t('robust.waitingForNetwork') : t('retry.countdown', { seconds: countdownSeconds(deadline - now) })
      break
    case 'paused':
      line = view.waitingForNetwork ? t('robust.waitingForNetwork') : t('retry.after', { time: formatClockTime(deadline, now, i18n.language, t('robust.noResetTime')) })
      break
    case 'held':
      // Nothing ticks: the attempt waits for Retry now, however long the page stays open.
      line = t('retry.held', { tools: view.rerun ?? [] })
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
  const waiting = isWaiting(status)
  const cancellable = isCancellable(status)
  return (
    <div className={`retry retry--${status}`} data-retry={status}>
      {status === 'refused' ? (
        <FailureNotice thrown={view.refusal} className="failure failure--retry" />
      ) : (
        <p ref={lineRef} className="retry__line" tabIndex={-1}>
          {daemonAttempts ? <span className="retry__handoff">{t('tier1.handoff', { count: daemonAttempts })}</span> : null}
          {/* Held, no attempt is scheduled: the line alone says what Retry now would do. */}
          {status !== 'cancelled' && status !== 'held' ? <span className="retry__attempt">{t('retry.attempt', { attempt: view.attempt })}</span> : null}
          <span className="retry__text">{line}</span>
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
