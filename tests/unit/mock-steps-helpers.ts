/**
 * Shared by the agent-step tests of the mock daemon: a daemon on MSW's node server driven by fake
 * `setTimeout`/`clearTimeout`/`Date`, HTTP helpers, a stream reader that runs fake time while it
 * reads, and a fold of stream frames into parts written apart from the daemon's own, so the two
 * can be compared.
 */
import type { SetupServer } from 'msw/node'
import { afterEach, beforeEach, expect, vi } from 'vitest'
import { createTestDaemon } from '../../mocks/node'
import type { DaemonOptions, MockDaemon, StreamEvent } from '../../mocks/model'
import type { Message, Part, SendReceipt, Session, ToolPart, Usage } from '../../src/wire/types'

const ORIGIN = 'http://daemon.test'
const T0 = Date.UTC(2026, 5, 1, 9, 0, 0)
/** The pause before each step. */
export const D = 10

export const harness: { daemon: MockDaemon; server: SetupServer } = {} as never

/** Fake timers and a fresh daemon before each test of the file; `boot` replaces it within a test. */
export function withStepDaemon(): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 })
    boot()
  })
  afterEach(() => {
    harness.daemon.dispose()
    harness.server.close()
    vi.useRealTimers()
  })
}

export function boot(options: DaemonOptions = {}): MockDaemon {
  harness.daemon?.dispose()
  harness.server?.close()
  const test = createTestDaemon({ deltaDelayMs: D, ...options })
  harness.daemon = test.daemon
  harness.server = test.server
  harness.server.listen({ onUnhandledRequest: 'error' })
  return test.daemon
}

const api = (path: string) => `${ORIGIN}/api/v1${path}`

export async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(api(path), {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T }
}

let sent = 0
/** A session with one message sent under `outcome`. */
export async function runWith(outcome: string, content = 'How do retries back off?'): Promise<{ sid: string; rid: string; mid: string; cid: string }> {
  harness.daemon.plan([outcome])
  const session = (await call<Session>('POST', '/sessions', {})).body
  const cid = `cid-steps-${++sent}`
  const receipt = await call<SendReceipt>('POST', `/sessions/${session.id}/messages`, { content, client_message_id: cid })
  expect(receipt.status).toBe(202)
  return { sid: session.id, rid: receipt.body.run_id, mid: receipt.body.message_id, cid }
}

export const log = (rid: string): StreamEvent[] => harness.daemon.events(rid) ?? []
export const names = (rid: string) => log(rid).map((e) => e.event)
export const data = <T>(event: { data: string } | undefined): T => JSON.parse(event?.data ?? 'null') as T
export const runOf = (rid: string) => harness.daemon.state().runs.find((r) => r.id === rid)!
export const replyOf = (rid: string): Message => harness.daemon.state().messages.find((m) => m.id === runOf(rid).reply_message_id)!
export const toolsOf = (message: Message): ToolPart[] => (message.parts ?? []).filter((p): p is ToolPart => p.type === 'tool')

/** Event names with runs of the same name collapsed to one: the shape of a run. */
export function shape(events: readonly { event: string }[]): string[] {
  const out: string[] = []
  for (const { event } of events) if (out.at(-1) !== event) out.push(event)
  return out
}

/** Runs fake time until the run has ended (or `budgetMs` has passed). */
export async function finish(rid: string, budgetMs = 120_000): Promise<void> {
  for (let spent = 0; spent < budgetMs && ['queued', 'running'].includes(runOf(rid).status); spent += 100) {
    await vi.advanceTimersByTimeAsync(100)
  }
}

/** Runs fake time until `check` holds, in steps of `stepMs`. */
export async function advanceUntil(check: () => boolean, stepMs = D, budgetMs = 120_000): Promise<void> {
  for (let spent = 0; !check(); spent += stepMs) {
    if (spent >= budgetMs) throw new Error('condition not met in fake time')
    await vi.advanceTimersByTimeAsync(stepMs)
  }
}

export type Frame = { id: number; event: string; data: string }
/** What a stream carried: its frames (with the fake time each arrived at), and each comment line with its time. */
export type Reading = { frames: Frame[]; arrivals: number[]; comments: { text: string; at: number }[] }

/** Opens a run's stream and reads it while fake time runs, until it closes or `budgetMs` has passed (then it aborts). */
export async function readStream(sid: string, rid: string, lastEventId?: number, budgetMs = 120_000): Promise<Reading> {
  const abort = new AbortController()
  const response = await fetch(api(`/sessions/${sid}/runs/${rid}/events`), {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
    signal: abort.signal,
  })
  expect(response.status).toBe(200)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const reading: Reading = { frames: [], arrivals: [], comments: [] }
  let buffer = ''
  let closed = false
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const lines = block.split('\n')
          for (const line of lines) if (line.startsWith(':')) reading.comments.push({ text: line.slice(1).trim(), at: Date.now() })
          const field = (prefix: string) => lines.find((l) => l.startsWith(prefix))?.slice(prefix.length)
          const event = field('event: ')
          if (event === undefined) continue
          reading.frames.push({ id: Number(field('id: ')), event, data: field('data: ') ?? '' })
          reading.arrivals.push(Date.now())
        }
      }
    } catch {
      // aborted by the budget
    }
    closed = true
  })()
  for (let spent = 0; !closed && spent < budgetMs; spent += 100) await vi.advanceTimersByTimeAsync(100)
  if (!closed) abort.abort()
  await pump
  return reading
}

/** A tool part without its times (which the stream does not carry). */
export type Untimed = Exclude<Part, ToolPart> | Omit<ToolPart, 'started_at' | 'ended_at'>

export function untimed(parts: readonly Part[] | undefined): Untimed[] {
  return (parts ?? []).map((part) => {
    if (part.type !== 'tool') return part
    const { started_at: _started, ended_at: _ended, ...rest } = part
    return rest
  })
}

/**
 * Folds stream frames into parts as a client would, from the wire page's rules alone: text and
 * reasoning extend a last part of their kind, a tool starts at `tool_call` and changes with the
 * events naming it. Also returns the last usage.
 */
export function foldFrames(frames: readonly Frame[], parts: Untimed[] = []): { parts: Untimed[]; usage?: Usage } {
  let usage: Usage | undefined
  for (const frame of frames) {
    const d = data<Record<string, unknown>>(frame)
    const last = parts.at(-1)
    const tool = () => parts.find((p) => p.type === 'tool' && p.tool_call_id === d.tool_call_id) as Extract<Untimed, { type: 'tool' }>
    switch (frame.event) {
      case 'delta':
      case 'reasoning': {
        const type = frame.event === 'delta' ? 'text' : 'reasoning'
        if (last && last.type === type) parts[parts.length - 1] = { type, text: last.text + String(d.text) }
        else parts.push({ type, text: String(d.text) })
        break
      }
      case 'tool_call':
        parts.push({ type: 'tool', tool_call_id: String(d.tool_call_id), name: String(d.name), effect: d.effect as 'read', input: '', status: 'input' })
        break
      case 'tool_input':
        tool().input += String(d.delta)
        break
      case 'tool_approval':
        tool().status = 'awaiting_approval'
        break
      case 'tool_running':
        tool().status = 'running'
        break
      case 'tool_result': {
        const { tool_call_id: _id, ...result } = d
        Object.assign(tool(), result)
        break
      }
      case 'usage':
        usage = d as Usage
        break
    }
  }
  return { parts, usage }
}
