import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import type { TFunction } from 'i18next'
import { describeFailure, failureFromError, failureOfWireError } from '../../i18n/describe-failure'
import { countdownSeconds, formatClockTime } from '../../i18n/format'
import type { RetryAnnouncement } from '../../retry/announcer'
import type { WireError } from '../../wire/types'
import { useChatRuntime } from '../runtime'
import { nextOutcomes, openingMemory, type Arming, type Outcome, type OutcomeMemory } from '../../thread/session-outcomes'
import { tier1Cause } from '../reply/tier1-status'
import { useSessionRetries } from '../use-core'
import { useThreadState } from '../use-thread'
import type { Thread } from '../../thread/thread'

/** What the region holds: the outcomes of one moment, and when (for clock times). */
type Spoken = { seq: number; outcomes: Outcome[]; at: number }

/**
 * The session's polite live region. It speaks each outcome once (see `nextOutcomes`): a reply
 * complete, stopped or failed (with its countdown when tier 2 armed), a hand regenerate, a send
 * parked as not sent, a tier 2 cancel or refusal, each tier 1 wait, a stream's connection lost and
 * back; never a countdown's tick and
 * never what had already ended when the session was opened.
 *
 * It reads the moment after the view has fed history to the core (a zero-delay timer after the
 * render), so a failure and the countdown it arms are said together, in one sentence. Each
 * announcement is a new node, so the same words twice in a row are heard twice.
 */
export function SessionAnnouncer({ thread }: { thread: Thread }) {
  const { t, i18n } = useTranslation()
  const { clock, live } = useChatRuntime()
  const { sessionId } = thread
  const history = useThreadState(thread, (snapshot) => (snapshot.phase === 'ready' ? snapshot.messages : undefined))
  const sends = useThreadState(thread, (snapshot) => snapshot.pending)
  const retries = useSessionRetries(sessionId)
  const subscribeNews = useCallback((listener: () => void) => live.subscribeNews(sessionId, listener), [live, sessionId])
  const getNews = () => live.news(sessionId)
  const news = useSyncExternalStore(subscribeNews, getNews, getNews)

  const memory = useRef<OutcomeMemory | null>(null)
  const [spoken, setSpoken] = useState<Spoken | null>(null)
  useEffect(() => {
    if (!history) return
    // After the view's effects: the scheduler has judged this history by then.
    const timer = setTimeout(() => {
      const now = clock.now()
      const inputs = { history, sends, retries, news, now }
      const before = memory.current ?? openingMemory(inputs)
      const next = nextOutcomes(before, inputs)
      memory.current = next.memory
      if (next.outcomes.length > 0) setSpoken((previous) => ({ seq: (previous?.seq ?? 0) + 1, outcomes: next.outcomes, at: now }))
    }, 0)
    return () => clearTimeout(timer)
  }, [clock, history, news, retries, sends])

  const text = spoken ? joinSentences(spoken.outcomes.map((outcome) => wordOutcome(t, outcome, spoken.at, i18n.language))) : ''
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
      {spoken ? <span key={spoken.seq}>{text}</span> : null}
    </div>
  )
}

/** Sentences side by side: a space after a Latin full stop, none after a Chinese one. */
export function joinSentences(sentences: string[]): string {
  return sentences.reduce((all, sentence) => (all === '' ? sentence : /[。！？]$/.test(all) ? all + sentence : `${all} ${sentence}`), '')
}

function wordOutcome(t: TFunction, outcome: Outcome, at: number, lng: string): string {
  switch (outcome.kind) {
    case 'regenerating':
      return t('announce.regenerating')
    case 'complete':
      return t('announce.complete')
    case 'stopped':
      return t('announce.stopped')
    case 'failed':
      return wordFailure(t, outcome.error, outcome.arming, at, lng)
    case 'retry':
      return wordRetry(t, outcome.announcement, at, lng)
    case 'notSent':
      return t('announce.notSent')
    case 'tier1':
      return t('tier1.announce', { cause: tier1Cause(t, outcome.wait.code), attempt: outcome.wait.attempt, max: outcome.wait.maxAttempts })
    case 'toolFailed':
      return t('announce.toolFailed', { name: outcome.name, reason: describeFailure(t, failureOfWireError(outcome.error)).text })
    case 'connectionLost':
      return t('announce.connectionLost')
    case 'reconnected':
      return t('announce.reconnected')
  }
}

/** "Reply failed: <reason>." with, when it armed tier 2, the next attempt in the same sentence. */
function wordFailure(t: TFunction, error: WireError | undefined, arming: Arming | undefined, at: number, lng: string): string {
  let reason = describeFailure(t, failureOfWireError(error)).text
  // The daemon's own words may end without a stop; the next sentence must not run into them.
  if (!/[.!?。！？…]$/.test(reason)) reason += t('announce.fullStop')
  if (!arming) return t('announce.failed', { reason })
  if (arming.kind === 'armed') return t('announce.failedArmed', { reason, attempt: arming.attempt, seconds: countdownSeconds(arming.remainingMs) })
  if (arming.kind === 'held') return t('announce.failedHeld', { reason, tools: arming.tools })
  return t('announce.failedPaused', { reason, attempt: arming.attempt, time: formatClockTime(arming.deadline, at, lng, t('robust.noResetTime')) })
}

function wordRetry(t: TFunction, announcement: RetryAnnouncement, at: number, lng: string): string {
  switch (announcement.kind) {
    case 'armed':
      return t('retry.announceArmed', { attempt: announcement.attempt, seconds: countdownSeconds(announcement.remainingMs) })
    case 'paused':
      return t('retry.announcePaused', { attempt: announcement.attempt, time: formatClockTime(announcement.deadline, at, lng, t('robust.noResetTime')) })
    case 'held':
      return t('retry.announceHeld', { tools: announcement.tools })
    case 'cancelled':
      return t('retry.announceCancelled')
    case 'refused':
      return t('retry.refused', { reason: describeFailure(t, failureFromError(announcement.refusal)).text })
  }
}
