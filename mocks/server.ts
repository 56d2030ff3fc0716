/**
 * The mock daemon as a real HTTP server on loopback (`npm run daemon`), serving the same MSW
 * handlers as the browser and node tests. Several tabs or a Playwright run can share it; it holds
 * its state in memory for its lifetime.
 *
 * It answers this machine only, and only by name: a request whose `Host` is not its own address
 * (a DNS-rebinding page) is refused, and so is a write whose `Origin` is a foreign page, preflight
 * or not (a `text/plain` form post needs none).
 *
 *   tsx mocks/server.ts [--port 8787] [--delta-delay-ms 40] [--long-session 10000]
 *
 * `--long-session N` starts it with a session of N messages already written (long-session.ts),
 * to try history in pages and find with.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { getResponse, type RequestHandler } from 'msw'
import { handlersFor } from './handlers/index'
import { seedLongSession } from './long-session'
import { createDaemon, type DaemonOptions, type MockDaemon } from './model'

export const DEFAULT_PORT = 8787
export const DEFAULT_HOST = '127.0.0.1'

export type DaemonServerOptions = DaemonOptions & {
  /** 0 picks a free port. */
  port?: number
  host?: string
}

export type DaemonServer = {
  /** `http://host:port`, with the port actually bound. */
  url: string
  daemon: MockDaemon
  /** Ends live streams, drops every connection and stops listening. */
  close(): Promise<void>
}

/** Request headers that describe this hop, not the request; `Request` must not carry them over. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length', 'expect'])

/**
 * Whether a browser origin is on this machine. Only those get CORS headers: the daemon trusts
 * the operator's own loopback pages, never a page from elsewhere that happens to run locally.
 */
export function isLoopbackOrigin(origin: string | undefined): origin is string {
  if (!origin) return false
  let hostname: string
  try {
    hostname = new URL(origin).hostname
  } catch {
    return false
  }
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname)
}

/** Methods that change the daemon; a foreign page must not reach them, with or without a preflight. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function corsHeaders(origin: string | undefined): Record<string, string> {
  // `Date` is not a CORS-safelisted response header: without the expose the client cannot read it.
  return isLoopbackOrigin(origin)
    ? { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'Date', vary: 'Origin' }
    : { vary: 'Origin' }
}

/**
 * The `Host` values this server answers to: its own bound address, or a loopback name, with its
 * port (bare when the port is 80). Anything else is a page that rebound a name to 127.0.0.1.
 */
export function allowedHosts(host: string, port: number): Set<string> {
  const own = host.includes(':') ? `[${host}]` : host
  const names = new Set([own.toLowerCase(), 'localhost', '127.0.0.1', '[::1]'])
  const hosts = new Set<string>()
  for (const name of names) {
    hosts.add(`${name}:${port}`)
    if (port === 80) hosts.add(name)
  }
  return hosts
}

type Check = { status: number; error: string; code: 'host_forbidden' | 'origin_forbidden' }

/** Refuses a request this daemon must not answer: a foreign `Host`, or a write from a foreign `Origin`. */
function checkRequest(req: IncomingMessage, hosts: ReadonlySet<string>): Check | undefined {
  const host = req.headers.host?.toLowerCase()
  if (host === undefined || !hosts.has(host)) {
    return { status: 421, error: `This daemon does not answer for host ${JSON.stringify(req.headers.host ?? '')}.`, code: 'host_forbidden' }
  }
  const origin = req.headers.origin
  if (origin !== undefined && !SAFE_METHODS.has(req.method ?? 'GET') && !isLoopbackOrigin(origin)) {
    return { status: 403, error: `Writes from origin ${JSON.stringify(origin)} are refused.`, code: 'origin_forbidden' }
  }
  return undefined
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function toRequest(req: IncomingMessage, body: Buffer | undefined, signal: AbortSignal, fallbackHost: string): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? fallbackHost}`)
  return new Request(url, { method: req.method, headers, body: body?.length ? new Uint8Array(body) : undefined, signal })
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extra })
  res.end(JSON.stringify(body))
}

/** Writes a fetch `Response` to the socket chunk by chunk, so an event stream is never buffered. */
async function pipeResponse(response: Response, res: ServerResponse, extra: Record<string, string>): Promise<void> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  res.writeHead(response.status, { ...headers, ...extra })
  res.flushHeaders()
  if (!response.body) {
    res.end()
    return
  }
  const reader = response.body.getReader()
  // The handler ends its stream on the request's abort; cancelling here only frees the reader.
  res.on('close', () => {
    reader.cancel().catch(() => {})
  })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      res.write(value)
    }
  } catch {
    // The client left mid-stream; there is no one to tell.
  }
  res.end()
}

type Context = { handlers: RequestHandler[]; daemon: MockDaemon; host: string; hosts: ReadonlySet<string> }

async function handle({ handlers, daemon, host, hosts }: Context, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The daemon's clock, not node's own cached one, so `Date` agrees with the times in the records.
  const cors = { ...corsHeaders(req.headers.origin), date: new Date(daemon.now()).toUTCString() }
  const refusal = checkRequest(req, hosts)
  if (refusal) {
    // The body is not read and nothing is handled: a refused request changes nothing.
    sendJson(res, refusal.status, { error: refusal.error, code: refusal.code }, { ...cors, connection: 'close' })
    return
  }
  if (req.method === 'OPTIONS') {
    const preflight = isLoopbackOrigin(req.headers.origin)
      ? {
          'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
          'access-control-allow-headers': 'content-type, last-event-id',
          'access-control-max-age': '600',
        }
      : {}
    res.writeHead(204, { ...cors, ...preflight })
    res.end()
    return
  }
  const abort = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) abort.abort()
  })
  req.socket.setNoDelay(true)
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req)
  const response = await getResponse(handlers, toRequest(req, body, abort.signal, host))
  if (!response) {
    sendJson(res, 404, { error: `No such endpoint: ${req.method} ${req.url}.`, code: 'invalid_request' }, cors)
    return
  }
  // `HttpResponse.error()` (the `accept_then_drop` fault): the client must see a transport error.
  if (response.type === 'error') {
    req.socket.destroy()
    return
  }
  await pipeResponse(response, res, cors)
}

/** Starts the mock daemon's HTTP server with a fresh in-memory daemon. */
export async function startDaemonServer(options: DaemonServerOptions = {}): Promise<DaemonServer> {
  const { port = DEFAULT_PORT, host = DEFAULT_HOST, ...daemonOptions } = options
  const daemon = createDaemon(daemonOptions)
  const handlers = handlersFor(daemon)
  // The handler is attached once listening: the allowed hosts need the port actually bound.
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const bound = (server.address() as AddressInfo).port
  const context: Context = { handlers, daemon, host, hosts: allowedHosts(host, bound) }
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(context, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      sendJson(res, 500, { error: `The mock daemon failed: ${String(error)}`, code: 'internal_error' }, {
        ...corsHeaders(req.headers.origin),
        date: new Date(daemon.now()).toUTCString(),
      })
    })
  })
  const urlHost = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${urlHost}:${bound}`,
    daemon,
    close: () =>
      new Promise<void>((resolve) => {
        daemon.dispose()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function numberArg(args: readonly string[], name: string): number | undefined {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`))
  if (index < 0) return undefined
  const arg = args[index] ?? ''
  const raw = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[index + 1]
  const value = Number(raw)
  if (raw === undefined || raw === '' || !Number.isInteger(value) || value < 0) {
    throw new Error(`${name} needs a whole number, got ${JSON.stringify(raw)}.`)
  }
  return value
}

async function main(args: readonly string[]): Promise<void> {
  const port = numberArg(args, '--port') ?? DEFAULT_PORT
  const deltaDelayMs = numberArg(args, '--delta-delay-ms')
  const longSession = numberArg(args, '--long-session')
  const server = await startDaemonServer({ port, ...(deltaDelayMs === undefined ? {} : { deltaDelayMs }) })
  if (longSession !== undefined) {
    const { title } = seedLongSession(server.daemon, longSession)
    console.log(`Mock daemon has "${title}"`)
  }
  console.log(`Mock daemon listening on ${server.url}`)
  const stop = () => {
    void server.close().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
