/**
 * The mock daemon's state and rules: sessions, messages, runs with their event logs, the fault
 * plan and the request log. It knows nothing of HTTP; the handlers in `mocks/handlers/` turn its
 * results into responses. Time comes from `Date.now()` (or `options.now`) and the global
 * `setTimeout`, so tests that fake those two drive it exactly.
 */
import type {
  CancelReceipt,
  Message,
  RefusalCode,
  RegenerateReceipt,
  Run,
  RunStatus,
  SendReceipt,
  Session,
  StreamEventName,
} from '../src/wire/types'
import {
  DERIVED_TITLE_LENGTH,
  MAX_CONTENT_LENGTH,
  MAX_TITLE_LENGTH,
  STREAM_EVENT_NAMES,
  TERMINAL_EVENTS,
  TIER1_MAX_ATTEMPTS,
} from '../src/wire/types'
import { type Failure, type ParsedOutcome, type ProviderAnswer, isSendFault, parseOutcome, validatePlan } from './faults'
import { DELTA_SIZE, SLOW_DELTA_SIZE, deltasOf, replyFor } from './replies'
import { tier1After } from './tier1'

export { replyFor } from './replies'

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

/** One entry of the request log. `path` includes the query string. */
export type RequestRecord = { method: string; path: string; at: number }

/** One event of a run's log, as it goes on the wire (`data` already serialized). */
export type StreamEvent = { id: number; event: StreamEventName; data: string }

/** A run as `state()` shows it: the wire record plus the outcome it was planned with. */
export type MockRun = Run & { outcome: string; created_at: number }

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
 * `close` ends the stream because the daemon was reset or disposed.
 */
export type StreamSignal = { kind: 'event'; event: StreamEvent } | { kind: 'drop' } | { kind: 'lag' } | { kind: 'close' }

/** A stream attached to a run: the log after the client's last event id, then live signals. */
export type Attachment = { backlog: StreamEvent[]; ended: boolean; detach: () => void }

/** The result of an accepted send; `loseResponse` is the `accept_then_drop` fault. */
export type SendOutcome = { receipt: SendReceipt; loseResponse: boolean }

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

  listSessions(): Session[]
  createSession(body: unknown): Result<Session>
  /** `PATCH /sessions/:sid { title }`: the title trimmed, 1 to 200 characters. */
  renameSession(sessionId: string, body: unknown): Result<Session>
  /** `DELETE /sessions/:sid`: cancels its active runs (their streams get `cancelled`), then forgets it, its messages and runs. */
  deleteSession(sessionId: string): Result<null>
  listMessages(sessionId: string): Result<Message[]>
  send(sessionId: string, body: unknown): Result<SendOutcome>
  regenerate(sessionId: string, messageId: string): Result<RegenerateReceipt>
  getRun(sessionId: string, runId: string): Result<Run>
  cancel(sessionId: string, runId: string): Result<CancelReceipt>
  /**
   * Attaches a listener to a run's stream. The backlog and the subscription are taken in one
   * synchronous step, so no event falls between them. An ended run has no live part.
   */
  attach(sessionId: string, runId: string, afterId: number, listener: (signal: StreamSignal) => void): Result<Attachment>
}

const DEFAULT_DELTA_DELAY_MS = 40
/** Deltas streamed by `code:CODE`, `unknown_code` and `raw` before their error. */
export const DELTAS_BEFORE_ERROR = 3

type StoredRun = MockRun & { events: StreamEvent[] }

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

type Step =
  /** Tier 1 failed an attempt before the first delta and waits `waitMs` before attempt `attempt`. */
  | { kind: 'retry'; attempt: number; code: string; waitMs: number }
  | { kind: 'delta'; text: string }
  | { kind: 'done' }
  | { kind: 'fail'; failure: (now: number) => Failure }
  | { kind: 'raw'; text: string }

/**
 * A run's steps after `start`, one logged event each; a pure function of the prompt and the
 * outcome. `delayMs` is the pause before each step (a provider attempt, or the next delta); after
 * a `retry` step the pause is the rest of the wait, then `delayMs`.
 */
type Script = { steps: Step[]; delayMs: number; dropAfter?: number; lagAfter?: number }
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
  return valid ? (value as Snapshot) : undefined
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

// --- Titles and scripts ----------------------------------------------------------------------

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

/**
 * The steps of a run whose provider answers attempt by attempt: tier 1 retries each failure as
 * `tier1After` decides (a `retry` step before each wait), then the reply streams or the run fails.
 */
function providerSteps(attempt: (n: number) => ProviderAnswer, reply: Step[]): Step[] {
  const steps: Step[] = []
  for (let n = 1; ; n++) {
    const answer = attempt(n)
    if (answer === 'answer') return [...steps, ...reply, { kind: 'done' }]
    const { failure } = answer
    const decision = tier1After(n, answer.retryAfterMs)
    switch (decision.kind) {
      case 'wait':
        steps.push({ kind: 'retry', attempt: n + 1, code: failure.code, waitMs: decision.ms })
        continue
      case 'give_up':
        // The last failure's code and classification, as they came.
        return [...steps, { kind: 'fail', failure: () => structuredClone(failure) }]
      case 'hand_over':
        return [
          ...steps,
          {
            kind: 'fail',
            failure: (now) =>
              failure.retry
                ? { ...failure, retry: { ...failure.retry, retry_after_until: now + decision.retryAfterMs } }
                : structuredClone(failure),
          },
        ]
    }
  }
}

function scriptFor(outcome: ParsedOutcome | undefined, prompt: string, deltaDelayMs: number, slowDelayMs: number): Script {
  const reply = (long = false): Step[] =>
    deltasOf(replyFor(prompt, long), long ? SLOW_DELTA_SIZE : DELTA_SIZE).map((text) => ({ kind: 'delta', text }))
  switch (outcome?.kind) {
    case 'slow':
      return { steps: [...reply(true), { kind: 'done' }], delayMs: slowDelayMs }
    case 'hang':
      // Starts and then waits for ever; only a cancel ends it (the stream sends pings meanwhile).
      return { steps: [], delayMs: deltaDelayMs }
    case 'drop': {
      const deltas = reply()
      return { steps: [...deltas, { kind: 'done' }], delayMs: deltaDelayMs, dropAfter: Math.max(0, Math.floor(deltas.length / 2) - 1) }
    }
    case 'lag': {
      const deltas = reply()
      return { steps: [...deltas, { kind: 'done' }], delayMs: deltaDelayMs, lagAfter: Math.min(1, deltas.length - 1) }
    }
    case 'fail_before_delta':
      return { steps: [{ kind: 'fail', failure: outcome.failure }], delayMs: deltaDelayMs }
    case 'fail_after_deltas':
      return { steps: [...reply().slice(0, DELTAS_BEFORE_ERROR), { kind: 'fail', failure: outcome.failure }], delayMs: deltaDelayMs }
    case 'raw':
      return { steps: [...reply().slice(0, DELTAS_BEFORE_ERROR), { kind: 'raw', text: outcome.text }], delayMs: deltaDelayMs }
    case 'provider':
      return { steps: providerSteps(outcome.attempt, reply()), delayMs: deltaDelayMs }
    default:
      // `ok`, and a send fault that somehow reached a run: both stream a reply and complete.
      return { steps: [...reply(), { kind: 'done' }], delayMs: deltaDelayMs }
  }
}

// --- The daemon ------------------------------------------------------------------------------

/** Creates a mock daemon, loading its state from `options.storage` when that holds a valid save. */
export function createDaemon(options: DaemonOptions = {}): MockDaemon {
  const { storage } = options
  const now = options.now ?? (() => Date.now())
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
  const messageById = (id: string) => db.messages.find((m) => m.id === id)
  const runIn = (sessionId: string, runId: string) => db.runs.find((r) => r.id === runId && r.session_id === sessionId)
  const isActive = (run: StoredRun) => run.status === 'queued' || run.status === 'running'

  function signal(runId: string, value: StreamSignal): void {
    // Copy first: a listener that closes its stream detaches while we iterate.
    for (const listener of [...(subscribers.get(runId) ?? [])]) listener(value)
  }

  function emit(run: StoredRun, event: StreamEventName, data: string): void {
    const entry: StreamEvent = { id: run.events.length + 1, event, data }
    run.events.push(entry)
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
      script = scriptFor(parseOutcome(run.outcome), prompt, deltaDelayMs, slowDelayMs)
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
  function delayOf(run: StoredRun, script: Script): number {
    const last = run.events.at(-1)
    if (last?.event !== 'retrying') return script.delayMs
    const { retry_at: retryAt } = JSON.parse(last.data) as { retry_at: number }
    return Math.max(0, retryAt - now()) + script.delayMs
  }

  function schedule(run: StoredRun): void {
    if (disposed || timers.has(run.id)) return
    const script = scriptOf(run)
    const index = progressOf(run)
    if (index >= script.steps.length) return
    // One timer per run, for a delta and a tier 1 wait alike: a cancel clears it, so it aborts the wait at once.
    const timer = setTimeout(() => {
      timers.delete(run.id)
      step(run, script, index)
    }, delayOf(run, script))
    timers.set(run.id, timer)
  }

  function step(run: StoredRun, script: Script, index: number): void {
    const current = script.steps[index]
    if (!current || run.status !== 'running') return
    const reply = messageById(run.reply_message_id)
    switch (current.kind) {
      case 'retry':
        emit(
          run,
          'retrying',
          JSON.stringify({ attempt: current.attempt, max_attempts: TIER1_MAX_ATTEMPTS, retry_at: now() + current.waitMs, code: current.code }),
        )
        break
      case 'delta':
        if (reply) reply.content += current.text
        emit(run, 'delta', JSON.stringify({ text: current.text }))
        break
      case 'done':
        setStatus(run, 'completed')
        emit(run, 'done', JSON.stringify({ message_id: run.reply_message_id }))
        break
      case 'fail': {
        const failure = current.failure(now())
        run.error = { code: failure.code, message: failure.message }
        if (failure.retry) run.retry = { ...failure.retry }
        if (reply) {
          reply.error = { ...run.error }
          if (failure.retry) reply.retry = { ...failure.retry }
        }
        setStatus(run, 'failed')
        emit(run, 'error', JSON.stringify({ error: failure.message, code: failure.code }))
        break
      }
      case 'raw':
        // An older daemon's plain-text frame has no code. The persisted error keeps the text with an
        // empty code, which no client table knows, so the client shows the text as it came, live or
        // after a reload alike. No retry classification: a coarse failure must never arm tier 2.
        run.error = { code: '', message: current.text }
        if (reply) reply.error = { ...run.error }
        setStatus(run, 'failed')
        emit(run, 'error', current.text)
        break
    }
    if (index === script.dropAfter) signal(run.id, { kind: 'drop' })
    if (index === script.lagAfter) signal(run.id, { kind: 'lag' })
    if (ENDED.has(run.status)) {
      touch(run.session_id)
      pump(run.session_id)
    } else {
      schedule(run)
    }
    changed()
  }

  function start(run: StoredRun): void {
    setStatus(run, 'running')
    emit(run, 'start', JSON.stringify({ message_id: run.reply_message_id }))
    schedule(run)
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
      if (position !== ahead) emit(run, 'queued', JSON.stringify({ position: ahead }))
      ahead++
    }
    touch(sessionId)
  }

  function stop(run: StoredRun): void {
    if (!isActive(run)) return
    const timer = timers.get(run.id)
    if (timer !== undefined) clearTimeout(timer)
    timers.delete(run.id)
    // A cancelled run is never a failure and carries no retry classification (tier 2 must not arm).
    setStatus(run, 'cancelled')
    emit(run, 'cancelled', JSON.stringify({ message_id: run.reply_message_id }))
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
    if (ahead > 0) emit(run, 'queued', JSON.stringify({ position: ahead }))
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
    const { id, session_id, anchor_message_id, reply_message_id, status, error, retry } = run
    return {
      id,
      session_id,
      anchor_message_id,
      reply_message_id,
      status,
      ...(error ? { error: { ...error } } : {}),
      ...(retry ? { retry: { ...retry } } : {}),
    }
  }

  return {
    now,

    state() {
      return structuredClone({
        sessions: db.sessions,
        messages: db.messages,
        runs: db.runs.map(({ events: _events, ...run }) => run),
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
          emit(run, 'start', JSON.stringify({ message_id: run.reply_message_id }))
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
      return ok(structuredClone(db.messages.filter((m) => m.session_id === sessionId)))
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

    attach(sessionId, runId, afterId, listener) {
      const run = runIn(sessionId, runId)
      if (!run) return refusal(404, 'run_not_found', 'The run does not exist in this session.')
      const backlog = run.events.filter((e) => e.id > afterId).map((e) => ({ ...e }))
      const ended = run.events.some((e) => TERMINAL_EVENTS.has(e.event))
      if (ended || disposed) return ok({ backlog, ended: true, detach: () => {} })
      let listeners = subscribers.get(runId)
      if (!listeners) subscribers.set(runId, (listeners = new Set()))
      listeners.add(listener)
      return ok({ backlog, ended: false, detach: () => void subscribers.get(runId)?.delete(listener) })
    },
  }
}
