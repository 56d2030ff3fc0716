/**
 * The chat runtime: the daemon client and the React-free core every chat hook shares (the keyed
 * store and what lives in it, the live-run store and its stream follower, the tier 2 scheduler).
 * No React: the chat view reaches it through its provider (src/chat/runtime.tsx); only tests,
 * stories and the app shell build one.
 */
import { v4 as uuidv4 } from 'uuid'
import { createLiveRunStore, type LiveRunStore } from '../live/live-runs'
import { createRunFollower, type HistoryRefresher, type RunFollower } from '../live/run-follower'
import { createStopOutbox, type StopOutbox } from '../live/stop-outbox'
import type { NetworkSource, WakeSource } from '../retry/browser'
import { createLazyRetryScheduler } from '../retry/lazy-scheduler'
import type { RetryScheduler } from '../retry/scheduler'
import { createDrafts, type Drafts } from '../send/drafts'
import { createOutbox, type Outbox } from '../send/outbox'
import { browserLocalStorage, browserStorageWatcher, createKeyedStore, type KeyedStore, type StorageBackend } from '../storage/keyed-store'
import { browserLocks, type LockManagerLike } from '../storage/locks'
import { browserTabChannel, type TabChannel } from '../storage/tab-channel'
import type { DaemonClient } from '../wire/http'
import type { FollowRun } from '../wire/worker-follow'

export type { HistoryRefresher } from '../live/run-follower'

export type ChatRuntime = {
  client: DaemonClient
  store: KeyedStore
  outbox: Outbox
  drafts: Drafts
  live: LiveRunStore
  follower: RunFollower
  /** Stops the daemon could not hear when pressed, sent when it answers again. */
  stops: StopOutbox
  retry: RetryScheduler
  /**
   * Clock for retry deadlines and timestamps; injected so tests can replace it. `fromDaemon`
   * places a daemon time (tier 1's `retry_at`, `retry_after_until`) on it, corrected by the
   * offset measured from `Date` headers.
   */
  clock: { now(): number; fromDaemon(daemonMs: number): number }
  /** The locks shared by the tabs (one per sent id, one per dispatched attempt). */
  locks: LockManagerLike
  /** Word between the tabs of this browser. */
  tabs: TabChannel
  /** Tells the other tabs that a session's history changed here (a send, a stop, a regenerate). */
  historyChanged: (sessionId: string) => void
  /** Makes a `client_message_id`: a v4 UUID, also outside secure contexts (plain http on a LAN). */
  newId: () => string
  /** Connects the core to the query cache that holds history (the providers do this). */
  connectHistory: (refresh: HistoryRefresher) => () => void
}

/** What a runtime shares with the other tabs, and how it hears the browser; each injectable for tests. */
export type ChatRuntimeOptions = {
  /**
   * Between the tabs; BroadcastChannel (or storage events) by default, with the keyed store's
   * changes heard from the browser's `storage` event. An injected channel (tests) carries both.
   */
  tabs?: TabChannel
  /** Web Locks by default. */
  locks?: LockManagerLike
  /** `navigator.onLine` and its events by default. */
  network?: NetworkSource
  wake?: WakeSource
  /** Reads a run's stream; on the page by default (main.tsx hands in the stream worker's). */
  follow?: FollowRun
  /** The browser's clock; `Date.now` by default. */
  now?: () => number
}

/**
 * Builds a runtime over the given client, with the origin's localStorage when there is one: the
 * drafts, the unsent messages, the cancelled retries and the armed schedules are shared by the
 * tabs of a browser and outlive a tab.
 */
export function createChatRuntime(
  client: DaemonClient,
  storage: StorageBackend | undefined = browserLocalStorage(),
  { tabs: injectedTabs, locks = browserLocks(), network, wake, follow, now = () => Date.now() }: ChatRuntimeOptions = {},
): ChatRuntime {
  const tabs = injectedTabs ?? browserTabChannel()
  const watcher = injectedTabs ? undefined : browserStorageWatcher()
  const store = createKeyedStore(storage, { channel: tabs, ...(watcher ? { watcher } : {}) })
  const clock = { now, fromDaemon: (daemonMs: number) => client.daemonClock.toLocal(daemonMs) }
  let refresher: HistoryRefresher | undefined
  // Reads asked for before the providers connected are made once they do.
  const stale = new Set<string>()
  const refreshHistory: HistoryRefresher = (sessionId, settled, reason) => {
    if (refresher) return refresher(sessionId, settled, reason)
    stale.add(sessionId)
    return Promise.resolve()
  }
  const historyChanged = (sessionId: string) => tabs.post({ kind: 'history', sessionId })
  // Another tab sent, stopped or regenerated: this tab reads that session again, so a tab that
  // did not send still sees the run, its failure and the retry.
  tabs.subscribe((message) => {
    if (message.kind === 'history') void refreshHistory(message.sessionId)
  })
  const live = createLiveRunStore({ store, clock, fromDaemon: clock.fromDaemon })
  const stops = createStopOutbox({
    store,
    client,
    locks,
    clock,
    onSent: (sid) => {
      historyChanged(sid)
      void refreshHistory(sid, undefined, 'ended')
    },
  })
  return {
    client,
    store,
    outbox: createOutbox(store),
    drafts: createDrafts(store),
    live,
    // A stream connected again is the daemon answering: the stops it could not hear go now.
    follower: createRunFollower({ client, live, refreshHistory, onReconnect: () => stops.flush(), ...(follow ? { follow } : {}) }),
    stops,
    // Its chunk arrives after the page's: nothing is armed before the first history read anyway.
    retry: createLazyRetryScheduler({
      client,
      clock,
      store,
      locks,
      ...(network ? { network } : {}),
      ...(wake ? { wake } : {}),
      // A regenerate accepted (or a stray run cancelled) here is news for the other tabs too.
      refreshHistory: (sid) => {
        historyChanged(sid)
        void refreshHistory(sid)
      },
    }),
    clock,
    locks,
    tabs,
    historyChanged,
    newId: () => uuidv4(),
    connectHistory(refresh) {
      refresher = refresh
      for (const sessionId of stale) void refresh(sessionId)
      stale.clear()
      return () => {
        if (refresher === refresh) refresher = undefined
      }
    },
  }
}
