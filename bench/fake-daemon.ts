/**
 * A fast fake daemon on loopback, one origin per subject: Rebound's origin serves its production
 * build and the daemon wire under /api/v1 (shared/design/daemon-wire.md: sessions, messages whole
 * or in pages, one send's messages, search, a send answered 202, the run's event stream with
 * `id:` / `event:` / `data:` and agent steps, a tool's whole output); the peer's origin serves the
 * peer build, the same history whole, and `POST /api/chat` answering in the AI SDK's UI message
 * stream protocol. Both play the same events on the same schedule, and both record on the wall
 * clock (Date.now(), which the page shares) when the first and last deltas were emitted. The floor
 * page (bench/floor) is served under /floor/ on Rebound's origin and uses its wire.
 *
 * It shares two cores with the page it serves, so it does as little as it can while measured: a
 * reply's frames are made once per plan, history JSON once per message (a generated session's
 * pages are kept in a cache), and search reads an index made before the run.
 *
 * It implements only what the benchmark needs; anything else is answered 404 and listed in
 * `unexpected`, so a new request the app starts making shows up in the results.
 */
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { SESSION_ID, type WireMessage, type WirePart, type WireUsage } from './content'
import { searchable, snippetOf, type HistorySource, type SearchHit } from './history-source'
import type { ReplyEvent } from './steps'

type StreamPlan = {
  history: HistorySource
  /** The reply's events after `start`, in order. */
  events: readonly ReplyEvent[]
  /** Events emitted per second (pauses come on top). */
  rate: number
  /** Wait between the send and the first event (the model's time to first token). */
  firstTokenMs: number
  /** Whole outputs of the reply's tool calls, for GET …/tools/:tcid/output. */
  toolOutputs?: ReadonlyMap<string, string>
}

/** What the daemon saw of the last run, on the wall clock (ms since the epoch). */
type RunRecord = {
  subject: 'rebound' | 'peer'
  postAt: number
  /** Rebound: when its first event-stream request arrived. */
  attachAt?: number
  /** When the first `delta` went out. */
  firstDeltaAt?: number
  /** When the reply's last event went out. */
  lastDeltaAt?: number
  doneAt?: number
  /** Events emitted. */
  emitted: number
  /** Event-stream requests (a reattachment shows as more than one). */
  connections: number
}

export type RequestLog = {
  subject: 'rebound' | 'peer'
  method: string
  path: string
  /** The query string, with its `?` (empty when none). */
  query: string
  status: number
  at: number
  /** When the response was finished or the connection closed. */
  endAt?: number
  /** Bytes of the body, for JSON answers and history. */
  bytes?: number
}

export type FakeDaemon = {
  reboundUrl: string
  peerUrl: string
  /** Replaces the history and the reply for the next run; forgets the previous run. */
  reset(plan: StreamPlan): void
  /** The run of the last send, once there is one. */
  run(): RunRecord | undefined
  /** Resolves when the last run's final event has been emitted (or rejects after `timeoutMs`). */
  waitForDone(timeoutMs: number): Promise<RunRecord>
  /** Resolves once no history or search request has been open for `quietMs` (at most `maxMs`); true when it got quiet. */
  settled(quietMs: number, maxMs: number): Promise<boolean>
  requests: RequestLog[]
  unexpected: RequestLog[]
  close(): Promise<void>
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.ico': 'image/x-icon',
}

/** A whole-history answer is made in one piece up to this many messages, and written in pieces (never held whole) above it. */
const WHOLE_BODY_MAX = 20_000
/** Messages per piece of a history written in pieces. */
const PIECE = 500
const RUN_ID = 'r-bench'

type LiveRun = {
  record: RunRecord
  /** Rebound's SSE frames so far, by id (1-based), for replay after Last-Event-ID. */
  frames: string[]
  listeners: Set<(frame: string, terminal: boolean) => void>
  ended: boolean
  timer?: NodeJS.Timeout
  doneWaiters: Array<() => void>
}

/** A plan's events made once into what each wire sends, and when each is due. */
type Compiled = {
  /** Rebound: each event's SSE frame, its id included (`start` is id 1, so event i is id i + 2). */
  frames: string[]
  /** The peer: each event's UI message stream chunks (several `data:` lines, or none). */
  peer: string[]
  peerHead: string
  peerTail: string
  /** Index of the first `delta`. */
  firstDelta: number
  /** Whether the reply records parts (any event but `delta`). */
  steps: boolean
}
const compiledPlans = new WeakMap<readonly ReplyEvent[], Compiled>()

function compile(events: readonly ReplyEvent[]): Compiled {
  const known = compiledPlans.get(events)
  if (known) return known
  const steps = events.some((e) => e.event !== 'delta')
  const data = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`
  const frames = events.map((e, i) => `id: ${i + 2}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`)
  // The AI SDK's chunks: text and reasoning as blocks with ids, a tool as input start, input
  // deltas, input available (the whole input, parsed) and output; a model call per step.
  let open: { kind: 'text' | 'reasoning'; id: string } | undefined
  let blocks = 0
  const inputs = new Map<string, { name: string; text: string }>()
  const close = () => {
    const out = open ? data({ type: `${open.kind}-end`, id: open.id }) : ''
    open = undefined
    return out
  }
  const block = (kind: 'text' | 'reasoning') => {
    if (open?.kind === kind) return { out: '', id: open.id }
    const out = close()
    open = { kind, id: `${kind}-${++blocks}` }
    return { out: out + data({ type: `${kind}-start`, id: open.id }), id: open.id }
  }
  const peer = events.map((e) => {
    switch (e.event) {
      case 'delta':
      case 'reasoning': {
        const kind = e.event === 'delta' ? 'text' : 'reasoning'
        const { out, id } = block(kind)
        return out + data({ type: `${kind}-delta`, id, delta: e.data.text })
      }
      case 'tool_call':
        inputs.set(e.data.tool_call_id, { name: e.data.name, text: '' })
        return close() + data({ type: 'tool-input-start', toolCallId: e.data.tool_call_id, toolName: e.data.name })
      case 'tool_input': {
        const input = inputs.get(e.data.tool_call_id)
        if (input) input.text += e.data.delta
        return data({ type: 'tool-input-delta', toolCallId: e.data.tool_call_id, inputTextDelta: e.data.delta })
      }
      case 'tool_running': {
        const input = inputs.get(e.data.tool_call_id)
        return data({ type: 'tool-input-available', toolCallId: e.data.tool_call_id, toolName: input?.name ?? 'tool', input: JSON.parse(input?.text ?? '{}') as unknown })
      }
      case 'tool_result':
        return data({ type: 'tool-output-available', toolCallId: e.data.tool_call_id, output: e.data.output })
      case 'usage':
        return close() + data({ type: 'finish-step' }) + data({ type: 'start-step' })
    }
  })
  const compiled: Compiled = {
    frames,
    peer,
    peerHead: data({ type: 'start', messageId: 'peer-reply' }) + (steps ? data({ type: 'start-step' }) : ''),
    peerTail: close() + (steps ? data({ type: 'finish-step' }) : '') + data({ type: 'finish', finishReason: 'stop' }) + 'data: [DONE]\n\n',
    firstDelta: events.findIndex((e) => e.event === 'delta'),
    steps,
  }
  compiledPlans.set(events, compiled)
  return compiled
}

/** When each event is due, in ms after the first: `rate` a second, with each event's pause on top. */
function schedule(events: readonly ReplyEvent[], rate: number): Float64Array {
  const at = new Float64Array(events.length)
  let paused = 0
  events.forEach((e, i) => {
    paused += e.pauseMs ?? 0
    at[i] = (i * 1000) / rate + paused
  })
  return at
}

/** Applies one event to the reply as history shows it: content, parts, usage (daemon-wire.md, "Agent steps"). */
function apply(reply: WireMessage, e: ReplyEvent, now: number) {
  const parts = reply.parts
  if (e.event === 'delta') reply.content += e.data.text
  if (!parts) return
  const last = parts.at(-1)
  const tool = (id: string) => parts.find((p): p is Extract<WirePart, { type: 'tool' }> => p.type === 'tool' && p.tool_call_id === id)
  switch (e.event) {
    case 'delta':
    case 'reasoning': {
      const type = e.event === 'delta' ? 'text' : 'reasoning'
      if (last?.type === type) last.text += e.data.text
      else parts.push({ type, text: e.data.text })
      return
    }
    case 'tool_call':
      parts.push({ type: 'tool', tool_call_id: e.data.tool_call_id, name: e.data.name, effect: e.data.effect, input: '', status: 'input', started_at: now })
      return
    case 'tool_input': {
      const part = tool(e.data.tool_call_id)
      if (part) part.input += e.data.delta
      return
    }
    case 'tool_running': {
      const part = tool(e.data.tool_call_id)
      if (part) part.status = 'running'
      return
    }
    case 'tool_result': {
      const part = tool(e.data.tool_call_id)
      if (part) Object.assign(part, { status: e.data.status, output: e.data.output, output_bytes: e.data.output_bytes, output_truncated: e.data.output_truncated, ended_at: now })
      return
    }
    case 'usage':
      reply.usage = e.data as WireUsage
  }
}

/** Starts both origins on 127.0.0.1 with free ports. */
export async function startFakeDaemon({ appDir, peerDir, floorDir }: { appDir: string; peerDir: string; floorDir: string }): Promise<FakeDaemon> {
  let plan: StreamPlan | undefined
  /** Messages the sends of this run added after the history (the operator's and the reply). */
  let extra: WireMessage[] = []
  let live: LiveRun | undefined
  const requests: RequestLog[] = []
  const unexpected: RequestLog[] = []
  const entries = new WeakMap<ServerResponse, RequestLog>()
  const sockets = new Set<import('node:net').Socket>()

  const history = () => {
    if (!plan) throw new Error('no plan')
    return plan.history
  }
  const total = () => history().length + extra.length
  const messageAt = (i: number) => (i < history().length ? history().message(i) : (extra[i - history().length] as WireMessage))
  /** Messages [from, to) as comma-joined JSON: the history's from its cache, the run's made now. */
  const joined = (from: number, to: number, keep = true) => {
    const source = history()
    const pieces: string[] = []
    if (from < Math.min(to, source.length)) pieces.push(keep ? source.slice(from, Math.min(to, source.length)) : source.slice(from, Math.min(to, source.length), false))
    for (let i = Math.max(from, source.length); i < to; i++) pieces.push(JSON.stringify(extra[i - source.length]))
    return pieces.join(',')
  }

  const stopRun = () => {
    if (live?.timer) clearTimeout(live.timer)
    if (live) {
      live.ended = true
      for (const l of live.listeners) l('', true)
      live.listeners.clear()
    }
    live = undefined
  }

  const session = () => ({
    id: SESSION_ID,
    title: 'Benchmark session',
    status: live && !live.ended ? 'running' : 'idle',
    created_at: total() ? messageAt(0).created_at : 0,
    updated_at: total() ? messageAt(total() - 1).created_at : 0,
  })

  /** Plays the plan's events on the wall clock, `emit` writing each batch; every 4 ms it catches up on what is due. */
  function play(run: LiveRun, emit: (from: number, to: number, now: number) => void, finish: () => void) {
    if (!plan) throw new Error('no plan')
    const { events, rate, firstTokenMs } = plan
    const { firstDelta } = compile(events)
    const at = schedule(events, rate)
    const start = Date.now() + firstTokenMs
    let sent = 0
    const tick = () => {
      const now = Date.now()
      let due = sent
      while (due < events.length && now >= start + (at[due] as number)) due++
      if (due > sent) {
        if (sent <= firstDelta && firstDelta < due) run.record.firstDeltaAt = now
        emit(sent, due, now)
        sent = due
        run.record.emitted = sent
        if (sent === events.length) {
          run.record.lastDeltaAt = now
          finish()
          run.record.doneAt = Date.now()
          run.ended = true
          for (const w of run.doneWaiters) w()
          run.doneWaiters = []
          return
        }
      }
      run.timer = setTimeout(tick, Math.max(0, Math.min(4, start + (at[sent] as number) - now)))
    }
    run.timer = setTimeout(tick, 0)
  }

  function newRun(subject: RunRecord['subject']): LiveRun {
    stopRun()
    live = { record: { subject, postAt: Date.now(), emitted: 0, connections: 0 }, frames: [], listeners: new Set(), ended: false, doneWaiters: [] }
    return live
  }

  // --- Rebound: the daemon wire -------------------------------------------------------------

  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    res.end(text)
    const entry = entries.get(res)
    if (entry) entry.bytes = Buffer.byteLength(text)
  }
  const refuse = (res: ServerResponse, status: number, code: string) => json(res, status, { error: `Refused: ${code}.`, code })

  function startReboundRun(content: string, clientMessageId: string) {
    if (!plan) throw new Error('no plan')
    const run = newRun('rebound')
    const { events } = plan
    const { frames, steps } = compile(events)
    const n = total()
    const now = Date.now()
    const operator: WireMessage = { id: `m${n}`, session_id: SESSION_ID, seq: n + 1, role: 'operator', content, created_at: now, superseded: false, client_message_id: clientMessageId }
    const reply: WireMessage = {
      id: `m${n + 1}`,
      session_id: SESSION_ID,
      seq: n + 2,
      role: 'agent',
      content: '',
      created_at: now,
      superseded: false,
      reply_to: operator.id,
      run_id: RUN_ID,
      status: 'streaming',
      ...(steps ? { parts: [] } : {}),
    }
    extra = [...extra, operator, reply]
    const broadcast = (chunk: string, terminal: boolean) => {
      for (const l of run.listeners) l(chunk, terminal)
    }
    const start = `id: 1\nevent: start\ndata: ${JSON.stringify({ message_id: reply.id })}\n\n`
    run.frames.push(start)
    broadcast(start, false)
    play(
      run,
      (from, to, at) => {
        for (let i = from; i < to; i++) apply(reply, events[i] as ReplyEvent, at)
        const batch = frames.slice(from, to)
        run.frames.push(...batch)
        broadcast(batch.join(''), false)
      },
      () => {
        reply.status = 'complete'
        const done = `id: ${run.frames.length + 1}\nevent: done\ndata: ${JSON.stringify({ message_id: reply.id })}\n\n`
        run.frames.push(done)
        broadcast(done, true)
      },
    )
    return { message_id: operator.id, run_id: RUN_ID, queued: false }
  }

  function streamEvents(req: IncomingMessage, res: ServerResponse) {
    const run = live
    if (!run || run.record.subject !== 'rebound') return refuse(res, 404, 'run_not_found')
    run.record.connections++
    run.record.attachAt ??= Date.now()
    const after = Number(req.headers['last-event-id'] ?? 0) || 0
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    res.write(run.frames.slice(after).join(''))
    if (run.ended) return res.end()
    const listener = (chunk: string, terminal: boolean) => {
      if (chunk) res.write(chunk)
      if (terminal) {
        run.listeners.delete(listener)
        res.end()
      }
    }
    run.listeners.add(listener)
    res.on('close', () => run.listeners.delete(listener))
  }

  /** The whole history, in one piece when small, else written a piece at a time as the socket takes it. */
  async function wholeHistory(res: ServerResponse) {
    const count = total()
    if (history().length <= WHOLE_BODY_MAX) return json(res, 200, `{"messages":[${joined(0, count)}]}`)
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    let closed = false
    res.on('close', () => {
      closed = true
    })
    let bytes = 0
    const write = async (chunk: string) => {
      bytes += Buffer.byteLength(chunk)
      if (res.write(chunk) || closed) return
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done)
          res.off('close', done)
          resolve()
        }
        res.on('drain', done)
        res.on('close', done)
      })
    }
    await write('{"messages":[')
    for (let from = 0; from < count && !closed; from += PIECE) await write((from ? ',' : '') + joined(from, Math.min(count, from + PIECE), false))
    if (!closed) res.end(']}')
    const entry = entries.get(res)
    if (entry) entry.bytes = bytes + 2
  }

  /** `?limit=N[&before=S|&after=S]` and `?client_message_id=ID` (daemon-wire.md, "History in pages"). */
  function historyRead(res: ServerResponse, query: URLSearchParams): Promise<void> | void {
    const clientMessageId = query.get('client_message_id')
    if (clientMessageId !== null) {
      const found = [...history().sendOf(clientMessageId)]
      const op = extra.findIndex((m) => m.client_message_id === clientMessageId)
      if (op >= 0) {
        const opId = (extra[op] as WireMessage).id
        extra.forEach((m, k) => {
          if (k === op || m.reply_to === opId) found.push(history().length + k)
        })
      }
      return json(res, 200, `{"messages":[${found.map((i) => JSON.stringify(messageAt(i))).join(',')}]}`)
    }
    const has = (name: string) => query.has(name)
    if (!has('limit') && !has('before') && !has('after')) return wholeHistory(res)
    const int = (name: string) => {
      const raw = query.get(name)
      return raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined
    }
    const limit = int('limit')
    const before = int('before')
    const after = int('after')
    const bad =
      (has('limit') && (limit === undefined || limit < 1 || limit > 1000)) ||
      (has('before') && before === undefined) ||
      (has('after') && after === undefined) ||
      (has('before') && has('after')) ||
      (!has('after') && limit === undefined)
    if (bad) return refuse(res, 422, 'invalid_request')
    const count = total()
    let from: number
    let to: number
    let more: boolean
    // seq is index + 1: "before S" is the indices below S - 1, "after S" those from S on.
    if (after !== undefined) {
      from = Math.min(after, count)
      to = limit === undefined ? count : Math.min(count, from + limit)
      more = to < count
    } else {
      to = before === undefined ? count : Math.max(0, Math.min(count, before - 1))
      from = Math.max(0, to - (limit as number))
      more = from > 0
    }
    return json(res, 200, `{"messages":[${joined(from, to)}],"has_more":${more}}`)
  }

  function search(res: ServerResponse, query: URLSearchParams) {
    const needle = (query.get('q') ?? '').trim().toLowerCase()
    const rawLimit = query.get('limit')
    const limit = rawLimit === null ? 20 : /^\d+$/.test(rawLimit) ? Number(rawLimit) : 0
    if (!needle || limit < 1 || limit > 1000) return refuse(res, 422, 'invalid_request')
    const hits: SearchHit[] = history().search(needle, limit)
    for (let k = 0; k < extra.length && hits.length <= limit; k++) {
      const m = extra[k] as WireMessage
      const text = searchable(m)
      const at = text.toLowerCase().indexOf(needle)
      if (at >= 0) hits.push({ message_id: m.id, seq: history().length + k + 1, snippet: snippetOf(text, at, needle.length) })
    }
    return json(res, 200, { hits: hits.slice(0, limit), has_more: hits.length > limit })
  }

  function toolOutput(res: ServerResponse, runId: string, toolCallId: string) {
    const streamed = runId === RUN_ID && extra.length ? plan?.toolOutputs?.get(toolCallId) : undefined
    const output = streamed ?? history().toolOutput(toolCallId)
    if (output === undefined) return refuse(res, 404, 'tool_call_not_found')
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    res.end(output)
  }

  async function rebound(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
    const method = req.method ?? 'GET'
    const base = `/api/v1/sessions/${SESSION_ID}`
    if (method === 'GET' && path === '/api/v1/sessions') {
      json(res, 200, { sessions: [session()] })
      return true
    }
    if (method === 'GET' && path === `${base}/messages`) {
      await historyRead(res, query)
      return true
    }
    if (method === 'GET' && path === `${base}/search`) {
      search(res, query)
      return true
    }
    if (method === 'POST' && path === `${base}/messages`) {
      const body = JSON.parse((await readBody(req)).toString('utf8') || '{}') as { content?: string; client_message_id?: string }
      if (!body.content?.trim()) {
        refuse(res, 422, 'content_empty')
        return true
      }
      json(res, 202, startReboundRun(body.content, body.client_message_id ?? ''))
      return true
    }
    if (method === 'GET' && path === `${base}/runs/${RUN_ID}/events`) {
      streamEvents(req, res)
      return true
    }
    if (method === 'GET' && path === `${base}/runs/${RUN_ID}`) {
      const reply = extra.at(-1)
      json(res, 200, {
        id: RUN_ID,
        session_id: SESSION_ID,
        anchor_message_id: reply?.reply_to ?? '',
        reply_message_id: reply?.id ?? '',
        status: live && !live.ended ? 'running' : 'completed',
        ...(reply?.usage ? { usage: reply.usage } : {}),
      })
      return true
    }
    const output = new RegExp(`^${base}/runs/([^/]+)/tools/([^/]+)/output$`).exec(path)
    if (method === 'GET' && output) {
      toolOutput(res, decodeURIComponent(output[1] as string), decodeURIComponent(output[2] as string))
      return true
    }
    return false
  }

  // --- The peer: the AI SDK's UI message stream ---------------------------------------------

  async function peerChat(req: IncomingMessage, res: ServerResponse) {
    if (!plan) throw new Error('no plan')
    // The transport posts the whole conversation; read it all, as a server would.
    await readBody(req)
    const run = newRun('peer')
    run.record.connections = 1
    const { peer: chunks, peerHead, peerTail } = compile(plan.events)
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-vercel-ai-ui-message-stream': 'v1',
      'x-accel-buffering': 'no',
    })
    res.write(peerHead)
    res.on('close', () => {
      if (!run.ended && live === run) stopRun()
    })
    play(
      run,
      (from, to) => res.write(chunks.slice(from, to).join('')),
      () => res.end(peerTail),
    )
  }

  async function peer(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const method = req.method ?? 'GET'
    if (method === 'GET' && path === `/api/v1/sessions/${SESSION_ID}/messages`) {
      await wholeHistory(res)
      return true
    }
    if (method === 'POST' && path === '/api/chat') {
      await peerChat(req, res)
      return true
    }
    return false
  }

  // --- Static files, one folder per origin ---------------------------------------------------

  function serveStatic(dir: string, path: string, res: ServerResponse): boolean {
    const clean = normalize(decodeURIComponent(path)).replace(/^([/\\])+/, '')
    let file = join(dir, clean)
    if (!file.startsWith(dir + sep) && file !== dir) return false
    if (!existsSync(file) || statSync(file).isDirectory()) {
      // The app routes on the client (/sessions/:id): every page path gets index.html.
      if (extname(clean)) return false
      file = join(dir, 'index.html')
      if (!existsSync(file)) return false
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' })
    createReadStream(file).pipe(res)
    return true
  }

  function handler(subject: 'rebound' | 'peer', dir: string) {
    return (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://bench')
      const path = url.pathname
      const entry: RequestLog = { subject, method: req.method ?? 'GET', path, query: url.search, status: 0, at: Date.now() }
      requests.push(entry)
      entries.set(res, entry)
      res.on('finish', () => {
        entry.status = res.statusCode
      })
      res.on('close', () => {
        entry.endAt = Date.now()
      })
      const api = path.startsWith('/api/')
      // The floor page shares Rebound's origin and wire; its files are under /floor/.
      const floor = subject === 'rebound' && (path === '/floor' || path.startsWith('/floor/'))
      const serve = () => (floor ? serveStatic(floorDir, path.slice('/floor'.length) || '/', res) : serveStatic(dir, path, res))
      const answer = api ? (subject === 'rebound' ? rebound(req, res, path, url.searchParams) : peer(req, res, path)) : Promise.resolve(req.method === 'GET' && serve())
      answer
        .then((handled) => {
          if (handled) return
          entry.status = 404
          unexpected.push(entry)
          if (api) refuse(res, 404, 'not_found')
          else {
            res.writeHead(404, { 'content-type': 'text/plain' })
            res.end('not found')
          }
        })
        .catch((error: unknown) => {
          unexpected.push({ ...entry, status: 500 })
          if (!res.headersSent) refuse(res, 500, 'internal_error')
          else res.end()
          console.error(`fake daemon: ${req.method} ${path}:`, error)
        })
    }
  }

  const listen = async (server: Server) => {
    server.on('connection', (socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
  const reboundServer = createServer(handler('rebound', appDir))
  const peerServer = createServer(handler('peer', peerDir))
  const reboundUrl = await listen(reboundServer)
  const peerUrl = await listen(peerServer)

  const reads = (r: RequestLog) => r.method === 'GET' && (r.path.endsWith('/messages') || r.path.endsWith('/search'))

  return {
    reboundUrl,
    peerUrl,
    requests,
    unexpected,
    reset(next) {
      stopRun()
      plan = next
      compile(next.events)
      extra = []
      requests.length = 0
      unexpected.length = 0
    },
    run: () => live?.record,
    async waitForDone(timeoutMs) {
      // A busy page may post the send a while after Enter: wait for it, within the same budget.
      const until = Date.now() + timeoutMs
      const sendBy = Math.min(until, Date.now() + SEND_WAIT_MS)
      while (!live && Date.now() < sendBy) await new Promise((resolve) => setTimeout(resolve, 20))
      const run = live
      if (!run) throw new Error(`no run was started (the send did not reach the daemon within ${SEND_WAIT_MS / 1000} s)`)
      if (run.record.lastDeltaAt !== undefined) return run.record
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the stream did not finish within ${timeoutMs} ms`)), Math.max(1, until - Date.now()))
        run.doneWaiters.push(() => {
          clearTimeout(timer)
          resolve(run.record)
        })
      })
    },
    async settled(quietMs, maxMs) {
      const until = Date.now() + maxMs
      for (;;) {
        const now = Date.now()
        const busy = requests.some((r) => reads(r) && (r.endAt === undefined || now - r.endAt < quietMs))
        if (!busy) return true
        if (now >= until) return false
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    async close() {
      stopRun()
      for (const s of sockets) s.destroy()
      await Promise.all([reboundServer, peerServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))))
    },
  }
}

/** How long after Enter the send may take to reach the daemon. */
const SEND_WAIT_MS = 30_000

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
