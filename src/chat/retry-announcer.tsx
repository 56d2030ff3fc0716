import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { describeFailure, failureFromError } from '../i18n/describe-failure'
import { countdownSeconds, formatClockTime } from '../i18n/format'
import { nextAnnouncement, retryView, SILENT, type AnnouncerState, type RetryAnnouncement } from '../retry/view'
import type { TFunction } from 'i18next'
import type { SessionRetries } from '../retry/scheduler'
import { useChatRuntime } from './runtime'
import { useSessionRetries } from './use-core'

/**
 * A polite live region for the retry scheduler: it speaks when a retry is armed, paused until a
 * time, refused or cancelled, never on each tick of the countdown (see `nextAnnouncement`).
 */
export function RetryAnnouncer({ sessionId }: { sessionId: string }) {
  const { t, i18n } = useTranslation()
  const { clock } = useChatRuntime()
  const retries = useSessionRetries(sessionId)
  // What the region holds, when it was set (a paused time is worded against that moment), and
  // the schedulers it was derived from: a change of those updates it during render.
  const [{ announcer, at, from }, setState] = useState<{ announcer: AnnouncerState; at: number; from: SessionRetries | null }>({
    announcer: SILENT,
    at: 0,
    from: null,
  })
  if (from !== retries) {
    const now = clock.now()
    const views = new Map([...retries].map(([anchorId, snapshot]) => [anchorId, retryView(snapshot, now)]))
    const next = nextAnnouncement(announcer, views)
    setState({ announcer: next, at: next.current !== announcer.current ? now : at, from: retries })
  }
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
      {announcer.current ? wordAnnouncement(t, announcer.current, at, i18n.language) : ''}
    </div>
  )
}

function wordAnnouncement(t: TFunction, announcement: RetryAnnouncement, at: number, lng: string): string {
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
