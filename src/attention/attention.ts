/**
 * Attention for one tab, without React: what it sees of the session it shows goes to the ledger
 * the tabs share (events.ts, ledger.ts); the operator looking at a session (this tab visible,
 * focused, showing it) marks its events seen, here and in every tab; the title's count is what is
 * left unseen.
 *
 * Notifications are made by one tab only: the holder of a Web Lock every tab asks for, so the
 * browser names one at a time and the next when it closes. That tab also runs the background
 * watch (background.ts). It decides on each event of the ledger once (shown or skipped, written
 * back, so a tab taking over after it does not decide again), which is what makes one notification
 * per event across tabs: storage alone cannot, since two tabs may both read "not yet" at once.
 */
import type { QueryClient } from '@tanstack/query-core'
import { createRetryBoard } from '../retry/board'
import { browserWake, type WakeSource } from '../retry/browser'
import { LOCK_PREFIX } from '../storage/locks'
import { chatKeys } from '../thread/history'
import type { ChatRuntime } from '../thread/runtime'
import type { ThreadSnapshot } from '../thread/thread'
import type { Session } from '../wire/types'
import { requestApprovalFocus } from './approval-focus'
import { watchInBackground } from './background'
import { detectView, openingView, type AttentionEvent, type ViewMemory } from './events'
import { createLedger, marksKey, sessionMarks, unseenCount, type LedgerEntry, type SessionMark } from './ledger'
import { browserNotifications, LOOKING_BEAT_MS, LOOKING_FRESH_MS, lookingSlot, notifySetting, shouldNotify, type NotificationPort } from './notify'
import { browserPage, type PageSource } from './page'

const NOTIFIER_LOCK = `${LOCK_PREFIX}attention.notifier`

/** A notification's words, in the operator's language: the session's title and what happened. */
export type NotificationWords = (entry: LedgerEntry, sessionTitle: string, now: number) => { title: string; body: string; lang?: string }

/** The switch in the header, as it shows. */
export type NotificationsState = {
  /** The browser has notifications at all. */
  supported: boolean
  /** The operator switched them on and the browser allows them. */
  on: boolean
  /** The browser refuses them (the operator asked here, or they were on): say so. */
  blocked: boolean
  /** The browser's question is open. */
  asking: boolean
}

/** What `watch` reads of a thread. */
type WatchedThread = { sessionId: string; getState(): Pick<ThreadSnapshot, 'phase' | 'messages' | 'activeRuns'>; subscribe(listener: () => void): () => void }

export type AttentionOptions = {
  runtime: ChatRuntime
  queryClient: QueryClient
  words: NotificationWords
  port?: NotificationPort
  page?: PageSource
  wake?: WakeSource
  pollMs?: number
}

export type Attention = ReturnType<typeof createAttention>

export function createAttention({ runtime, queryClient, words, port = browserNotifications(), page = browserPage(), wake = browserWake, pollMs }: AttentionOptions) {
  const tab = runtime.newId()
  const ledger = createLedger({ store: runtime.store, locks: runtime.locks })
  const setting = notifySetting(runtime.store)
  const looking = lookingSlot(runtime.store)
  const board = createRetryBoard(runtime.store)
  const shownHere = new Map<string, number>()
  const countListeners = new Set<() => void>()
  const stateListeners = new Set<() => void>()
  const openers = new Set<(sessionId: string) => void>()
  /** Events the notifying tab decided on during its term. */
  const decided = new Set<string>()
  let route: string | undefined
  let started = false
  let leading = false
  let asking = false
  let askedHere = false
  let state = computeState()
  let heartbeat: ReturnType<typeof setInterval> | undefined

  function computeState(): NotificationsState {
    const permission = port.supported ? port.permission() : 'denied'
    const wanted = setting.read()
    return { supported: port.supported, on: wanted && permission === 'granted', blocked: permission === 'denied' && (wanted || askedHere), asking }
  }

  function refreshState(): void {
    const next = computeState()
    if (next.supported === state.supported && next.on === state.on && next.blocked === state.blocked && next.asking === state.asking) return
    state = next
    for (const listener of [...stateListeners]) listener()
    process()
  }

  /** The operator is looking at this tab's session now. */
  const lookingHere = (): string | undefined => (route !== undefined && page.visible() && page.focused() ? route : undefined)

  /** The session the operator is looking at in any tab: this one's own state, else the freshest word of another. */
  function lookedAt(now: number): string | undefined {
    const here = lookingHere()
    if (here) return here
    const said = looking.read()
    return said && said.tab !== tab && now - said.at < LOOKING_FRESH_MS ? said.sessionId : undefined
  }

  /** Says (or takes back) that the operator looks at this tab's session, and marks what they see as seen. */
  function look(): void {
    const here = started ? lookingHere() : undefined
    if (here) {
      looking.say(tab, here, runtime.clock.now())
      ledger.markSeen(here)
      heartbeat ??= setInterval(look, LOOKING_BEAT_MS)
    } else {
      looking.unsay(tab)
      if (heartbeat !== undefined) clearInterval(heartbeat)
      heartbeat = undefined
    }
  }

  function record(events: readonly AttentionEvent[]): void {
    if (events.length === 0) return
    const here = lookingHere()
    ledger.record(events, runtime.clock.now(), (event) => event.sessionId === here)
  }

  const titleOf = (sessionId: string): string => queryClient.getQueryData<Session[]>(chatKeys.sessions)?.find((s) => s.id === sessionId)?.title ?? ''

  function open(entry: LedgerEntry): void {
    page.focus()
    for (const opener of [...openers]) opener(entry.sessionId)
    if (entry.kind === 'approval' && entry.toolCallId) requestApprovalFocus({ sessionId: entry.sessionId, runId: entry.runId, toolCallId: entry.toolCallId })
  }

  let processing = false
  /** The notifying tab decides on every event it has not decided on: shown or skipped, once. */
  function process(): void {
    // Each decision is written to the ledger, whose change calls here again: the loop has it.
    if (!leading || processing) return
    processing = true
    try {
      const now = runtime.clock.now()
      // The browser's permission as it is now: it can be taken back in its settings at any time.
      const context = { enabled: computeState().on, looking: lookedAt(now), now }
      for (const entry of ledger.entries()) {
        if (entry.notified !== undefined || decided.has(entry.id)) continue
        decided.add(entry.id)
        const show = shouldNotify(entry, context)
        if (show) {
          const { title, body, lang } = words(entry, titleOf(entry.sessionId), now)
          port.show(title, { body, tag: entry.id, ...(lang ? { lang } : {}) }, () => open(entry))
        }
        ledger.settle(entry.id, show ? 'shown' : 'skipped')
      }
    } finally {
      processing = false
    }
  }

  let counted = ledger.entries()
  let count = unseenCount(counted)
  let marks: ReadonlyMap<string, SessionMark> = sessionMarks(counted)
  let marksSaid = marksKey(marks)
  function onLedger(): void {
    const entries = ledger.entries()
    if (entries !== counted) {
      counted = entries
      const next = unseenCount(entries)
      const nextMarks = sessionMarks(entries)
      const nextSaid = marksKey(nextMarks)
      if (next !== count || nextSaid !== marksSaid) {
        count = next
        if (nextSaid !== marksSaid) {
          marks = nextMarks
          marksSaid = nextSaid
        }
        for (const listener of [...countListeners]) listener()
      }
    }
    const here = lookingHere()
    if (here) ledger.markSeen(here)
    process()
  }

  /** Asks to be the tab that notifies; holds it until `stop`. */
  function lead(): () => void {
    const abort = new AbortController()
    let release: (() => void) | undefined
    let stopWatch: (() => void) | undefined
    runtime.locks
      .request(NOTIFIER_LOCK, { signal: abort.signal }, () => {
        if (abort.signal.aborted) return
        leading = true
        stopWatch = watchInBackground({
          queryClient,
          runtime,
          board: (sessionId, anchorId) => board.read(sessionId, anchorId),
          now: () => runtime.clock.now(),
          shownHere: () => new Set(shownHere.keys()),
          record,
          listed: (present, before) => ledger.markGone(present, before),
          wake,
          ...(pollMs === undefined ? {} : { pollMs }),
        })
        process()
        return new Promise<void>((resolve) => (release = resolve))
      })
      .catch(() => undefined)
    return () => {
      abort.abort()
      leading = false
      stopWatch?.()
      release?.()
    }
  }

  return {
    /** Starts hearing the other tabs, the page and the lock; returns the stop. */
    start(): () => void {
      const stopLedger = ledger.connect()
      const stopHearing = ledger.subscribe(onLedger)
      const stopSetting = setting.subscribe(refreshState)
      const stopPage = page.subscribe(() => {
        look()
        refreshState()
      })
      // A page back from sleep reads what the other tabs counted meanwhile.
      const stopWake = wake(() => ledger.refresh())
      const stopLeading = lead()
      started = true
      onLedger()
      look()
      return () => {
        started = false
        stopLeading()
        stopWake()
        stopPage()
        stopSetting()
        stopHearing()
        stopLedger()
        look()
      }
    },

    /** The session this tab shows (the route), or none. */
    show(sessionId: string | undefined): void {
      if (sessionId === route) return
      route = sessionId
      look()
    },

    /**
     * Counts what happens in a session a view here shows, from its thread (history), the live
     * runs it follows and its tier 2 schedulers. Returns the stop.
     */
    watch(thread: WatchedThread): () => void {
      const { sessionId } = thread
      shownHere.set(sessionId, (shownHere.get(sessionId) ?? 0) + 1)
      let memory: ViewMemory | undefined
      let timer: ReturnType<typeof setTimeout> | undefined
      const liveStops = new Map<string, () => void>()
      const detect = () => {
        timer = undefined
        const snapshot = thread.getState()
        if (snapshot.phase !== 'ready') return
        followLive(snapshot.activeRuns)
        const inputs = { sessionId, history: snapshot.messages, live: runtime.live.get, retries: runtime.retry.snapshot(sessionId), now: runtime.clock.now() }
        memory ??= openingView(inputs)
        const next = detectView(memory, inputs)
        memory = next.memory
        record(next.events)
      }
      // After the view's own effects: history is fed to the scheduler first, so a failure is read
      // with the countdown it armed.
      const schedule = () => {
        timer ??= setTimeout(detect, 0)
      }
      // A tool awaiting approval shows in the stream before history has it.
      const followLive = (runs: readonly string[]) => {
        for (const [runId, stop] of liveStops) {
          if (runs.includes(runId)) continue
          stop()
          liveStops.delete(runId)
        }
        for (const runId of runs) if (!liveStops.has(runId)) liveStops.set(runId, runtime.live.subscribe(runId, schedule))
      }
      const stopThread = thread.subscribe(schedule)
      const stopRetry = runtime.retry.subscribe(sessionId, schedule)
      schedule()
      return () => {
        if (timer !== undefined) clearTimeout(timer)
        stopThread()
        stopRetry()
        for (const stop of liveStops.values()) stop()
        const left = (shownHere.get(sessionId) ?? 1) - 1
        if (left > 0) shownHere.set(sessionId, left)
        else shownHere.delete(sessionId)
      }
    },

    /** Called with a session to open when the operator clicks its notification. Returns the stop. */
    onOpen(opener: (sessionId: string) => void): () => void {
      openers.add(opener)
      return () => void openers.delete(opener)
    },

    /** Events not seen yet, in every tab. */
    count: (): number => count,
    /** Each session with unseen events and what they ask (the same map until a mark changes); told with the count. */
    marks: (): ReadonlyMap<string, SessionMark> => marks,
    subscribeCount(listener: () => void): () => void {
      countListeners.add(listener)
      return () => void countListeners.delete(listener)
    },

    /** The switch; the same object until it changes. */
    notifications: (): NotificationsState => state,
    subscribeNotifications(listener: () => void): () => void {
      stateListeners.add(listener)
      return () => void stateListeners.delete(listener)
    },
    /**
     * The operator's switch. On asks the browser's permission when it has not been given or
     * refused yet (never at load); the switch stays on only where the browser allows it.
     */
    async setNotifications(on: boolean): Promise<void> {
      // The browser's question is open: a second press waits for its answer.
      if (asking) return
      if (!on) {
        askedHere = false
        setting.write(false)
        refreshState()
        return
      }
      askedHere = true
      let permission = port.permission()
      if (permission === 'default') {
        asking = true
        refreshState()
        permission = await port.request()
        asking = false
      }
      setting.write(permission === 'granted')
      refreshState()
    },
  }
}
