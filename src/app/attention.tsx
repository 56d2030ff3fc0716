/**
 * The attention core's React side: the provider that makes one per tab, the words of a
 * notification, and the shell's hook (the tab title's count, what the tab shows, where a clicked
 * notification leads). The rules are in src/attention.
 */
import { useQueryClient } from '@tanstack/react-query'
import type { i18n as I18n, TFunction } from 'i18next'
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react'
import { useTranslation } from '../i18n/use-translation'
import { APPROVAL_FOCUS_EVENT, takeApprovalFocus, type ApprovalTarget } from '../attention/approval-focus'
import type { Attention, NotificationWords } from '../attention/attention'
import type { LedgerEntry, SessionMark } from '../attention/ledger'
import type { NotificationPort } from '../attention/notify'
import type { PageSource } from '../attention/page'
import { useChatRuntime, useThreads } from '../chat/runtime'
import { describeFailure, failureOfWireError } from '../i18n/describe-failure'
import { formatClockTime } from '../i18n/format'
import { currentLanguage, HTML_LANG } from '../i18n/setup'
import { sessionLabel } from '../thread/session-label'
import { sessionIdFromPath } from './use-session-route'

const AttentionContext = createContext<Attention | undefined>(undefined)

/** What a notification says of an event: its session's title (or the untitled label) and what happened. */
export function wordNotification(t: TFunction, lng: string, entry: LedgerEntry, sessionTitle: string, now: number): { title: string; body: string } {
  const title = sessionLabel(t, { title: sessionTitle })
  switch (entry.kind) {
    case 'approval':
      return { title, body: t('attention.approval', { tool: entry.tool ?? '' }) }
    case 'finished':
      return { title, body: t('attention.finished') }
    case 'failed':
      return { title, body: t('attention.failed', { reason: describeFailure(t, failureOfWireError(entry.error)).text }) }
    case 'paused':
      return { title, body: t('attention.paused', { time: formatClockTime(entry.until ?? Number.NaN, now, lng, t('robust.noResetTime')) }) }
    case 'held':
      return { title, body: t('attention.held', { tools: entry.tools ?? [] }) }
  }
}

/** Notification words in the language the interface shows when the notification is made. */
function wordsOf(i18n: I18n): NotificationWords {
  return (entry, sessionTitle, now) => {
    const lng = currentLanguage(i18n)
    return { ...wordNotification(i18n.getFixedT(lng), lng, entry, sessionTitle, now), lang: HTML_LANG[lng] }
  }
}

/**
 * One attention core for the tab, over the chat runtime. `port` and `page` default to the
 * browser's notifications and page (stories and tests put fakes in). The core is fetched once the
 * first screen is up (it is not part of it): until then the tab shows no switch and counts
 * nothing, and what happened meanwhile is read from the sessions when it starts.
 */
export function AttentionProvider({ children, port, page }: { children: ReactNode; port?: NotificationPort; page?: PageSource }) {
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const { i18n } = useTranslation()
  const [attention, setAttention] = useState<Attention>()
  useEffect(() => {
    let live = true
    let stop: (() => void) | undefined
    void import('../attention/attention').then(({ createAttention }) => {
      if (!live) return
      const made = createAttention({ runtime, queryClient, words: wordsOf(i18n), ...(port ? { port } : {}), ...(page ? { page } : {}) })
      stop = made.start()
      setAttention(made)
    })
    return () => {
      live = false
      stop?.()
    }
  }, [runtime, queryClient, i18n, port, page])
  return <AttentionContext.Provider value={attention}>{children}</AttentionContext.Provider>
}

/** The tab's attention core; undefined outside an AttentionProvider (the shell then shows none of it). */
export function useAttention(): Attention | undefined {
  return useContext(AttentionContext)
}

const never = () => () => {}
const none = () => 0

/** Events not seen yet, in every tab. */
function useAttentionCount(): number {
  const attention = useAttention()
  return useSyncExternalStore(attention?.subscribeCount ?? never, attention?.count ?? none, attention?.count ?? none)
}

const NO_MARKS: ReadonlyMap<string, SessionMark> = new Map()
const noMarks = () => NO_MARKS

/** Each session with unseen events and what they ask of the operator, for the session list. */
export function useSessionMarks(): ReadonlyMap<string, SessionMark> {
  const attention = useAttention()
  return useSyncExternalStore(attention?.subscribeCount ?? never, attention?.marks ?? noMarks, attention?.marks ?? noMarks)
}

/**
 * The shell's side: this tab shows `sessionId` (its events are counted from its thread, and seen
 * while the operator looks at it), the tab title carries the count ("(2) Rebound"), and a clicked
 * notification opens its session with `open`.
 */
export function useAttentionShell(sessionId: string | undefined, open: (sessionId: string) => void): void {
  const attention = useAttention()
  const threads = useThreads()
  const { t } = useTranslation()
  const count = useAttentionCount()
  const title = t('app.title')

  useEffect(() => {
    if (!attention) return
    attention.show(sessionId)
    return sessionId ? attention.watch(threads.get(sessionId)) : undefined
  }, [attention, sessionId, threads])

  useEffect(() => attention?.onOpen(open), [attention, open])

  useEffect(() => {
    if (!attention) return
    document.title = count > 0 ? t('attention.tabTitle', { count, title }) : title
  }, [attention, count, t, title])

  useEffect(() => (attention ? focusApprovalByDefault() : undefined), [attention])
}

/** How long the fallback waits for the approval's session to show it. */
const APPROVAL_WAIT_MS = 5_000

/**
 * When nobody takes an approval focus request (see attention/approval-focus.ts), focus goes to the
 * waiting tool's step once its session shows it. Returns the stop.
 */
function focusApprovalByDefault(): () => void {
  let stopWaiting: (() => void) | undefined
  const onRequest = (event: Event) => {
    stopWaiting?.()
    const { detail } = event as CustomEvent<ApprovalTarget>
    const attempt = () => {
      if (event.defaultPrevented) return true
      if (sessionIdFromPath(window.location.pathname) !== detail.sessionId) return false
      const step = document.querySelector<HTMLElement>('main [data-status="awaiting_approval"]')
      const target = step?.querySelector<HTMLElement>('button:not(:disabled)')
      if (!target) return false
      // The approval's own controls may have taken it as they showed: theirs stands.
      if (takeApprovalFocus(detail.sessionId, detail.toolCallId)) target.focus()
      return true
    }
    // The approval's controls get the first go, in the same turn as the request.
    const first = setTimeout(() => {
      if (attempt()) return
      const observer = new MutationObserver(() => {
        if (attempt()) stopWaiting?.()
      })
      observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-status'] })
      const giveUp = setTimeout(() => stopWaiting?.(), APPROVAL_WAIT_MS)
      stopWaiting = () => {
        observer.disconnect()
        clearTimeout(giveUp)
        stopWaiting = undefined
      }
    }, 0)
    stopWaiting = () => {
      clearTimeout(first)
      stopWaiting = undefined
    }
  }
  window.addEventListener(APPROVAL_FOCUS_EVENT, onRequest)
  return () => {
    window.removeEventListener(APPROVAL_FOCUS_EVENT, onRequest)
    stopWaiting?.()
  }
}
