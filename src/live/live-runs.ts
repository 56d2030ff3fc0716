/**
 * The live-run store: what the client has read from each run's event stream. Frames go in; one
 * snapshot per run comes out, rebuilt at most once per pacing gap (50 ms, see ./pacing) however
 * many deltas arrived, so a reply streaming 2,000 deltas a second costs twenty renders a second. It is the one
 * place streamed text lives: history stays the daemon's word, and this store is laid over it
 * when a message is shown (`overlay`).
 *
 * For a reload it keeps only what reattaching needs (the last event id and the text length it
 * had reached), written at most once a second and when the page goes away, never per delta.
 */
import { z } from 'zod/mini'
import type { KeyedStore, Slot } from '../storage/keyed-store'
import type { Message, MessageStatus, StreamFrame, WireError } from '../wire/types'
import { browserInput, frameOrTimeout, pacedFrames, STREAM_FLUSH_GAP_MS, yieldingToInput, type FlushScheduler } from './pacing'

/** Tier 1 (the daemon's in-run retry) waiting before its next attempt, as the stream told it. */
export type Tier1Wait = {
  /** The attempt tier 1 makes next (2 or 3). */
  attempt: number
  maxAttempts: number
  /** When it makes it, on the browser's clock (the daemon's `retry_at` corrected for skew; epoch ms). */
  retryAt: number
  /** The failure it is retrying. */
  code: string
}

/** One run as the stream has it. Immutable: a new object after every flush that changed it. */
export type LiveRun = {
  runId: string
  sessionId: string
  status: MessageStatus
  content: string
  error?: WireError
  /** Runs ahead of this one while queued. */
  position?: number
  /** Set while tier 1 waits; cleared by the next delta or the run's end. */
  tier1?: Tier1Wait
  /** Tier 1 waits seen in this run so far (announced once each). */
  tier1Waits: number
  lastEventId: number | undefined
  /** The reply's message id, as the stream's `start`, `done` or `cancelled` told it. */
  messageId?: string
}

/** A message as shown: history with the stream laid over it, and where its state came from. */
export type ShownMessage = Message & {
  /** `stream` while the stream is ahead of history; `history` once history has the run's end. */
  source: 'history' | 'stream'
  tier1?: Tier1Wait
  position?: number
}

/** What a reload needs to reattach to a run. */
const reattachSchema = z.object({ sessionId: z.string(), lastEventId: z.number(), length: z.int().check(z.minimum(0)) })
type Reattach = z.infer<typeof reattachSchema>

export const LIVE_RUN_NAMESPACE = 'live-run'
/** How many attempts tier 1 made in each run it retried, kept for a reload and the other tabs. */
export const TIER1_ATTEMPTS_NAMESPACE = 'tier1-attempts'
/** Runs whose tier 1 attempts are kept; the oldest go first. */
export const TIER1_ATTEMPTS_LIMIT = 100
const tier1AttemptsSchema = z.array(z.object({ run: z.string(), attempts: z.int().check(z.minimum(1)) }))
/** Longest gap between two saves of a run's reattach point while it streams. */
export const SAVE_EVERY_MS = 1000

type Entry = {
  /** The working record, changed in place per frame; never handed out. */
  state: Omit<LiveRun, 'content'>
  /** The text as of the last flush, and the deltas since, joined once at flush time. */
  content: string
  pending: string[]
  /** What `get` returns: rebuilt at flush when something changed. */
  snapshot: LiveRun
  dirty: boolean
  slot: Slot<Reattach>
  savedAt: number
}

/** News of a session's runs worth one polite announcement: tier 1 has started a wait. */
export type LiveNews = { seq: number; runId: string; kind: 'tier1'; wait: Tier1Wait }

export type LiveRunStoreOptions = {
  store: KeyedStore
  clock?: { now(): number }
  schedule?: FlushScheduler
  /**
   * Places a daemon time on `clock` (the offset measured from `Date` headers): tier 1's
   * `retry_at` is the daemon's, and a browser clock minutes off must still count down right.
   */
  fromDaemon?: (daemonMs: number) => number
}

const isActive = (status: MessageStatus) => status === 'queued' || status === 'streaming'

export function createLiveRunStore({ store, clock = Date, schedule = pacedFrames(STREAM_FLUSH_GAP_MS, clock, yieldingToInput(frameOrTimeout, browserInput())), fromDaemon = (ms) => ms }: LiveRunStoreOptions) {
  const entries = new Map<string, Entry>()
  const listeners = new Map<string, Set<() => void>>()
  /**
   * Attempts tier 1 made in each run it retried; kept after the run's record is let go, and in
   * the keyed store, so the tier 2 line that follows still says "the daemon tried N times" after
   * a reload and in every tab.
   */
  const tier1Attempts = new Map<string, number>()
  const tier1Slot = store.slot(TIER1_ATTEMPTS_NAMESPACE, 'v1', tier1AttemptsSchema)
  function rememberTier1(runId: string, attempt: number) {
    const known = tier1Attempts.get(runId) ?? 0
    if (attempt <= known) return
    tier1Attempts.set(runId, attempt)
    const kept = (tier1Slot.read() ?? []).filter((e) => e.run !== runId)
    tier1Slot.write([...kept, { run: runId, attempts: attempt }].slice(-TIER1_ATTEMPTS_LIMIT))
  }
  const news = new Map<string, LiveNews>()
  const newsListeners = new Map<string, Set<() => void>>()
  let newsSeq = 0
  let cancelFlush: (() => void) | undefined

  const slotOf = (runId: string) => store.slot(LIVE_RUN_NAMESPACE, runId, reattachSchema)

  function notify(runId: string) {
    for (const listener of [...(listeners.get(runId) ?? [])]) listener()
  }

  function flush() {
    cancelFlush?.()
    cancelFlush = undefined
    for (const [runId, entry] of entries) {
      if (!entry.dirty) continue
      entry.dirty = false
      if (entry.pending.length > 0) {
        entry.content += entry.pending.join('')
        entry.pending = []
      }
      entry.snapshot = { ...entry.state, content: entry.content }
      notify(runId)
    }
  }

  function tell(sessionId: string, item: LiveNews) {
    news.set(sessionId, item)
    for (const listener of [...(newsListeners.get(sessionId) ?? [])]) listener()
  }

  function requestFlush() {
    cancelFlush ??= schedule(flush)
  }

  function save(entry: Entry) {
    const { state } = entry
    entry.savedAt = clock.now()
    if (!isActive(state.status)) return entry.slot.write(undefined)
    if (state.lastEventId === undefined) return
    const length = entry.content.length + entry.pending.reduce((n, text) => n + text.length, 0)
    entry.slot.write({ sessionId: state.sessionId, lastEventId: state.lastEventId, length })
  }

  /** Applies one frame to the working record. */
  function apply(entry: Entry, frame: StreamFrame): void {
    const { state } = entry
    // An id at or before the last one is a replay of what was already applied.
    if (state.lastEventId !== undefined && frame.id <= state.lastEventId) return
    state.lastEventId = frame.id
    switch (frame.type) {
      case 'queued':
        state.status = 'queued'
        state.position = frame.position
        break
      case 'start':
        // A replay from the first event rebuilds the text from nothing.
        entry.pending = []
        entry.content = ''
        state.status = 'streaming'
        state.position = undefined
        state.messageId = frame.message_id
        break
      case 'retrying': {
        state.status = 'streaming'
        state.position = undefined
        const retryAt = fromDaemon(frame.retry_at)
        const wait = { attempt: frame.attempt, maxAttempts: frame.max_attempts, retryAt, code: frame.code }
        state.tier1 = wait
        state.tier1Waits += 1
        rememberTier1(state.runId, frame.attempt)
        // A wait already over is a replay (a reattach from the start): nothing to announce.
        if (retryAt > clock.now()) tell(state.sessionId, { seq: ++newsSeq, runId: state.runId, kind: 'tier1', wait })
        break
      }
      case 'delta':
        entry.pending.push(frame.text)
        state.status = 'streaming'
        state.tier1 = undefined
        break
      case 'done':
        state.status = 'complete'
        state.tier1 = undefined
        state.messageId = frame.message_id
        break
      case 'cancelled':
        state.status = 'cancelled'
        state.tier1 = undefined
        state.messageId = frame.message_id
        break
      case 'error':
        state.status = 'failed'
        state.tier1 = undefined
        state.error = { code: frame.code ?? '', message: frame.message }
        break
    }
    entry.dirty = true
  }

  return {
    /**
     * Starts (or picks up) the record of a run. `historyContent` is what history holds of its text:
     * with a saved reattach point whose text history already covers, the stream resumes after that
     * event; otherwise it replays from the first event. Until the first frame the run reads as
     * history has it (`historyStatus`). Returns the event id to resume after.
     */
    begin(sessionId: string, runId: string, historyContent: string, historyStatus: MessageStatus = 'queued'): number | undefined {
      const known = entries.get(runId)
      if (known) return known.state.lastEventId
      const slot = slotOf(runId)
      const saved = slot.read()
      const resume = saved && saved.sessionId === sessionId && historyContent.length >= saved.length ? saved : undefined
      const state: Omit<LiveRun, 'content'> = {
        runId,
        sessionId,
        status: resume ? 'streaming' : historyStatus,
        tier1Waits: 0,
        lastEventId: resume?.lastEventId,
      }
      const content = resume ? historyContent.slice(0, resume.length) : ''
      entries.set(runId, { state, content, pending: [], snapshot: { ...state, content }, dirty: false, slot, savedAt: clock.now() })
      notify(runId)
      return state.lastEventId
    },

    /** One frame from the run's stream. */
    frame(runId: string, frame: StreamFrame): void {
      const entry = entries.get(runId)
      if (!entry) return
      apply(entry, frame)
      const ended = !isActive(entry.state.status)
      if (ended || clock.now() - entry.savedAt >= SAVE_EVERY_MS) save(entry)
      // The end of a run is shown at once; text waits for the next frame.
      if (ended) flush()
      else requestFlush()
    },

    /** The stream could not be read to its end: the reply says why until history has its outcome. */
    fail(runId: string, error: WireError): void {
      const entry = entries.get(runId)
      if (!entry) return
      Object.assign(entry.state, { status: 'failed', tier1: undefined, error })
      entry.dirty = true
      save(entry)
      flush()
    },

    /** The run as last flushed; the same object until the next flush that changed it. */
    get(runId: string | undefined): LiveRun | undefined {
      return runId === undefined ? undefined : entries.get(runId)?.snapshot
    },

    subscribe(runId: string, listener: () => void): () => void {
      let set = listeners.get(runId)
      if (!set) listeners.set(runId, (set = new Set()))
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0) listeners.delete(runId)
      }
    },

    /** How many attempts tier 1 made in a run it retried (undefined when it never retried). */
    tier1AttemptsOf(runId: string | undefined): number | undefined {
      if (runId === undefined) return undefined
      return tier1Attempts.get(runId) ?? tier1Slot.read()?.find((e) => e.run === runId)?.attempts
    },

    /** The latest news of a session's runs, for the polite live region. */
    news(sessionId: string): LiveNews | undefined {
      return news.get(sessionId)
    },

    subscribeNews(sessionId: string, listener: () => void): () => void {
      let set = newsListeners.get(sessionId)
      if (!set) newsListeners.set(sessionId, (set = new Set()))
      set.add(listener)
      return () => void set.delete(listener)
    },

    /** Writes every streaming run's reattach point now (the page is going away). */
    persist(): void {
      for (const entry of entries.values()) save(entry)
    },

    /** Forgets a run the client stopped following; a run still going keeps its reattach point. */
    forget(runId: string): void {
      const entry = entries.get(runId)
      if (!entry) return
      save(entry)
      entries.delete(runId)
      notify(runId)
    },

    dispose(): void {
      cancelFlush?.()
      cancelFlush = undefined
    },
  }
}

export type LiveRunStore = ReturnType<typeof createLiveRunStore>

/**
 * Lays what was streamed over what history says. History wins once it records the run as ended
 * (it carries the persisted error and retry classification); until then the stream does.
 */
export function overlay(message: Message, live: LiveRun | undefined): ShownMessage {
  const historyActive = message.status === 'queued' || message.status === 'streaming'
  if (!live || !historyActive) return { ...message, source: 'history' }
  const shown: ShownMessage = { ...message, content: live.content, status: live.status, source: 'stream' }
  if (live.error) shown.error = live.error
  if (live.tier1) shown.tier1 = live.tier1
  if (live.position !== undefined) shown.position = live.position
  return shown
}
