/**
 * One session as the operator sees it, without React: its history (the query cache), the live
 * runs, the outbox and the tier 2 schedulers composed into one snapshot of what the transcript
 * shows, and the actions on it. Components render a snapshot and call actions; every rule of
 * "what is shown" and "what an action does" is here or in a pure module beside it.
 *
 * The snapshot changes when history, the outbox or an action's state changes, never per delta:
 * a streaming reply is read from the live-run store by its own row (see reply-state.ts).
 */
import { QueryObserver, type QueryClient, type QueryObserverResult } from '@tanstack/query-core'
import { isWaiting, isCancellable, retryView } from '../retry/view'
import { newEntry, resumeSends, sendEntry, takeBack, type SendHooks, type SendOutcome } from '../send/deliver'
import type { OutboxEntry } from '../send/outbox'
import type { Message } from '../wire/types'
import { isActive } from '../wire/status'
import { historyPager, loadPage, messagesQuery, refreshSession, releaseFarPages, showAcceptedSend } from './history'
import { aroundRequest, gapRequest, gapsOf, hasEarlier, holds as holdsSeq, sinceOpened, type Gap, type PagedHistory, type Refresh } from './pages'
import type { ChatRuntime } from './runtime'
import { buildTranscript, regenerateImpact, withGaps, type TranscriptItem } from './transcript-model'
import { overlay } from '../live/live-runs'
import { countSegments, EMPTY_LEDGER, ledgerSpent, type SessionSpent } from './usage'
import { decisionBookOf, type DecisionRecord } from './decisions'
import { awaitingApprovals, firstUndecided, type AwaitingTool } from './approvals'
import type { ToolDecision } from '../wire/types'

/** A regenerate that replaces later operator messages, waiting for the operator to say yes. */
type PendingConfirm = { anchorId: string; count: number }

export type ThreadSnapshot = {
  sessionId: string
  /** `loading` until the first read; `error` when the last read failed and nothing is held. */
  phase: 'loading' | 'ready' | 'error'
  error: unknown
  /**
   * The session's history (superseded included) from where it stood when it was opened, with
   * sends shown from their receipts: its end, which the core and the announcers work on. Pages read
   * above it as the operator scrolls are the session's past and only in `rows` (pages.ts).
   */
  messages: readonly Message[]
  /** The rows the transcript shows, oldest first, with a `gap` row where messages are not held. */
  rows: readonly TranscriptItem[]
  /** Messages before the first held are still to be read (the transcript's "Load earlier"). */
  hasEarlier: boolean
  /** The page before the first held is being read. */
  loadingEarlier: boolean
  /** Gaps (by key) whose page is being read. */
  loadingGaps: ReadonlySet<string>
  /** This session's sends the daemon has not confirmed (sending, or parked as not sent). */
  pending: readonly OutboxEntry[]
  /** Records of the last read that could not be understood and were skipped. */
  unreadable: number
  /** A reply of the main flow is queued or streaming. */
  active: boolean
  /** The runs of the main flow still going (their usage grows on the stream), newest last. */
  activeRuns: readonly string[]
  /**
   * What the session's ended runs spent, superseded and failed ones included: from its start, or
   * `since` the first message of what has been read back from its end (thread/usage.ts).
   */
  spent: SessionSpent
  /** Runs whose Stop is on the wire, and anchors whose regenerate is. */
  stopping: ReadonlySet<string>
  regenerating: ReadonlySet<string>
  confirming: PendingConfirm | undefined
  /** Errors kept as values, worded where shown (a language switch rewords them). */
  regenerateError: { anchorId: string; error: unknown } | undefined
  resendErrors: Readonly<Record<string, unknown>>
  /**
   * The operator's decisions on this session's tools, by `decisionKey(runId, toolCallId)`, as every
   * tab sees them (on the wire, taken, refused or failed, with the error as a value). A record keeps
   * its object while it is unchanged, so a view selecting one tool's re-renders when that one changes.
   */
  decisions: ReadonlyMap<string, DecisionRecord>
}

/** The shortcuts that act on the reply at the end of the conversation. */
export type TailShortcut = 'stopOrCancel' | 'retryOrRegenerate'

export type Thread = ReturnType<typeof createThread>

const EMPTY: readonly Message[] = []
const NONE: ReadonlySet<string> = new Set()
const NO_TOOLS: readonly AwaitingTool[] = []

/** How a decision is sent (thread/decide.ts): not on the first screen, and loaded once. */
let decideModule: typeof import('./decide') | undefined

/**
 * Fetches how a decision is sent. An approval's controls call it as they show, so a press acts
 * in the same turn (the record says "Approving…" at once, and a second press finds it).
 */
export function loadDecide(): Promise<typeof import('./decide')> {
  return decideModule ? Promise.resolve(decideModule) : import('./decide').then((module) => (decideModule = module))
}

/**
 * The thread of `sessionId`. Nothing happens until a view connects it (see `connect`).
 */
export function createThread(runtime: ChatRuntime, queryClient: QueryClient, sessionId: string) {
  const listeners = new Set<() => void>()
  historyPager(queryClient, runtime.client, sessionId)
  const observer = new QueryObserver(queryClient, messagesQuery(runtime, sessionId))
  let result: QueryObserverResult<PagedHistory> = observer.getCurrentResult()
  let loadingGaps: ReadonlySet<string> = NONE
  /** A seq the view was sent to (a find hit): its page stays until the view shows it. */
  let revealing: number | undefined
  let pending = sessionEntries(runtime.outbox.entries(), sessionId)
  let actions = {
    stopping: NONE,
    regenerating: NONE,
    confirming: undefined as PendingConfirm | undefined,
    regenerateError: undefined as ThreadSnapshot['regenerateError'],
    resendErrors: {} as Readonly<Record<string, unknown>>,
  }
  let activeRuns: readonly string[] = []
  const decisionBook = decisionBookOf(runtime.store)
  let decisions = readDecisions(new Map())
  let awaiting = { key: '', tools: NO_TOOLS }
  let ledger = EMPTY_LEDGER
  let spent = ledgerSpent(ledger)
  let countedHistory: PagedHistory | undefined
  let snapshot = build()
  let fedHistory: readonly Message[] | undefined

  function build(): ThreadSnapshot {
    const history = result.data
    const messages = history ? sinceOpened(history) : EMPTY
    const gaps = history ? gapsOf(history) : []
    const phase = result.data ? 'ready' : result.isError ? 'error' : 'loading'
    const running = messages.flatMap((m) => (m.role === 'agent' && !m.superseded && isActive(m.status) && m.run_id ? [m.run_id] : []))
    // The same list while it holds the same runs, so a view selecting it re-renders when they change.
    if (!sameList(running, activeRuns)) activeRuns = running
    return {
      sessionId,
      phase,
      error: result.error,
      messages,
      rows: withGaps(buildTranscript(history?.messages ?? EMPTY, pending), gaps),
      hasEarlier: history ? hasEarlier(history) : false,
      loadingEarlier: gaps[0]?.start === true && loadingGaps.has(gaps[0].key),
      loadingGaps,
      pending,
      unreadable: history?.skipped ?? 0,
      active: activeRuns.length > 0,
      activeRuns,
      spent: spentIn(history),
      ...actions,
      decisions,
    }
  }

  /** What the session spent, every page read counted once (the same object while it is the same). */
  function spentIn(history: PagedHistory | undefined): SessionSpent {
    if (!history || history === countedHistory) return spent
    countedHistory = history
    const next = countSegments(ledger, history.segments)
    if (next !== ledger) {
      ledger = next
      spent = ledgerSpent(ledger)
    }
    return spent
  }

  /** The session's decision records, keeping the objects (and the map) of those unchanged. */
  function readDecisions(previous: ReadonlyMap<string, DecisionRecord>): ReadonlyMap<string, DecisionRecord> {
    const next = decisionBook.session(sessionId)
    let same = next.size === previous.size
    for (const [key, record] of next) {
      const before = previous.get(key)
      if (before && JSON.stringify(before) === JSON.stringify(record)) next.set(key, before)
      else same = false
    }
    return same ? previous : next
  }

  function changed(): void {
    snapshot = build()
    for (const listener of listeners) listener()
  }

  /** Every read of history goes to the core: follow what is running, arm or settle tier 2. */
  function feed(): void {
    const history = result.data ? sinceOpened(result.data) : undefined
    if (!history || history === fedHistory) return
    fedHistory = history
    runtime.follower.watch(sessionId, history)
    runtime.retry.feed(sessionId, history)
    reconcileOutbox(result.data?.messages ?? history)
  }

  /**
   * A parked send that history shows after all (its answer was lost, a later read found it) has
   * landed: it leaves the outbox, so it is neither shown twice nor kept for ever.
   */
  function reconcileOutbox(history: readonly Message[]): void {
    // Most reads find nothing parked: no pass over a long history for them.
    if (!pending.some((entry) => entry.state === 'not_sent')) return
    const landed = new Set(history.map((m) => m.client_message_id))
    for (const entry of pending) {
      if (entry.state === 'not_sent' && landed.has(entry.clientMessageId)) runtime.outbox.remove(entry.clientMessageId)
    }
  }

  function setActions(next: Partial<typeof actions>): void {
    actions = { ...actions, ...next }
    changed()
  }

  const sendHooks: SendHooks = {
    onAccepted: (entry, { messageId, run }) => {
      // The other tabs on this session show the message and follow its run too.
      runtime.historyChanged(entry.sessionId)
      // The receipt says what a read would: the message and the run it started. A message found
      // in history after a lost answer comes without a receipt, and history is read.
      const shown =
        run !== undefined &&
        showAcceptedSend(queryClient, {
          sessionId: entry.sessionId,
          messageId,
          clientMessageId: entry.clientMessageId,
          content: entry.content,
          run,
          at: runtime.clock.now(),
        })
      return shown ? undefined : refreshSession(queryClient, entry.sessionId, undefined, { kind: 'ended' })
    },
  }
  /** After a stop or regenerate: this tab and the others read the session again. */
  const settle = (refresh: Refresh) => {
    runtime.historyChanged(sessionId)
    return refreshSession(queryClient, sessionId, undefined, refresh)
  }

  /** Reads the page `request` for the gap `key`, saying so in the snapshot while it is read. */
  function readGap(key: string, request: Parameters<typeof loadPage>[2]): Promise<boolean> {
    if (loadingGaps.has(key)) return Promise.resolve(false)
    loadingGaps = withItem(loadingGaps, key)
    changed()
    // The read's end and its rows make one snapshot (one render), not two.
    const landing = () => {
      loadingGaps = withoutItem(loadingGaps, key)
    }
    return loadPage(queryClient, sessionId, request, landing).then((ok) => {
      // A read that failed, or one this gap shared with another ask, has not said so yet.
      if (!ok || loadingGaps.has(key)) {
        landing()
        changed()
      }
      return ok
    })
  }

  const gapOf = (key: string): Gap | undefined => (result.data ? gapsOf(result.data).find((gap) => gap.key === key) : undefined)

  function dispatchRegenerate(anchorId: string): void {
    // The operator has taken over: in every tab, the countdown of this anchor is over.
    runtime.retry.dismiss(sessionId, anchorId)
    setActions({ regenerateError: undefined, regenerating: withItem(actions.regenerating, anchorId) })
    runtime.client
      .regenerate(sessionId, anchorId)
      .catch((error: unknown) => setActions({ regenerateError: { anchorId, error } }))
      .finally(() => {
        setActions({ regenerating: withoutItem(actions.regenerating, anchorId) })
        void settle({ kind: 'regenerated', anchorId })
      })
  }

  let connections = 0
  let disconnect: (() => void) | undefined

  const thread = {
    sessionId,
    /**
     * Starts reading history and following the session's runs (once, however many views connect);
     * the returned function lets go, and the last one to let go releases the session's streams and
     * schedulers (the runs go on in the daemon). A thread can connect again after that.
     */
    connect(): () => void {
      connections += 1
      if (connections === 1) {
        const stopObserving = observer.subscribe((next) => {
          result = next
          feed()
          changed()
        })
        // A decision taken (or on the wire) in any tab shows here at once, before the stream says so.
        const stopDecisions = decisionBook.subscribe(() => {
          const next = readDecisions(decisions)
          if (next === decisions) return
          decisions = next
          changed()
        })
        const stopOutbox = runtime.outbox.subscribe(() => {
          const next = sessionEntries(runtime.outbox.entries(), sessionId)
          if (sameEntries(next, pending)) return
          pending = next
          if (result.data) reconcileOutbox(result.data.messages)
          changed()
        })
        result = observer.getCurrentResult()
        pending = sessionEntries(runtime.outbox.entries(), sessionId)
        fedHistory = undefined
        feed()
        decisions = readDecisions(decisions)
        snapshot = build()
        // A reload in the middle of a send: the entry is still "sending", so finish it with the same id.
        resumeSends(runtime, sessionId, sendHooks)
        // The same for a decision: the one recorded goes out again, once.
        if ([...decisions.values()].some((record) => record.state === 'sending')) void loadDecide().then(({ resumeDecisions }) => resumeDecisions(runtime, sessionId))
        disconnect = () => {
          stopObserving()
          stopDecisions()
          stopOutbox()
          runtime.follower.release(sessionId)
          runtime.retry.release(sessionId)
        }
      }
      let connected = true
      return () => {
        if (!connected) return
        connected = false
        connections -= 1
        if (connections === 0) {
          disconnect?.()
          disconnect = undefined
        }
      }
    },
    getState: (): ThreadSnapshot => snapshot,
    subscribe(listener: () => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },

    /** Sends new text. Resolves once the daemon's answer is known; never sends a second copy. */
    send: (content: string): Promise<SendOutcome | undefined> => sendEntry(runtime, newEntry(runtime, sessionId, content), sendHooks),

    /** Sends a "not sent" entry again with its original id; a refusal is kept for its row. */
    async resend(clientMessageId: string): Promise<void> {
      const entry = runtime.outbox.get(clientMessageId)
      if (!entry) return
      const { [clientMessageId]: _, ...rest } = actions.resendErrors
      setActions({ resendErrors: rest })
      // Under the entry's lock it must still be "not sent": another tab may have sent it again.
      const outcome = await sendEntry(runtime, entry, sendHooks, { expect: entry.state })
      if (outcome?.kind === 'refused') setActions({ resendErrors: { ...actions.resendErrors, [clientMessageId]: outcome.error } })
    },

    /**
     * Drops a "not sent" entry and puts its text back into the draft, after whatever the operator
     * typed since. False when there was nothing to take back.
     */
    edit(clientMessageId: string): boolean {
      const text = takeBack(runtime, clientMessageId)
      if (text === undefined) return false
      const draft = runtime.drafts.read(sessionId)
      runtime.drafts.write(sessionId, draft.trim() ? `${draft}\n${text}` : text)
      return true
    },

    /**
     * Stop: cancels a run; the daemon answers with its final status, and history is read again.
     * A daemon that cannot be reached hears it when it answers again (see live/stop-outbox.ts).
     */
    stop(runId: string): void {
      setActions({ stopping: withItem(actions.stopping, runId) })
      void runtime.stops
        .stop(sessionId, runId)
        .finally(() => {
          setActions({ stopping: withoutItem(actions.stopping, runId) })
          void settle({ kind: 'ended' })
        })
    },

    /**
     * Regenerate by hand from an operator message. Replacing later operator messages is worth a
     * question (the snapshot's `confirming`); replacing just this reply is not.
     */
    regenerate(anchorId: string): void {
      const held = result.data?.messages ?? snapshot.messages
      const impact = regenerateImpact(held, anchorId)
      // Messages not held after the anchor are replaced too, and may hold operator messages.
      const anchorSeq = held.find((m) => m.id === anchorId)?.seq
      const unheld = anchorSeq === undefined || !result.data ? 0 : gapsOf(result.data).reduce((n, gap) => (gap.lo > anchorSeq ? n + gap.count : n), 0)
      if (impact.operator > 0 || unheld > 0) setActions({ confirming: { anchorId, count: impact.replaced + unheld } })
      else dispatchRegenerate(anchorId)
    },
    confirmRegenerate(): void {
      const asked = actions.confirming
      if (!asked) return
      setActions({ confirming: undefined })
      dispatchRegenerate(asked.anchorId)
    },
    cancelConfirm(): void {
      if (actions.confirming) setActions({ confirming: undefined })
    },

    /** A tool's whole output, when the stream and history carry only its first 16 KiB. */
    loadToolOutput(toolCallId: string, runId: string | undefined): Promise<string> {
      if (!runId) return Promise.reject(new Error('A tool output needs the run that called the tool.'))
      return runtime.client.toolOutput(sessionId, runId, toolCallId)
    },

    /**
     * Approves or denies a tool that waits, once (see decisions.ts): a second press, another tab's
     * press or a reload sends nothing more. How it went is the snapshot's `decisions`.
     */
    async decide(runId: string, toolCallId: string, decision: ToolDecision): Promise<void> {
      const { decide } = decideModule ?? (await loadDecide())
      await decide(runtime, { sessionId, runId, toolCallId, decision })
    },

    /**
     * The tools of the running replies that wait for approval, oldest first, read from history
     * with the live stream laid over it; the same array while the same tools wait.
     */
    awaitingApprovals(): readonly AwaitingTool[] {
      const tools = awaitingApprovals(snapshot.messages, snapshot.activeRuns, (runId) => runtime.live.get(runId))
      const key = tools.map((tool) => tool.key).join(' ')
      if (key !== awaiting.key) awaiting = { key, tools: tools.length === 0 ? NO_TOOLS : tools }
      return awaiting.tools
    },

    /** The first waiting tool nobody has decided in any tab (where the approval shortcut goes), if any. */
    nextApproval(): AwaitingTool | undefined {
      return firstUndecided(thread.awaitingApprovals(), snapshot.decisions)
    },

    retryNow: (anchorId: string) => runtime.retry.retryNow(sessionId, anchorId),
    cancelRetry: (anchorId: string) => runtime.retry.cancel(sessionId, anchorId),

    /** Reads history again after a failed read. */
    reload: () => void observer.refetch(),

    /** Reads the page before the first held message (the transcript's "Load earlier"). */
    loadEarlier(): Promise<boolean> {
      const first = result.data ? gapsOf(result.data)[0] : undefined
      return first?.start ? readGap(first.key, gapRequest(first, 1)) : Promise.resolve(false)
    },

    /**
     * The view has reached the gap `key`, at `at` of its height (0 its top, 1 its bottom): reads the
     * page there (pages.ts `gapRequest`). Once per gap while its read is under way.
     */
    loadGap(key: string, at: number): Promise<boolean> {
      const gap = gapOf(key)
      return gap ? readGap(key, gapRequest(gap, at)) : Promise.resolve(false)
    },

    /**
     * What the view shows, as the seqs of its first and last rows: pages far from it are let go
     * (and read again when the view comes back), the newest page always kept.
     */
    viewing(lo: number, hi: number): void {
      if (revealing !== undefined) {
        // The view is on its way to a find hit: nothing is let go until it gets there.
        if (revealing < lo || revealing > hi) return
        revealing = undefined
      }
      releaseFarPages(queryClient, sessionId, lo, hi)
    },

    /** Whether the message at `seq` is held (its page read). */
    holds: (seq: number): boolean => (result.data ? holdsSeq(result.data, seq) : false),

    /** Find in session beyond what is held: the daemon's search (content, reasoning, tools). */
    search: (q: string, limit: number, signal?: AbortSignal) => runtime.client.searchMessages(sessionId, q, limit, signal),

    /**
     * Makes sure the message at `seq` is held (a find hit in a page not read): reads the page
     * around it. Resolves true once it is held, false when it could not be read.
     */
    async reveal(seq: number): Promise<boolean> {
      revealing = seq
      if (thread.holds(seq)) return true
      const gap = result.data ? gapsOf(result.data).find((g) => g.lo <= seq && seq <= g.hi) : undefined
      return readGap(gap?.key ?? `seq:${seq}`, aroundRequest(seq))
    },

    /**
     * The session's shortcuts act on the reply at the end of the conversation: Stop or Cancel
     * retry; Retry now or Regenerate. False when the shortcut has nothing to act on.
     */
    shortcut(id: TailShortcut): boolean {
      const tail = snapshot.messages.findLast((m) => !m.superseded)
      if (!tail || tail.role !== 'agent' || !tail.reply_to) return false
      const anchorId = tail.reply_to
      const scheduler = runtime.retry.snapshot(sessionId).get(anchorId)
      const view = scheduler ? retryView(scheduler, runtime.clock.now()) : undefined
      const running = isActive(overlay(tail, runtime.live.get(tail.run_id)).status)
      const ownedByRetry = view !== undefined && isCancellable(view.status)
      if (id === 'stopOrCancel') {
        if (ownedByRetry) thread.cancelRetry(anchorId)
        else if (running && tail.run_id) thread.stop(tail.run_id)
        else return false
        return true
      }
      if (view && isWaiting(view.status)) thread.retryNow(anchorId)
      else if (!running && !ownedByRetry) thread.regenerate(anchorId)
      else return false
      return true
    },
  }
  return thread
}

function sessionEntries(entries: readonly OutboxEntry[], sessionId: string): readonly OutboxEntry[] {
  return entries.filter((e) => e.sessionId === sessionId)
}

function sameEntries(a: readonly OutboxEntry[], b: readonly OutboxEntry[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry === b[i])
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i])
}

function withItem(set: ReadonlySet<string>, item: string): ReadonlySet<string> {
  return new Set([...set, item])
}

function withoutItem(set: ReadonlySet<string>, item: string): ReadonlySet<string> {
  const next = new Set(set)
  next.delete(item)
  return next.size === 0 ? NONE : next
}
