/**
 * The live-run store: what the client has read from each run's event stream. Frames go in; one
 * snapshot per run comes out, rebuilt at most once per pacing gap (50 ms, see ./pacing) however
 * many deltas arrived, so a reply streaming 2,000 deltas a second costs twenty renders a second. It is the one
 * place streamed text lives: history stays the daemon's word, and this store is laid over it
 * when a message is shown (`overlay`).
 *
 * The reply's agent steps (`parts`, see ./parts) are paced the same way: a frame records what it
 * adds, the flush joins it once and copies only the parts it touched.
 *
 * For a reload it keeps only what reattaching needs (the last event id, the text length and the
 * shape of the parts it had reached), written at most once a second and when the page goes away,
 * never per delta. The reload cuts history's parts back to that shape and the stream carries on
 * after that event (`begin`), so the steps read as they would have without the reload.
 */
import { z } from 'zod/mini'
import type { KeyedStore, Slot } from '../storage/keyed-store'
import { createListeners } from '../storage/listeners'
import { isActive } from '../wire/status'
import type { LinkState } from '../wire/events'
import { usageSchema, type Message, type MessageStatus, type Part, type StreamFrame, type Usage, type WireError } from '../wire/types'
import { browserInput, frameOrTimeout, pacedFrames, smoothedRate, streamedChars, streamFlushGapFor, yieldingToInput, type FlushScheduler } from './pacing'
import { answerText, createPartsBuilder, cutToMarks, historyParts, partMarkSchema, type LivePart, type PartMark, type PartsBuilder, type StepFrame } from './parts'

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
  /** The answer so far: the text parts joined. */
  content: string
  /** The reply's steps in the order of their first event; a part no frame changed keeps its object across snapshots. */
  parts: readonly LivePart[]
  /** What the run has spent so far, as its last `usage` event said. */
  usage?: Usage
  /** Frames skipped because they made no sense (an event for a tool the stream never named, or one that had ended). */
  unreadable: number
  /** When the first `reasoning` frame came, on the browser's clock. */
  reasoningStartedAt?: number
  /** When the first frame after the thinking began that was not reasoning came (the agent stopped thinking), on the browser's clock. */
  reasoningEndedAt?: number
  error?: WireError
  /** Runs ahead of this one while queued. */
  position?: number
  /** Set while tier 1 waits; cleared by the agent's next step (text, reasoning or a tool) or the run's end. */
  tier1?: Tier1Wait
  /** Tier 1 waits seen in this run so far (announced once each). */
  tier1Waits: number
  lastEventId: number | undefined
  /** The reply's message id, as the stream's `start`, `done` or `cancelled` told it. */
  messageId?: string
  /**
   * The stream's connection while it is not open: `lost` or `unreachable` as the client
   * reattaches. Never a status of the run: the run may well go on in the daemon meanwhile.
   */
  connection?: Exclude<LinkState, 'open'>
}

/** A message as shown: history with the stream laid over it, and where its state came from. */
export type ShownMessage = Omit<Message, 'parts'> & {
  /** The steps: the stream's while it is the source, history's once history has the run's end. */
  parts?: LivePart[]
  /** `stream` while the stream is ahead of history; `history` once history has the run's end. */
  source: 'history' | 'stream'
  tier1?: Tier1Wait
  position?: number
  /** The stream's observation of the agent's thinking (see LiveRun), whichever the source: history keeps no such time. */
  reasoningStartedAt?: number
  reasoningEndedAt?: number
  /** Set while the run is going and its stream's connection is lost (see LiveRun). */
  connection?: Exclude<LinkState, 'open'>
}

/**
 * What a reload needs to reattach to a run: where to resume, and the shape the text (`length`)
 * and the parts had there, so history's copy, read later and possibly further on, can be cut back
 * to that point. What the stream alone knew then (usage, skipped frames, thinking times) rides along.
 */
const reattachSchema = z.object({
  sessionId: z.string(),
  lastEventId: z.number(),
  length: z.int().check(z.minimum(0)),
  // Absent from a point saved before parts were kept: that client saw text only.
  parts: z.optional(z.array(partMarkSchema)),
  usage: z.optional(usageSchema),
  unreadable: z.optional(z.int().check(z.minimum(0))),
  /** The thinking as the browser timed it, and the event that began it (see `apply`). */
  thought: z.optional(z.object({ from: z.number(), startedAt: z.number(), endedAt: z.optional(z.number()) })),
})
type Reattach = z.infer<typeof reattachSchema>

export const LIVE_RUN_NAMESPACE = 'live-run'
/** How many attempts tier 1 made in each run it retried, kept for a reload and the other tabs. */
const TIER1_ATTEMPTS_NAMESPACE = 'tier1-attempts'
/** Runs whose tier 1 attempts are kept; the oldest go first. */
export const TIER1_ATTEMPTS_LIMIT = 100
const tier1AttemptsSchema = z.array(z.object({ run: z.string(), attempts: z.int().check(z.minimum(1)) }))
/** Longest gap between two saves of a run's reattach point while it streams. */
export const SAVE_EVERY_MS = 1000

type Entry = {
  /** The working record, changed in place per frame; never handed out. */
  state: Omit<LiveRun, 'content' | 'parts'>
  /** The text as of the last flush, and the deltas since, joined once at flush time. */
  content: string
  pending: string[]
  /** The parts, built the same way. */
  steps: PartsBuilder
  /** The id of the first `reasoning` event: only a later event ends the thinking. */
  thoughtFrom?: number
  /** Each tool's name by its call id, for news of a failure (the result event names only the id). */
  toolNames: Map<string, string>
  /**
   * When history says each of its tools started and ended (on this browser's clock). Tool events
   * carry no time, so a stream replayed from its first event (a second tab, a reload that could
   * not resume) would time every tool from the replay; the daemon's own times stand instead.
   */
  toolTimes: ReadonlyMap<string, { startedAt: number; endedAt: number | undefined }>
  /** What `get` returns: rebuilt at flush when something changed. */
  snapshot: LiveRun
  dirty: boolean
  slot: Slot<Reattach>
  savedAt: number
}

/** A run's end: its status, and no tier 1 wait or connection trouble said of it any more. */
function endRun(state: { status: MessageStatus; tier1?: unknown; connection?: unknown }, status: MessageStatus): void {
  state.status = status
  state.tier1 = undefined
  state.connection = undefined
}

/**
 * News of a session's runs worth one polite announcement: tier 1 has started a wait, a tool
 * failed (the run goes on, so no end of the reply will say it), a run's connection was lost or
 * is back.
 */
export type LiveNews =
  | { seq: number; runId: string; kind: 'tier1'; wait: Tier1Wait }
  | { seq: number; runId: string; kind: 'toolFailed'; name: string; error: WireError | undefined }
  | { seq: number; runId: string; kind: 'connection'; state: 'lost' | 'back' }

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

export function createLiveRunStore({ store, clock = Date, schedule: givenSchedule, fromDaemon = (ms) => ms }: LiveRunStoreOptions) {
  /** Characters streamed (text, reasoning, tool input) since the last flush, and when that was. */
  let streamed = 0
  let flushedAt: number | undefined
  /** How fast the streams write, in characters a second, smoothed over the last flushes (see smoothedRate). */
  let rate = 0
  const input = browserInput()
  const schedule = givenSchedule ?? pacedFrames(streamFlushGapFor(() => rate, input), clock, yieldingToInput(frameOrTimeout, input))
  const entries = new Map<string, Entry>()
  const listeners = createListeners<string>()
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
  const newsListeners = createListeners<string>()
  let newsSeq = 0
  let cancelFlush: (() => void) | undefined

  const slotOf = (runId: string) => store.slot(LIVE_RUN_NAMESPACE, runId, reattachSchema)

  function notify(runId: string) {
    listeners.notify(runId)
  }

  function flush() {
    cancelFlush?.()
    cancelFlush = undefined
    const now = clock.now()
    if (flushedAt !== undefined) rate = smoothedRate(rate, streamed, now - flushedAt)
    streamed = 0
    flushedAt = now
    for (const [runId, entry] of entries) {
      if (!entry.dirty) continue
      entry.dirty = false
      if (entry.pending.length > 0) {
        entry.content += entry.pending.join('')
        entry.pending = []
      }
      entry.snapshot = { ...entry.state, content: entry.content, parts: entry.steps.flush() }
      notify(runId)
    }
  }

  function tell(sessionId: string, item: LiveNews) {
    news.set(sessionId, item)
    newsListeners.notify(sessionId)
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
    const point: Reattach = { sessionId: state.sessionId, lastEventId: state.lastEventId, length, parts: entry.steps.marks() }
    if (state.usage) point.usage = state.usage
    if (state.unreadable > 0) point.unreadable = state.unreadable
    if (entry.thoughtFrom !== undefined && state.reasoningStartedAt !== undefined) {
      point.thought = { from: entry.thoughtFrom, startedAt: state.reasoningStartedAt }
      if (state.reasoningEndedAt !== undefined) point.thought.endedAt = state.reasoningEndedAt
    }
    entry.slot.write(point)
  }

  /** A step the agent published: the run is writing, and tier 1 (which never retries after one) is over. */
  /** Applies a step frame; false when it made no sense and was skipped (and counted). */
  function step(entry: Entry, frame: StepFrame, now: number): boolean {
    const { state } = entry
    if (!entry.steps.apply(frame, now)) {
      state.unreadable += 1
      return false
    }
    state.status = 'streaming'
    state.position = undefined
    state.tier1 = undefined
    return true
  }

  /** Records the stream's connection; false when nothing changed (the same state, or a run that has ended). */
  function setConnection(entry: Entry, link: LinkState): boolean {
    const { state } = entry
    const was = state.connection ?? 'open'
    if (was === link || !isActive(state.status)) return false
    state.connection = link === 'open' ? undefined : link
    if (was === 'open') tell(state.sessionId, { seq: ++newsSeq, runId: state.runId, kind: 'connection', state: 'lost' })
    else if (link === 'open') tell(state.sessionId, { seq: ++newsSeq, runId: state.runId, kind: 'connection', state: 'back' })
    entry.dirty = true
    return true
  }

  /** Applies one frame, come at `now`, to the working record. */
  function apply(entry: Entry, frame: StreamFrame, now: number): void {
    const { state } = entry
    // An id at or before the last one is a replay of what was already applied.
    if (state.lastEventId !== undefined && frame.id <= state.lastEventId) return
    state.lastEventId = frame.id
    // First come, first kept: a later reasoning phase (after a tool) does not restart the count,
    // and a replay from the first event after a reload keeps the times the page saw live (an
    // event before the thinking, replayed, does not end it).
    if (frame.type === 'reasoning') {
      entry.thoughtFrom ??= frame.id
      state.reasoningStartedAt ??= now
    } else if (entry.thoughtFrom !== undefined && frame.id > entry.thoughtFrom && state.reasoningStartedAt !== undefined) {
      state.reasoningEndedAt ??= Math.max(now, state.reasoningStartedAt)
    }
    switch (frame.type) {
      case 'queued':
        state.status = 'queued'
        state.position = frame.position
        break
      case 'start':
        // A replay from the first event rebuilds the text, the steps and the spend from nothing.
        entry.pending = []
        entry.content = ''
        entry.steps = createPartsBuilder()
        entry.toolNames.clear()
        state.usage = undefined
        state.unreadable = 0
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
        if (retryAt > now) tell(state.sessionId, { seq: ++newsSeq, runId: state.runId, kind: 'tier1', wait })
        break
      }
      case 'delta':
        entry.pending.push(frame.text)
        step(entry, frame, now)
        break
      case 'tool_call':
        if (step(entry, frame, entry.toolTimes.get(frame.tool_call_id)?.startedAt ?? now)) entry.toolNames.set(frame.tool_call_id, frame.name)
        break
      case 'tool_result':
        if (step(entry, frame, entry.toolTimes.get(frame.tool_call_id)?.endedAt ?? now) && frame.status === 'failed') {
          tell(state.sessionId, { seq: ++newsSeq, runId: state.runId, kind: 'toolFailed', name: entry.toolNames.get(frame.tool_call_id) ?? '', error: frame.error })
        }
        break
      case 'reasoning':
      case 'tool_input':
      case 'tool_approval':
      case 'tool_running':
        step(entry, frame, now)
        break
      case 'usage':
        state.usage = { input_tokens: frame.input_tokens, output_tokens: frame.output_tokens, ...(frame.cost_usd === undefined ? {} : { cost_usd: frame.cost_usd }) }
        break
      case 'done':
      case 'cancelled':
        endRun(state, frame.type === 'done' ? 'complete' : 'cancelled')
        state.messageId = frame.message_id
        break
      case 'error':
        endRun(state, 'failed')
        state.error = { code: frame.code ?? '', message: frame.message }
        break
    }
    entry.dirty = true
  }

  return {
    /**
     * Starts (or picks up) the record of a run. `historyContent` and `historyParts` are what history
     * holds of its reply: with a saved reattach point that history has reached, history's parts are
     * cut back to that point and the stream resumes after its event, so the frames since apply on
     * top as they did before the reload; otherwise the stream replays from the first event. Until
     * the first frame the run reads as history has it (`historyStatus`). Returns the event id to
     * resume after.
     */
    begin(sessionId: string, runId: string, historyContent: string, historyStatus: MessageStatus = 'queued', historyParts?: readonly Part[]): number | undefined {
      const known = entries.get(runId)
      if (known) return known.state.lastEventId
      const slot = slotOf(runId)
      const saved = slot.read()
      const ours = saved && saved.sessionId === sessionId ? saved : undefined
      const base = ours && resumeFrom(ours, historyContent, historyParts)
      const resume = base ? ours : undefined
      const state: Omit<LiveRun, 'content' | 'parts'> = {
        runId,
        sessionId,
        status: resume ? 'streaming' : historyStatus,
        unreadable: resume?.unreadable ?? 0,
        tier1Waits: 0,
        lastEventId: resume?.lastEventId,
      }
      if (resume?.usage) state.usage = resume.usage
      // The browser saw the thinking as it happened; a replay from the first event would see it in a burst.
      const thought = ours?.thought
      if (thought) state.reasoningStartedAt = thought.startedAt
      if (thought?.endedAt !== undefined) state.reasoningEndedAt = thought.endedAt
      const steps = createPartsBuilder(base)
      const content = base ? answerText(base) : ''
      const snapshot = { ...state, content, parts: steps.flush() }
      const toolNames = new Map((base ?? []).flatMap((part) => (part.type === 'tool' ? [[part.tool_call_id, part.name] as const] : [])))
      const toolTimes = new Map(
        (historyParts ?? []).flatMap((part) =>
          part.type === 'tool' ? [[part.tool_call_id, { startedAt: fromDaemon(part.started_at), endedAt: part.ended_at === undefined ? undefined : fromDaemon(part.ended_at) }] as const] : [],
        ),
      )
      entries.set(runId, { state, content, pending: [], steps, thoughtFrom: thought?.from, toolNames, toolTimes, snapshot, dirty: false, slot, savedAt: clock.now() })
      notify(runId)
      return state.lastEventId
    },

    /** One frame from the run's stream. */
    frame(runId: string, frame: StreamFrame): void {
      const entry = entries.get(runId)
      if (!entry) return
      const now = clock.now()
      streamed += streamedChars(frame)
      // A frame is the daemon talking, whoever read it (a stream picked up on the page after the worker broke).
      if (entry.state.connection !== undefined) setConnection(entry, 'open')
      apply(entry, frame, now)
      const ended = !isActive(entry.state.status)
      if (ended || now - entry.savedAt >= SAVE_EVERY_MS) save(entry)
      // The end of a run is shown at once; text waits for the next frame.
      if (ended) flush()
      else requestFlush()
    },

    /** The stream could not be read to its end: the reply says why until history has its outcome. */
    fail(runId: string, error: WireError): void {
      const entry = entries.get(runId)
      if (!entry) return
      Object.assign(entry.state, { status: 'failed', tier1: undefined, connection: undefined, error })
      entry.dirty = true
      save(entry)
      flush()
    },

    /**
     * The stream's connection changed (see LinkState). Shown at once, with what streamed before
     * it; a loss and the return are news, the step from lost to unreachable is not.
     */
    connection(runId: string, link: LinkState): void {
      const entry = entries.get(runId)
      if (!entry || !setConnection(entry, link)) return
      flush()
    },

    /** The run as last flushed; the same object until the next flush that changed it. */
    get(runId: string | undefined): LiveRun | undefined {
      return runId === undefined ? undefined : entries.get(runId)?.snapshot
    },

    subscribe(runId: string, listener: () => void): () => void {
      return listeners.subscribe(runId, listener)
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
      return newsListeners.subscribe(sessionId, listener)
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
 * History's parts cut back to a saved reattach point, or undefined when history has not reached it
 * (or disagrees with it): then the stream replays from its first event instead.
 */
function resumeFrom(saved: Reattach, historyContent: string, parts: readonly Part[] | undefined): LivePart[] | undefined {
  // A point saved before parts were kept described the text alone.
  const marks: PartMark[] = saved.parts ?? (saved.length > 0 ? [{ type: 'text', length: saved.length }] : [])
  const base = cutToMarks(historyParts(historyContent, parts), marks)
  // The text at that point is the text parts joined; a save whose two halves disagree is not trusted.
  return base && answerText(base).length === saved.length ? base : undefined
}

/**
 * Lays what was streamed over what history says. History wins once it records the run as ended
 * (it carries the persisted error and retry classification); until then the stream does.
 */
export function overlay(message: Message, live: LiveRun | undefined): ShownMessage {
  const historyActive = message.status === 'queued' || message.status === 'streaming'
  if (!live) return { ...message, source: 'history' }
  const thought: Pick<ShownMessage, 'reasoningStartedAt' | 'reasoningEndedAt'> = {}
  if (live.reasoningStartedAt !== undefined) thought.reasoningStartedAt = live.reasoningStartedAt
  if (live.reasoningEndedAt !== undefined) thought.reasoningEndedAt = live.reasoningEndedAt
  if (!historyActive) return { ...message, ...thought, source: 'history' }
  // History's usage is left out with its parts: the stream's state is shown whole, never mixed with a later read.
  const { usage: _historyUsage, ...rest } = message
  // Message types its parts as a mutable list; the snapshot's is shared and nobody writes to it.
  const shown: ShownMessage = { ...rest, ...thought, content: live.content, parts: live.parts as LivePart[], status: live.status, source: 'stream' }
  if (live.usage) shown.usage = live.usage
  if (live.error) shown.error = live.error
  if (live.tier1) shown.tier1 = live.tier1
  if (live.position !== undefined) shown.position = live.position
  if (live.connection && isActive(live.status)) shown.connection = live.connection
  return shown
}
