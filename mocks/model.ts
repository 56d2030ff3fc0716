/**
 * The mock daemon's state and rules: sessions, messages, runs with their event logs, the fault
 * plan and the request log. It knows nothing of HTTP; the handlers in `mocks/handlers/` turn its
 * results into responses. Time comes from `Date.now()` (or `options.now`) and the global
 * `setTimeout`, so tests that fake those two drive it exactly.
 */
import type {
  CancelReceipt,
  DecisionReceipt,
  Message,
  RefusalCode,
  RegenerateReceipt,
  Run,
  RunStatus,
  SearchHit,
  SendReceipt,
  Session,
  StreamEventName,
  ToolDecision,
  ToolPart,
} from '../src/wire/types'
import {
  DERIVED_TITLE_LENGTH,
  MAX_CONTENT_LENGTH,
  MAX_TITLE_LENGTH,
  STREAM_EVENT_NAMES,
  TERMINAL_EVENTS,
  TIER1_MAX_ATTEMPTS,
  TOOL_DECISIONS,
} from '../src/wire/types'
import { isSendFault, parseOutcome, validatePlan } from './faults'
import { pageOf, searchOf } from './history'
import { cutOutput, foldEvent, openTools } from './parts'
import { type Script, type Step, scriptFor } from './script'

export { replyFor } from './replies'
export { DELTAS_BEFORE_ERROR } from './script'

/** Where the browser keeps the daemon between reloads. */
export type DaemonStorage = { load(): string | null; save(state: string): void }

export type DaemonOptions = {
  /** Loaded once at creation and saved after every change; absent means memory only. */
  storage?: DaemonStorage
  /** Pause before each streamed step (delta, or the failure that replaces the first one). */
  deltaDelayMs?: number
  /** Pause between deltas of the `slow` outcome; defaults to 7.5 × `deltaDelayMs` (300 ms). */
  slowDelayMs?: number
  now?: () => number
}

/** One exchange `fill` writes: the operator's message, when it was sent, its run's outcome (`ok` by default) and how many times it was regenerated. */
export type FilledExchange = { content: string; at: number; outcome?: string; regenerations?: number }

/** One entry of the request log. `path` includes the query string. */
type RequestRecord = { method: string; path: string; at: number }

/** One event of a run's log, as it goes on the wire (`data` already serialized). */
export type StreamEvent = { id: number; event: StreamEventName; data: string }

/** A run as `state()` shows it: the wire record plus the outcome it was planned with. */
type MockRun = Run & { outcome: string; created_at: number }

/** What `state()` returns; every array is a copy. */
export type DaemonState = {
  sessions: Session[]
  messages: Message[]
  runs: MockRun[]
  requests: RequestRecord[]
  /** Outcomes still waiting in the fault plan. */
  plan: string[]
}

/** A refused request: the HTTP status and the body the design page prescribes. */
export type Refusal = { status: number; body: { error: string; code: RefusalCode } }

export type Result<T> = { ok: true; value: T } | { ok: false; refusal: Refusal }

/**
 * What a live event stream is told. `drop` and `lag` are the stream faults: the connection ends
 * without a terminal event (after a `stream_lagged` frame for `lag`) while the run goes on.
 * `close` ends the stream because the daemon was reset or disposed. `silence`: the stream sends
 * nothing, not even a ping, until the run's next event (`silent:S`).
 */
export type StreamSignal =
  | { kind: 'event'; event: StreamEvent }
  | { kind: 'drop' }
  | { kind: 'lag' }
  | { kind: 'close' }
  | { kind: 'silence' }

/**
 * A stream attached to a run: the log after the client's last event id, then live signals.
 * `silent`: the run is in a silence, so the stream sends no ping until its next event.
 */
type Attachment = { backlog: StreamEvent[]; ended: boolean; silent: boolean; detach: () => void }

/** `?limit=&before=&after=` as the request gave them (each absent when not given). */
type PageParams = { limit?: string; before?: string; after?: string }

/** The result of an accepted send; `loseResponse` is the `accept_then_drop` fault. */
type SendOutcome = { receipt: SendReceipt; loseResponse: boolean }

/** The mock daemon. Handlers call the request methods; tests and the simulator call the rest. */
export type MockDaemon = {
  /** Copies of everything the daemon holds, for assertions and the simulator panel. */
  state(): DaemonState
  /** The daemon's clock: the times in its records, `retry_at` and `retry_after_until`, and its `Date` headers. */
  now(): number
  /** Replaces the pending fault plan; throws `UnknownOutcomeError` on an entry that is not an outcome. Returns it. */
  plan(faults: readonly string[]): string[]
  /** Forgets everything (sessions, runs, plan, request log) and ends live streams. */
  reset(): void
  /** Carries on the runs that were queued or running when the state was loaded. */
  resume(): void
  /** Stops every timer and ends live streams; the daemon does nothing afterwards. */
  dispose(): void
  /** Saves now instead of at the end of the current task (the browser calls it on `pagehide`). */
  flush(): void
  /** The event log of a run (copies), or `undefined` for an unknown run. */
  events(runId: string): StreamEvent[] | undefined
  /** Adds a request to the request log. */
  record(method: string, url: string): void
  /**
   * Writes finished exchanges into a session at once, each at its own time in the past, as if it
   * had run then: the operator message, its run played to the end in the daemon's clock (so tools
   * and reasoning take their script's time), and any regenerations, which supersede the reply
   * before. Nothing streams; each run keeps only its terminal event. Throws for an unknown
   * session, a session with a run going, or an outcome that does not end by itself.
   */
  fill(sessionId: string, exchanges: readonly FilledExchange[]): void

  listSessions(): Session[]
  createSession(body: unknown): Result<Session>
  /** `PATCH /sessions/:sid { title }`: the title trimmed, 1 to 200 characters. */
  renameSession(sessionId: string, body: unknown): Result<Session>
  /** `DELETE /sessions/:sid`: cancels its active runs (their streams get `cancelled`), then forgets it, its messages and runs. */
  deleteSession(sessionId: string): Result<null>
  listMessages(sessionId: string): Result<Message[]>
  /** `GET …/messages?limit=N[&before=S|&after=S]`: a page by `seq`, oldest first. */
  pageMessages(sessionId: string, params: PageParams): Result<{ messages: Message[]; has_more: boolean }>
  /** `GET …/messages?client_message_id=ID`: that operator message and the agent messages replying to it. */
  findMessages(sessionId: string, clientMessageId: string): Result<Message[]>
  /** `GET …/search?q=&limit=`: messages whose content, reasoning, tool names or inputs hold `q`. */
  search(sessionId: string, q: string | undefined, limit: string | undefined): Result<{ hits: SearchHit[]; has_more: boolean }>
  send(sessionId: string, body: unknown): Result<SendOutcome>
  regenerate(sessionId: string, messageId: string): Result<RegenerateReceipt>
  getRun(sessionId: string, runId: string): Result<Run>
  cancel(sessionId: string, runId: string): Result<CancelReceipt>
  /** `POST …/tools/:tcid/decision`: answers a tool awaiting approval, once; the same decision again changes nothing. */
  decide(sessionId: string, runId: string, toolCallId: string, body: unknown): Result<DecisionReceipt>
  /** `GET …/tools/:tcid/output`: the tool's whole output, however much of it travelled. */
  toolOutput(sessionId: string, runId: string, toolCallId: string): Result<string>
  /**
   * Attaches a listener to a run's stream. The backlog and the subscription are taken in one
   * synchronous step, so no event falls between them. An ended run has no live part.
   */
  attach(sessionId: string, runId: string, afterId: number, listener: (signal: StreamSignal) => void): Result<Attachment>
}

const DEFAULT_DELTA_DELAY_MS = 40
/** The largest page of history (`?limit=`) and of search hits. */
const MAX_PAGE = 1000

/** `decisions`: the operator's decision on each tool that asked, kept so a reload goes on from it. */
type StoredRun = MockRun & { events: StreamEvent[]; decisions?: Record<string, ToolDecision> }

type Snapshot = {
  version: 1
  /** Ids are `<prefix>_<tag><counter>`; the tag changes on reset so old ids never come back. */
  tag: string
  counter: number
  sessions: Session[]
  messages: Message[]
  runs: StoredRun[]
  requests: RequestRecord[]
  plan: string[]
}

const ENDED: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled'])
const MESSAGE_STATUS = {
  queued: 'queued',
  running: 'streaming',
  completed: 'complete',
  failed: 'failed',
  cancelled: 'cancelled',
} as const satisfies Record<RunStatus, NonNullable<Message['status']>>

function refusal(status: number, code: RefusalCode, error: string): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { status, body: { error, code } } }
}

function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function freshSnapshot(): Snapshot {
  return {
    version: 1,
    tag: Math.random().toString(36).slice(2, 6).padEnd(4, '0'),
    counter: 0,
    sessions: [],
    messages: [],
    runs: [],
    requests: [],
    plan: [],
  }
}

const hasStrings = (value: unknown, keys: readonly string[]): boolean =>
  isRecord(value) && keys.every((key) => typeof value[key] === 'string')

const EVENT_NAMES: ReadonlySet<string> = new Set(STREAM_EVENT_NAMES)

/** A logged event of a save: the daemon replays it as it is, so its name must be one the wire knows. */
function isStoredEvent(value: unknown): boolean {
  return isRecord(value) && typeof value.id === 'number' && typeof value.data === 'string' && EVENT_NAMES.has(String(value.event))
}

/**
 * Reads saved state, or `undefined` when it is missing or not ours. Checks the shape the daemon
 * relies on rather than every field: a half-valid save is discarded whole, never patched.
 */
function readSnapshot(text: string | null): Snapshot | undefined {
  if (text === null) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(value) || value.version !== 1 || typeof value.tag !== 'string' || typeof value.counter !== 'number') {
    return undefined
  }
  const { sessions, messages, runs, requests, plan } = value
  if (![sessions, messages, runs, requests, plan].every(Array.isArray)) return undefined
  const valid =
    (sessions as unknown[]).every((s) => hasStrings(s, ['id', 'title', 'status'])) &&
    (messages as unknown[]).every((m) => hasStrings(m, ['id', 'session_id', 'role', 'content'])) &&
    (runs as unknown[]).every(
      (r) =>
        hasStrings(r, ['id', 'session_id', 'anchor_message_id', 'reply_message_id', 'status', 'outcome']) &&
        Array.isArray((r as Record<string, unknown>).events) &&
        ((r as Record<string, unknown>).events as unknown[]).every(isStoredEvent),
    ) &&
    (plan as unknown[]).every((p) => typeof p === 'string' && parseOutcome(p) !== undefined)
  return valid ? withSeq(value as Snapshot) : undefined
}

/** A save from before `seq` existed: its messages are numbered in the order they were made, per session. */
function withSeq(snapshot: Snapshot): Snapshot {
  const last = new Map<string, number>()
  for (const message of snapshot.messages) {
    if (typeof message.seq === 'number') last.set(message.session_id, Math.max(last.get(message.session_id) ?? 0, message.seq))
  }
  for (const message of snapshot.messages) {
    if (typeof message.seq === 'number') continue
    const seq = (last.get(message.session_id) ?? 0) + 1
    last.set(message.session_id, seq)
    message.seq = seq
  }
  return snapshot
}

/**
 * Reads a request body as JSON. An empty body reads as `undefined` (an optional body left out);
 * text that is not JSON is refused with 400 `invalid_request`, before any rule looks at it.
 */
export function parseJsonBody(text: string): Result<unknown> {
  if (text.trim() === '') return ok(undefined)
  try {
    return ok(JSON.parse(text) as unknown)
  } catch {
    return refusal(400, 'invalid_request', 'The request body is not valid JSON.')
  }
}

/**
 * A query parameter read as a whole number: `undefined` when absent, `null` when it is not one
 * (so the caller refuses it).
 */
function wholeNumber(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined
  return /^\d{1,15}$/.test(value) ? Number(value) : null
}

// --- Titles ----------------------------------------------------------------------

/** Length in code points, as an operator counts characters (an emoji is one). */
const characters = (text: string) => Array.from(text).length

/**
 * The title a session takes from its first operator message: the first line of the trimmed
 * message, at most 80 characters, cut on a code-point boundary so no surrogate pair is split.
 */
export function titleFrom(content: string): string {
  const line = content.trim().split(/\r?\n/, 1)[0] ?? ''
  return Array.from(line.trim()).slice(0, DERIVED_TITLE_LENGTH).join('').trimEnd()
}

/** Checks a title for POST (where it may be left out) and PATCH; returns it trimmed. */
function checkTitle(title: unknown, required: boolean): Result<string> {
  if (title === undefined && !required) return ok('')
  if (typeof title !== 'string') return refusal(422, 'invalid_request', 'The session title must be a string.')
  const trimmed = title.trim()
  if (trimmed === '' && required) return refusal(422, 'title_empty', 'The session title is empty.')
  if (characters(trimmed) > MAX_TITLE_LENGTH) {
    return refusal(422, 'title_too_long', `The session title is longer than ${MAX_TITLE_LENGTH} characters.`)
  }
  return ok(trimmed)
}

// --- The daemon ------------------------------------------------------------------------------

/** Creates a mock daemon, loading its state from `options.storage` when that holds a valid save. */
export function createDaemon(options: DaemonOptions = {}): MockDaemon {
  const { storage } = options
  const clock = options.now ?? (() => Date.now())
  /** While `fill` plays an exchange, the time in it: the records it writes are dated then. */
  let fillAt: number | undefined
  /** While `fill` writes, the last `seq` of the session it fills (nextSeq reads no messages then). */
  let fillSeq: number | undefined
  const now = () => fillAt ?? clock()
  const deltaDelayMs = options.deltaDelayMs ?? DEFAULT_DELTA_DELAY_MS
  const slowDelayMs = options.slowDelayMs ?? deltaDelayMs * 7.5

  let loaded: string | null = null
  try {
    loaded = storage?.load() ?? null
  } catch {
    loaded = null
  }
  let db: Snapshot = readSnapshot(loaded) ?? freshSnapshot()

  const timers = new Map<string, ReturnType<typeof setTimeout>>()
  const subscribers = new Map<string, Set<(signal: StreamSignal) => void>>()
  const scripts = new Map<string, Script>()
  let savePending = false
  let disposed = false

  const nextId = (prefix: string) => `${prefix}_${db.tag}${(++db.counter).toString(36).padStart(4, '0')}`

  function save(): void {
    savePending = false
    if (!storage) return
    try {
      storage.save(JSON.stringify(db))
    } catch {
      // A full or blocked localStorage must not break the mock; the state lives on in memory.
    }
  }

  /** Saves once at the end of the current task, however many changes it made. */
  function changed(): void {
    if (!storage || savePending) return
    savePending = true
    queueMicrotask(() => {
      if (savePending) save()
    })
  }

  const sessionById = (id: string) => db.sessions.find((s) => s.id === id)
  // From the end: the message asked for is most often a reply being written, the newest of all.
  const messageById = (id: string) => db.messages.findLast((m) => m.id === id)
  const runIn = (sessionId: string, runId: string) => db.runs.find((r) => r.id === runId && r.session_id === sessionId)
  const isActive = (run: StoredRun) => run.status === 'queued' || run.status === 'running'
  const inSession = (sessionId: string) => db.messages.filter((m) => m.session_id === sessionId)
  const toolIn = (run: StoredRun, toolCallId: string) =>
    messageById(run.reply_message_id)?.parts?.find((p): p is ToolPart => p.type === 'tool' && p.tool_call_id === toolCallId)

  /** The next `seq` of a session: messages are only ever added (a session goes whole), so the last plus one is never reused. */
  function nextSeq(sessionId: string): number {
    if (fillSeq !== undefined) return ++fillSeq
    let last = 0
    for (const m of db.messages) if (m.session_id === sessionId) last = Math.max(last, m.seq ?? 0)
    return last + 1
  }

  function signal(runId: string, value: StreamSignal): void {
    // Copy first: a listener that closes its stream detaches while we iterate.
    for (const listener of [...(subscribers.get(runId) ?? [])]) listener(value)
  }

  /**
   * Logs an event and tells the run's streams. `payload` is the event's data (a string goes as it
   * is: an older daemon's plain-text error); the reply folds it into its parts as it is logged, so
   * history holds exactly what the stream carried.
   */
  function emit(run: StoredRun, event: StreamEventName, payload: object | string): void {
    const data = typeof payload === 'string' ? payload : JSON.stringify(payload)
    const entry: StreamEvent = { id: run.events.length + 1, event, data }
    run.events.push(entry)
    const reply = messageById(run.reply_message_id)
    if (reply && typeof payload === 'object') foldEvent(reply, event, payload, now())
    if (event === 'usage' && reply?.usage) run.usage = { ...reply.usage }
    signal(run.id, { kind: 'event', event: { ...entry } })
    if (TERMINAL_EVENTS.has(event)) subscribers.delete(run.id)
  }

  function touch(sessionId: string): void {
    const session = sessionById(sessionId)
    if (!session) return
    const running = db.runs.some((r) => r.session_id === sessionId && isActive(r))
    session.status = running ? 'running' : 'idle'
    session.updated_at = now()
  }

  function setStatus(run: StoredRun, status: RunStatus): void {
    run.status = status
    const reply = messageById(run.reply_message_id)
    if (reply) reply.status = MESSAGE_STATUS[status]
  }

  function scriptOf(run: StoredRun): Script {
    let script = scripts.get(run.id)
    if (!script) {
      const prompt = messageById(run.anchor_message_id)?.content ?? ''
      script = scriptFor({
        outcome: parseOutcome(run.outcome),
        prompt,
        runId: run.id,
        decisions: run.decisions ?? {},
        deltaDelayMs,
        slowDelayMs,
      })
      scripts.set(run.id, script)
    }
    return script
  }

  /** How many script steps the run has already written: everything logged after `start`. */
  function progressOf(run: StoredRun): number {
    const start = run.events.findIndex((e) => e.event === 'start')
    return start < 0 ? 0 : run.events.length - start - 1
  }

  /**
   * The pause before the run's next step. After a `retrying` event it is what is left of tier 1's
   * wait (read from the log, so a reload resumes the wait for the time left, not from the start),
   * then the next attempt's own pause.
   */
  function delayOf(run: StoredRun, next: Step, script: Script): number {
    const own = next.delayMs ?? script.delayMs
    const last = run.events.at(-1)
    if (last?.event !== 'retrying') return own
    const { retry_at: retryAt } = JSON.parse(last.data) as { retry_at: number }
    return Math.max(0, retryAt - now()) + own
  }

  /** Whether the run is in the silence before its next step: its streams send nothing, not even a ping. */
  function isSilent(run: StoredRun): boolean {
    return timers.has(run.id) && scriptOf(run).steps[progressOf(run)]?.quiet === true
  }

  function schedule(run: StoredRun): void {
    // `fill` plays its runs itself (playThrough), with no timer.
    if (disposed || fillAt !== undefined || timers.has(run.id)) return
    const script = scriptOf(run)
    const index = progressOf(run)
    const next = script.steps[index]
    // Past the last step: the run is done, hangs, or waits for the operator's decision.
    if (!next) return
    // One timer per run, for a delta and a tier 1 wait alike: a cancel clears it, so it aborts the wait at once.
    const timer = setTimeout(() => {
      timers.delete(run.id)
      step(run, script, index)
    }, delayOf(run, next, script))
    timers.set(run.id, timer)
    if (next.quiet) signal(run.id, { kind: 'silence' })
  }

  function step(run: StoredRun, script: Script, index: number): void {
    const current = script.steps[index]
    if (!current || run.status !== 'running') return
    switch (current.kind) {
      case 'retry':
        emit(run, 'retrying', { attempt: current.attempt, max_attempts: TIER1_MAX_ATTEMPTS, retry_at: now() + current.waitMs, code: current.code })
        break
      case 'delta':
      case 'reasoning':
        emit(run, current.kind, { text: current.text })
        break
      case 'tool_call':
        emit(run, 'tool_call', { tool_call_id: current.id, name: current.name, effect: current.effect })
        break
      case 'tool_input':
        emit(run, 'tool_input', { tool_call_id: current.id, delta: current.delta })
        break
      case 'tool_approval':
        emit(run, 'tool_approval', { tool_call_id: current.id, reason: current.reason })
        break
      case 'tool_running':
        emit(run, 'tool_running', { tool_call_id: current.id })
        break
      case 'tool_result': {
        // The stream and history carry at most 16 KiB of the output; GET …/output has all of it.
        const output = current.output === undefined ? { output_bytes: 0, output_truncated: false } : cutOutput(current.output)
        emit(run, 'tool_result', { tool_call_id: current.id, status: current.status, ...output, ...(current.error ? { error: current.error } : {}) })
        break
      }
      case 'usage':
        emit(run, 'usage', current.usage)
        break
      case 'done':
        setStatus(run, 'completed')
        emit(run, 'done', { message_id: run.reply_message_id })
        break
      case 'fail': {
        const failure = current.failure(now())
        const reply = messageById(run.reply_message_id)
        run.error = { code: failure.code, message: failure.message }
        if (failure.retry) run.retry = { ...failure.retry }
        if (reply) {
          reply.error = { ...run.error }
          if (failure.retry) reply.retry = { ...failure.retry }
        }
        setStatus(run, 'failed')
        emit(run, 'error', { error: failure.message, code: failure.code })
        break
      }
      case 'raw': {
        // An older daemon's plain-text frame has no code. The persisted error keeps the text with an
        // empty code, which no client table knows, so the client shows the text as it came, live or
        // after a reload alike. No retry classification: a coarse failure must never arm tier 2.
        const reply = messageById(run.reply_message_id)
        run.error = { code: '', message: current.text }
        if (reply) reply.error = { ...run.error }
        setStatus(run, 'failed')
        emit(run, 'error', current.text)
        break
      }
    }
    if (index === script.dropAfter) signal(run.id, { kind: 'drop' })
    if (index === script.lagAfter) signal(run.id, { kind: 'lag' })
    if (ENDED.has(run.status)) {
      // `fill` plays one run at a time and dates the session itself.
      if (fillAt !== undefined) return
      touch(run.session_id)
      pump(run.session_id)
    } else {
      schedule(run)
    }
    changed()
  }

  function start(run: StoredRun): void {
    setStatus(run, 'running')
    emit(run, 'start', { message_id: run.reply_message_id })
    schedule(run)
  }

  /** Plays a run's script to its end at once, the clock moving on by each step's pause (`fill`). */
  function playThrough(run: StoredRun): void {
    const script = scriptOf(run)
    for (let index = progressOf(run), next = script.steps[index]; next && run.status === 'running'; index = progressOf(run), next = script.steps[index]) {
      fillAt = now() + delayOf(run, next, script)
      step(run, script, index)
    }
    scripts.delete(run.id)
    if (isActive(run)) {
      stop(run)
      throw new Error(`The outcome "${run.outcome}" does not end by itself: a filled exchange cannot wait.`)
    }
    // A run long over is read from history; its stream, if asked for, is its end alone.
    run.events = run.events.filter((e) => TERMINAL_EVENTS.has(e.event))
  }

  /**
   * Keeps the one-run-per-session rule: starts the oldest queued run when none is running, and
   * tells the runs still waiting their new place in line.
   */
  function pump(sessionId: string): void {
    const inSession = db.runs.filter((r) => r.session_id === sessionId)
    let running = inSession.some((r) => r.status === 'running')
    let ahead = running ? 1 : 0
    for (const run of inSession) {
      if (run.status !== 'queued') continue
      if (!running) {
        start(run)
        running = true
        ahead = 1
        continue
      }
      const last = run.events.findLast((e) => e.event === 'queued')
      const position = last ? (JSON.parse(last.data) as { position: number }).position : undefined
      if (position !== ahead) emit(run, 'queued', { position: ahead })
      ahead++
    }
    touch(sessionId)
  }

  function stop(run: StoredRun): void {
    if (!isActive(run)) return
    const timer = timers.get(run.id)
    if (timer !== undefined) clearTimeout(timer)
    timers.delete(run.id)
    // A tool still open (writing its input, awaiting a decision, running) ends before the run does.
    for (const tool of openTools(messageById(run.reply_message_id))) {
      emit(run, 'tool_result', { tool_call_id: tool.tool_call_id, status: 'cancelled', output_bytes: 0, output_truncated: false })
    }
    // A cancelled run is never a failure and carries no retry classification (tier 2 must not arm).
    setStatus(run, 'cancelled')
    emit(run, 'cancelled', { message_id: run.reply_message_id })
  }

  /** The next run outcome: the plan's head unless it is a send fault, which waits for a send. */
  function takeRunOutcome(): string {
    const head = db.plan[0]
    if (head === undefined || isSendFault(head)) return 'ok'
    db.plan.shift()
    return head
  }

  function createRun(sessionId: string, anchor: Message, outcome: string): StoredRun {
    const at = now()
    const runId = nextId('run')
    const reply: Message = {
      id: nextId('msg'),
      session_id: sessionId,
      role: 'agent',
      content: '',
      created_at: at,
      superseded: false,
      reply_to: anchor.id,
      run_id: runId,
      status: 'queued',
      seq: nextSeq(sessionId),
      parts: [],
    }
    const run: StoredRun = {
      id: runId,
      session_id: sessionId,
      anchor_message_id: anchor.id,
      reply_message_id: reply.id,
      status: 'queued',
      outcome,
      created_at: at,
      events: [],
    }
    const ahead = db.runs.filter((r) => r.session_id === sessionId && isActive(r)).length
    db.messages.push(reply)
    db.runs.push(run)
    if (ahead > 0) emit(run, 'queued', { position: ahead })
    else start(run)
    touch(sessionId)
    return run
  }

  function closeStreams(): void {
    for (const runId of [...subscribers.keys()]) signal(runId, { kind: 'close' })
    subscribers.clear()
  }

  function stopTimers(): void {
    for (const timer of timers.values()) clearTimeout(timer)
    timers.clear()
  }

  const wireRun = (run: StoredRun): Run => {
    const { id, session_id, anchor_message_id, reply_message_id, status, error, retry, usage } = run
    return {
      id,
      session_id,
      anchor_message_id,
      reply_message_id,
      status,
      ...(error ? { error: { ...error } } : {}),
      ...(retry ? { retry: { ...retry } } : {}),
      ...(usage ? { usage: { ...usage } } : {}),
    }
  }

  return {
    now,

    state() {
      return structuredClone({
        sessions: db.sessions,
        messages: db.messages,
        runs: db.runs.map(({ events: _events, decisions: _decisions, ...run }) => run),
        requests: db.requests,
        plan: db.plan,
      })
    },

    plan(faults) {
      db.plan = validatePlan(faults)
      changed()
      return [...db.plan]
    },

    reset() {
      stopTimers()
      closeStreams()
      scripts.clear()
      db = freshSnapshot()
      changed()
    },

    resume() {
      if (disposed) return
      for (const run of db.runs) {
        if (run.status !== 'running') continue
        // Saves never split the two, but a hand-edited save may: a stream must still open with `start`.
        if (!run.events.some((e) => e.event === 'start')) {
          emit(run, 'start', { message_id: run.reply_message_id })
        }
        schedule(run)
      }
      for (const session of db.sessions) pump(session.id)
      changed()
    },

    dispose() {
      disposed = true
      stopTimers()
      closeStreams()
      if (savePending) save()
    },

    flush() {
      save()
    },

    events(runId) {
      return db.runs.find((r) => r.id === runId)?.events.map((e) => ({ ...e }))
    },

    record(method, url) {
      const { pathname, search } = new URL(url)
      db.requests.push({ method, path: pathname + search, at: now() })
      changed()
    },

    fill(sessionId, exchanges) {
      const session = sessionById(sessionId)
      if (!session) throw new Error(`No session ${sessionId} to fill.`)
      if (db.runs.some((r) => r.session_id === sessionId && isActive(r))) throw new Error(`Session ${sessionId} has a run going.`)
      fillSeq = nextSeq(sessionId) - 1
      try {
        for (const { content, at, outcome = 'ok', regenerations = 0 } of exchanges) {
          validatePlan([outcome])
          fillAt = at
          const id = nextId('msg')
          const message: Message = { id, session_id: sessionId, role: 'operator', content, created_at: at, superseded: false, client_message_id: `fill-${id}`, seq: nextSeq(sessionId) }
          db.messages.push(message)
          if (session.title === '') session.title = titleFrom(content)
          playThrough(createRun(sessionId, message, outcome))
          for (let k = 0; k < regenerations; k++) {
            // The operator reads the reply for a minute, then asks again: the reply before is an earlier version.
            fillAt = now() + 60_000
            for (const m of db.messages) if (m.session_id === sessionId && m.reply_to === id) m.superseded = true
            playThrough(createRun(sessionId, message, 'ok'))
          }
        }
        // Idle, its last change its last run's end, its start its first message.
        touch(sessionId)
        session.created_at = Math.min(session.created_at, exchanges[0]?.at ?? session.created_at)
      } finally {
        fillAt = undefined
        fillSeq = undefined
      }
      changed()
    },

    listSessions() {
      // Newest first; the array is in creation order, which `created_at` ties cannot break.
      return structuredClone(db.sessions).reverse()
    },

    createSession(body) {
      if (body !== undefined && !isRecord(body)) {
        return refusal(422, 'invalid_request', 'The request body must be a JSON object.')
      }
      // No title, or a blank one: untitled (""), until the first operator message names it.
      const title = checkTitle(body?.title, false)
      if (!title.ok) return title
      const at = now()
      const session: Session = { id: nextId('ses'), title: title.value, status: 'idle', created_at: at, updated_at: at }
      db.sessions.push(session)
      changed()
      return ok({ ...session })
    },

    renameSession(sessionId, body) {
      const session = sessionById(sessionId)
      if (!session) return refusal(404, 'session_not_found', 'The session does not exist.')
      if (!isRecord(body)) return refusal(422, 'invalid_request', 'The body must be { "title": "…" }.')
      const title = checkTitle(body.title, true)
      if (!title.ok) return title
      session.title = title.value
      session.updated_at = now()
      changed()
      return ok({ ...session })
    },

    deleteSession(sessionId) {
      if (!sessionById(sessionId)) return refusal(404, 'session_not_found', 'The session does not exist.')
      const runs = db.runs.filter((r) => r.session_id === sessionId)
      // Every active run is cancelled first, queued ones too, and nothing is pumped: no run of a
      // deleted session may start. Their live streams get `cancelled` and close.
      for (const run of runs) stop(run)
      for (const run of runs) {
        scripts.delete(run.id)
        subscribers.delete(run.id)
      }
      db.runs = db.runs.filter((r) => r.session_id !== sessionId)
      db.messages = db.messages.filter((m) => m.session_id !== sessionId)
      db.sessions = db.sessions.filter((s) => s.id !== sessionId)
      changed()
      return ok(null)
    },

    listMessages(sessionId) {
      if (!sessionById(sessionId)) return refusal(404, 'session_not_found', 'The session does not exist.')
      return ok(structuredClone(inSession(sessionId)))
    },

    pageMessages(sessionId, params) {
      if (!sessionById(sessionId)) return refusal(404, 'session_not_found', 'The session does not exist.')
      const limit = wholeNumber(params.limit)
      const before = wholeNumber(params.before)
      const after = wholeNumber(params.after)
      if (limit === null || (limit !== undefined && (limit < 1 || limit > MAX_PAGE))) {
        return refusal(422, 'invalid_request', `limit must be a whole number from 1 to ${MAX_PAGE}.`)
      }
      if (before === null || after === null) return refusal(422, 'invalid_request', 'before and after must be a seq (a whole number).')
      if (before !== undefined && after !== undefined) return refusal(422, 'invalid_request', 'Give before or after, not both.')
      // Only `after` reads to the end without a limit: every other page has a size.
      if (limit === undefined && after === undefined) {
        return refusal(422, 'invalid_request', `limit must be a whole number from 1 to ${MAX_PAGE}.`)
      }
      return ok(structuredClone(pageOf(inSession(sessionId), { limit, before, after })))
    },

    findMessages(sessionId, clientMessageId) {
      if (!sessionById(sessionId)) return refusal(404, 'session_not_found', 'The session does not exist.')
      const messages = inSession(sessionId)
      const sent = messages.find((m) => m.role === 'operator' && m.client_message_id === clientMessageId)
      if (!sent) return ok([])
      return ok(structuredClone(messages.filter((m) => m === sent || (m.role === 'agent' && m.reply_to === sent.id))))
    },

    search(sessionId, q, limit) {
      if (!sessionById(sessionId)) return refusal(404, 'session_not_found', 'The session does not exist.')
      if (q === undefined || q.trim() === '') return refusal(422, 'invalid_request', 'The search needs a non-empty q.')
      const size = limit === undefined ? MAX_PAGE : wholeNumber(limit)
      if (size === null || size === undefined || size < 1 || size > MAX_PAGE) {
        return refusal(422, 'invalid_request', `limit must be a whole number from 1 to ${MAX_PAGE}.`)
      }
      return ok(searchOf(inSession(sessionId), q, size))
    },

    send(sessionId, body) {
      if (!sessionById(sessionId)) return refusal(404, 'session_not_found', 'The session does not exist.')
      if (!isRecord(body) || typeof body.content !== 'string') {
        return refusal(422, 'invalid_request', 'The message needs a string "content".')
      }
      const { content, client_message_id: clientId } = body
      if (typeof clientId !== 'string' || clientId === '') {
        return refusal(422, 'invalid_request', 'The message needs a non-empty string "client_message_id".')
      }
      if (content.trim() === '') return refusal(422, 'content_empty', 'The message is empty.')
      if (content.length > MAX_CONTENT_LENGTH) {
        return refusal(422, 'content_too_long', `The message is longer than ${MAX_CONTENT_LENGTH} characters.`)
      }
      // A duplicate is refused before any fault is taken: it changes nothing, the plan included.
      if (db.messages.some((m) => m.session_id === sessionId && m.client_message_id === clientId)) {
        return refusal(409, 'message_duplicate', 'A message with this client_message_id was already sent in this session.')
      }
      const head = db.plan[0]
      const fault = head !== undefined && isSendFault(head) ? head.trim() : undefined
      if (fault) db.plan.shift()
      if (fault === 'send_error') {
        changed()
        return refusal(500, 'internal_error', 'The daemon failed to store the message.')
      }
      const message: Message = {
        id: nextId('msg'),
        session_id: sessionId,
        role: 'operator',
        content,
        created_at: now(),
        superseded: false,
        client_message_id: clientId,
        seq: nextSeq(sessionId),
      }
      db.messages.push(message)
      const session = sessionById(sessionId)
      if (session && session.title === '') session.title = titleFrom(content)
      const run = createRun(sessionId, message, takeRunOutcome())
      changed()
      return ok({
        receipt: { message_id: message.id, run_id: run.id, queued: run.status === 'queued' },
        loseResponse: fault === 'accept_then_drop',
      })
    },

    regenerate(sessionId, messageId) {
      const anchor = db.messages.find((m) => m.id === messageId && m.session_id === sessionId)
      if (!anchor) return refusal(404, 'message_not_found', 'The message does not exist in this session.')
      if (anchor.role !== 'operator') {
        return refusal(422, 'not_operator_message', 'Only an operator message can be regenerated from.')
      }
      if (anchor.superseded) return refusal(404, 'message_not_found', 'The message was superseded by a regenerate.')
      const inSession = db.messages.filter((m) => m.session_id === sessionId)
      const tail = inSession.slice(inSession.indexOf(anchor) + 1).filter((m) => !m.superseded)
      for (const message of tail) message.superseded = true
      const supersededIds = new Set(tail.map((m) => m.id))
      // A superseded reply must not keep streaming into a transcript that no longer shows it.
      for (const run of db.runs) {
        if (run.session_id === sessionId && supersededIds.has(run.reply_message_id)) stop(run)
      }
      // Runs that survived start in their order before the new one joins the line.
      pump(sessionId)
      const run = createRun(sessionId, anchor, takeRunOutcome())
      changed()
      return ok({ run_id: run.id, superseded: [...supersededIds], queued: run.status === 'queued' })
    },

    getRun(sessionId, runId) {
      const run = runIn(sessionId, runId)
      return run ? ok(wireRun(run)) : refusal(404, 'run_not_found', 'The run does not exist in this session.')
    },

    cancel(sessionId, runId) {
      const run = runIn(sessionId, runId)
      if (!run) return refusal(404, 'run_not_found', 'The run does not exist in this session.')
      if (isActive(run)) {
        stop(run)
        pump(sessionId)
        changed()
      }
      return ok({ run_id: run.id, status: run.status })
    },

    decide(sessionId, runId, toolCallId, body) {
      const run = runIn(sessionId, runId)
      if (!run) return refusal(404, 'run_not_found', 'The run does not exist in this session.')
      const tool = toolIn(run, toolCallId)
      if (!tool) return refusal(404, 'tool_call_not_found', 'The run has no such tool call.')
      const decision = isRecord(body) ? body.decision : undefined
      if (!(TOOL_DECISIONS as readonly unknown[]).includes(decision)) {
        return refusal(422, 'invalid_request', 'The body must be { "decision": "approve" } or { "decision": "deny" }.')
      }
      const taken = run.decisions?.[toolCallId]
      // A double click or a second tab: the decision already taken stands, and is answered as it is.
      if (taken === decision) return ok({ tool_call_id: toolCallId, status: tool.status })
      if (taken !== undefined) return refusal(409, 'decision_conflict', `The tool call was already decided: ${taken}.`)
      if (tool.status !== 'awaiting_approval' || run.status !== 'running') {
        return refusal(409, 'tool_not_awaiting', 'The tool call is not waiting for a decision.')
      }
      run.decisions = { ...run.decisions, [toolCallId]: decision as ToolDecision }
      // The script goes on from the decision: the steps before it are the same, so the log still indexes it.
      scripts.delete(run.id)
      // The daemon acts at once: the tool starts running, or ends denied, before the answer goes on.
      step(run, scriptOf(run), progressOf(run))
      return ok({ tool_call_id: toolCallId, status: toolIn(run, toolCallId)?.status ?? tool.status })
    },

    toolOutput(sessionId, runId, toolCallId) {
      const run = runIn(sessionId, runId)
      const tool = run && toolIn(run, toolCallId)
      if (!run || !tool) return refusal(404, 'tool_call_not_found', 'The run has no such tool call.')
      if (!tool.output_truncated) return ok(tool.output ?? '')
      // The whole output is the script's, so it is not kept twice (nor saved in the browser's storage).
      const result = scriptOf(run).steps.find((s) => s.kind === 'tool_result' && s.id === toolCallId)
      return ok(result?.kind === 'tool_result' ? (result.output ?? '') : (tool.output ?? ''))
    },

    attach(sessionId, runId, afterId, listener) {
      const run = runIn(sessionId, runId)
      if (!run) return refusal(404, 'run_not_found', 'The run does not exist in this session.')
      const backlog = run.events.filter((e) => e.id > afterId).map((e) => ({ ...e }))
      const ended = run.events.some((e) => TERMINAL_EVENTS.has(e.event))
      if (ended || disposed) return ok({ backlog, ended: true, silent: false, detach: () => {} })
      let listeners = subscribers.get(runId)
      if (!listeners) subscribers.set(runId, (listeners = new Set()))
      listeners.add(listener)
      return ok({ backlog, ended: false, silent: isSilent(run), detach: () => void subscribers.get(runId)?.delete(listener) })
    },
  }
}
