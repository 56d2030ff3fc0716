/**
 * A fast fake daemon on loopback, one origin per subject: Rebound's origin serves its production
 * build and the daemon wire under /api/v1 (shared/design/daemon-wire.md: sessions, messages, a
 * send answered 202, the run's event stream with `id:` / `event:` / `data:`); the peer's origin
 * serves the peer build, the same history, and `POST /api/chat` answering in the AI SDK's UI
 * message stream protocol. Both stream the same deltas on the same schedule, and both record on
 * the wall clock (Date.now(), which the page shares) when the first and last deltas were emitted.
 * The floor page (bench/floor) is served under /floor/ on Rebound's origin and uses its wire.
 *
 * It implements only what the benchmark needs; anything else is answered 404 and listed in
 * `unexpected`, so a new request the app starts making shows up in the results.
 */
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { SESSION_ID, type WireMessage } from './content'

export type StreamPlan = {
  history: WireMessage[]
  deltas: string[]
  /** Deltas emitted per second. */
  rate: number
  /** Wait between the send and the first delta (the model's time to first token). */
  firstTokenMs: number
}

/** What the daemon saw of the last run, on the wall clock (ms since the epoch). */
export type RunRecord = {
  subject: 'rebound' | 'peer'
  postAt: number
  /** Rebound: when its first event-stream request arrived. */
  attachAt?: number
  firstDeltaAt?: number
  lastDeltaAt?: number
  doneAt?: number
  /** Deltas emitted. */
  emitted: number
  /** Event-stream requests (a reattachment shows as more than one). */
  connections: number
}

export type RequestLog = { subject: 'rebound' | 'peer'; method: string; path: string; status: number; at: number }

export type FakeDaemon = {
  reboundUrl: string
  peerUrl: string
  /** Replaces the history and the reply for the next run; forgets the previous run. */
  reset(plan: StreamPlan): void
  /** The run of the last send, once there is one. */
  run(): RunRecord | undefined
  /** Resolves when the last run's final delta has been emitted (or rejects after `timeoutMs`). */
  waitForDone(timeoutMs: number): Promise<RunRecord>
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

type LiveRun = {
  record: RunRecord
  /** Rebound's SSE frames so far, by id (1-based), for replay after Last-Event-ID. */
  frames: string[]
  listeners: Set<(frame: string, terminal: boolean) => void>
  ended: boolean
  timer?: NodeJS.Timeout
  doneWaiters: Array<() => void>
}

/** Starts both origins on 127.0.0.1 with free ports. */
export async function startFakeDaemon({ appDir, peerDir, floorDir }: { appDir: string; peerDir: string; floorDir: string }): Promise<FakeDaemon> {
  let plan: StreamPlan | undefined
  let messages: WireMessage[] = []
  let historyBody = '{"messages":[]}'
  let live: LiveRun | undefined
  const requests: RequestLog[] = []
  const unexpected: RequestLog[] = []
  const sockets = new Set<import('node:net').Socket>()

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
    created_at: messages[0]?.created_at ?? 0,
    updated_at: messages.at(-1)?.created_at ?? 0,
  })

  /** Plays the plan's deltas on the wall clock, `emit` writing each batch; every 4 ms it catches up on what is due. */
  function play(run: LiveRun, emit: (from: number, to: number) => void, finish: () => void) {
    if (!plan) throw new Error('no plan')
    const { deltas, rate, firstTokenMs } = plan
    const start = Date.now() + firstTokenMs
    let sent = 0
    const tick = () => {
      const now = Date.now()
      const due = now < start ? 0 : Math.min(deltas.length, 1 + Math.floor(((now - start) * rate) / 1000))
      if (due > sent) {
        if (sent === 0) run.record.firstDeltaAt = now
        emit(sent, due)
        sent = due
        run.record.emitted = sent
        if (sent === deltas.length) {
          run.record.lastDeltaAt = now
          finish()
          run.record.doneAt = Date.now()
          run.ended = true
          for (const w of run.doneWaiters) w()
          run.doneWaiters = []
          return
        }
      }
      run.timer = setTimeout(tick, Math.max(0, Math.min(4, start - now)))
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
  }
  const refuse = (res: ServerResponse, status: number, code: string) => json(res, status, { error: `Refused: ${code}.`, code })

  function startReboundRun(content: string, clientMessageId: string) {
    if (!plan) throw new Error('no plan')
    const run = newRun('rebound')
    const n = messages.length
    const now = Date.now()
    const operator: WireMessage = { id: `m${n}`, session_id: SESSION_ID, role: 'operator', content, created_at: now, superseded: false, client_message_id: clientMessageId }
    const reply: WireMessage = { id: `m${n + 1}`, session_id: SESSION_ID, role: 'agent', content: '', created_at: now, superseded: false, reply_to: operator.id, run_id: 'r-bench', status: 'streaming' }
    messages = [...messages, operator, reply]
    const deltas = plan.deltas
    let text = ''
    const frame = (event: string, data: unknown) => {
      run.frames.push(`id: ${run.frames.length + 1}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
      return run.frames.at(-1) as string
    }
    const broadcast = (chunk: string, terminal: boolean) => {
      for (const l of run.listeners) l(chunk, terminal)
    }
    broadcast(frame('start', { message_id: reply.id }), false)
    play(
      run,
      (from, to) => {
        let chunk = ''
        for (let i = from; i < to; i++) {
          text += deltas[i]
          chunk += frame('delta', { text: deltas[i] })
        }
        reply.content = text
        historyBody = ''
        broadcast(chunk, false)
      },
      () => {
        reply.status = 'complete'
        historyBody = ''
        broadcast(frame('done', { message_id: reply.id }), true)
      },
    )
    historyBody = ''
    return { message_id: operator.id, run_id: 'r-bench', queued: false }
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

  async function rebound(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const method = req.method ?? 'GET'
    const base = `/api/v1/sessions/${SESSION_ID}`
    if (method === 'GET' && path === '/api/v1/sessions') {
      json(res, 200, { sessions: [session()] })
      return true
    }
    if (method === 'GET' && path === `${base}/messages`) {
      if (!historyBody) historyBody = JSON.stringify({ messages })
      json(res, 200, historyBody)
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
    if (method === 'GET' && path === `${base}/runs/r-bench/events`) {
      streamEvents(req, res)
      return true
    }
    if (method === 'GET' && path === `${base}/runs/r-bench`) {
      const reply = messages.at(-1)
      json(res, 200, {
        id: 'r-bench',
        session_id: SESSION_ID,
        anchor_message_id: reply?.reply_to ?? '',
        reply_message_id: reply?.id ?? '',
        status: live && !live.ended ? 'running' : 'completed',
      })
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
    const deltas = plan.deltas
    const data = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-vercel-ai-ui-message-stream': 'v1',
      'x-accel-buffering': 'no',
    })
    res.write(data({ type: 'start', messageId: 'peer-reply' }) + data({ type: 'text-start', id: 'text-1' }))
    res.on('close', () => {
      if (!run.ended && live === run) stopRun()
    })
    play(
      run,
      (from, to) => {
        let chunk = ''
        for (let i = from; i < to; i++) chunk += data({ type: 'text-delta', id: 'text-1', delta: deltas[i] })
        res.write(chunk)
      },
      () => {
        res.end(data({ type: 'text-end', id: 'text-1' }) + data({ type: 'finish', finishReason: 'stop' }) + 'data: [DONE]\n\n')
      },
    )
  }

  async function peer(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const method = req.method ?? 'GET'
    if (method === 'GET' && path === `/api/v1/sessions/${SESSION_ID}/messages`) {
      if (!historyBody) historyBody = JSON.stringify({ messages })
      json(res, 200, historyBody)
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
      const path = new URL(req.url ?? '/', 'http://bench').pathname
      const entry: RequestLog = { subject, method: req.method ?? 'GET', path, status: 0, at: Date.now() }
      requests.push(entry)
      res.on('finish', () => {
        entry.status = res.statusCode
      })
      const api = path.startsWith('/api/')
      // The floor page shares Rebound's origin and wire; its files are under /floor/.
      const floor = subject === 'rebound' && (path === '/floor' || path.startsWith('/floor/'))
      const serve = () => (floor ? serveStatic(floorDir, path.slice('/floor'.length) || '/', res) : serveStatic(dir, path, res))
      const answer = api ? (subject === 'rebound' ? rebound(req, res, path) : peer(req, res, path)) : Promise.resolve(req.method === 'GET' && serve())
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

  return {
    reboundUrl,
    peerUrl,
    requests,
    unexpected,
    reset(next) {
      stopRun()
      plan = next
      messages = next.history.map((m) => ({ ...m }))
      historyBody = ''
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
