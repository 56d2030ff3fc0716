import { useCallback, useState, useSyncExternalStore } from 'react'
import { useTranslation } from 'react-i18next'
import type { TFunction } from 'i18next'
import { describeFailure, failureFromError } from '../i18n/describe-failure'
import { countdownSeconds, formatClockTime } from '../i18n/format'
import type { LiveNews } from '../live/live-runs'
import type { SessionRetries } from '../retry/scheduler'
import { nextAnnouncement, retryView, SILENT, type AnnouncerState, type RetryAnnouncement } from '../retry/view'
import { useChatRuntime } from './runtime'
import { tier1Cause } from './tier1-status'
import { useSessionRetries } from './use-core'

type Spoken = { kind: 'retry'; announcement: RetryAnnouncement; at: number } | { kind: 'news'; news: LiveNews }

type State = {
  announcer: AnnouncerState
  spoken: Spoken | null
  /** The inputs the state was derived from: a change of either updates it during render. */
  retries: SessionRetries | null
  news: LiveNews | undefined
}

/**
 * The session's polite live region. It speaks once per tier 2 arming, cancel or refusal (see
 * `nextAnnouncement`) and once per tier 1 wait, never on a countdown's tick.
 */
export function SessionAnnouncer({ sessionId }: { sessionId: string }) {
  const { t, i18n } = useTranslation()
  const { clock, live } = useChatRuntime()
  const retries = useSessionRetries(sessionId)
  const subscribeNews = useCallback((listener: () => void) => live.subscribeNews(sessionId, listener), [live, sessionId])
  const getNews = () => live.news(sessionId)
  const news = useSyncExternalStore(subscribeNews, getNews, getNews)
  const [state, setState] = useState<State>({ announcer: SILENT, spoken: null, retries: null, news: undefined })
  if (state.retries !== retries || state.news !== news) {
    let { spoken } = state
    const now = clock.now()
    const views = new Map([...retries].map(([anchorId, snapshot]) => [anchorId, retryView(snapshot, now)]))
    const announcer = nextAnnouncement(state.announcer, views)
    if (announcer.current !== state.announcer.current) {
      spoken = announcer.current ? { kind: 'retry', announcement: announcer.current, at: now } : spoken?.kind === 'retry' ? null : spoken
    }
    if (news && news !== state.news) spoken = { kind: 'news', news }
    setState({ announcer, spoken, retries, news })
  }
  const { spoken } = state
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
      {spoken?.kind === 'retry' ? wordRetry(t, spoken.announcement, spoken.at, i18n.language) : null}
      {spoken?.kind === 'news' ? t('tier1.announce', { cause: tier1Cause(t, spoken.news.wait.code), attempt: spoken.news.wait.attempt, max: spoken.news.wait.maxAttempts }) : null}
    </div>
  )
}

function wordRetry(t: TFunction, announcement: RetryAnnouncement, at: number, lng: string): string {
  switch (announcement.kind) {
    case 'armed':
      return t('retry.announceArmed', { attempt: announcement.attempt, seconds: countdownSeconds(announcement.remainingMs) })
    case 'paused':
      return t('retry.announcePaused', { attempt: announcement.attempt, time: formatClockTime(announcement.deadline, at, lng) })
    case 'cancelled':
      return t('retry.announceCancelled')
    case 'refused':
      return t('retry.refused', { reason: describeFailure(t, failureFromError(announcement.refusal)).text })
  }
}
