import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SetupServer } from 'msw/node'
import { createTestDaemon } from '../../mocks/node'
import { createDaemon, replyFor, type DaemonOptions, type DaemonStorage, type MockDaemon } from '../../mocks/model'
import { RAW_ERROR_TEXT, UNKNOWN_CODE, UnknownOutcomeError, parseOutcome, validatePlan } from '../../mocks/faults'
import {
  MAX_CONTENT_LENGTH,
  type CancelReceipt,
  type Message,
  type RefusalBody,
  type RegenerateReceipt,
  type Run,
  type SendReceipt,
  type Session,
} from '../../src/wire/types'

const ORIGIN = 'http://daemon.test'
const NOW = 1_800_000_000_000

let daemon: MockDaemon
let server: SetupServer

/** Replaces the daemon under test; every test starts with a fast one (1 ms between deltas). */
function boot(options: DaemonOptions = {}): MockDaemon {
  daemon?.dispose()
  server?.close()
  ;({ daemon, server } = createTestDaemon({ deltaDelayMs: 1, ...options }))
  server.listen({ onUnhandledRequest: 'error' })
  return daemon
}

beforeEach(() => {
  boot()
})
afterEach(() => {
  vi.useRealTimers()
  daemon.dispose()
  server.close()
})

// --- HTTP helpers ----------------------------------------------------------------------------

async function call<T = RefusalBody>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${ORIGIN}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T }
}

const api = (path: string) => `/api/v1${path}`

async function newSession(title?: string): Promise<Session> {
  const { status, body } = await call<Session>('POST', api('/sessions'), title === undefined ? {} : { title })
  expect(status).toBe(201)
  return body
}

let sent = 0
async function send(sid: string, content = 'What is the capital of France?', clientId = `cid-${++sent}`) {
  return call<SendReceipt>('POST', api(`/sessions/${sid}/messages`), { content, client_message_id: clientId })
}

async function accepted(sid: string, content?: string): Promise<SendReceipt> {
  const { status, body } = await send(sid, content)
  expect(status).toBe(202)
  return body
}

async function messages(sid: string): Promise<Message[]> {
  return (await call<{ messages: Message[] }>('GET', api(`/sessions/${sid}/messages`))).body.messages
}

type Frame = { id: string | undefined; event: string; data: string }
type Reading = { frames: Frame[]; comments: string[] }

/**
 * Reads an event stream to its end (or until `stopAt` says so, then aborts). A tiny line
 * splitter is enough here: the daemon writes whole frames, `\n` line ends, one data line.
 */
async function readStream(
  sid: string,
  rid: string,
  options: { lastEventId?: number; query?: string; stopAt?: (frame: Frame, reading: Reading) => boolean } = {},
): Promise<Reading> {
  const abort = new AbortController()
  const headers: Record<string, string> = options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) }
  const response = await fetch(`${ORIGIN}${api(`/sessions/${sid}/runs/${rid}/events`)}${options.query ?? ''}`, {
    headers,
    signal: abort.signal,
  })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/event-stream')
  expect(response.headers.get('cache-control')).toBe('no-cache')
  const reading: Reading = { frames: [], comments: [] }
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return reading
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const frame: Frame = { id: undefined, event: 'message', data: '' }
      let isFrame = false
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) reading.comments.push(line.slice(1).trim())
        else if (line.startsWith('id: ')) frame.id = line.slice(4)
        else if (line.startsWith('event: ')) frame.event = line.slice(7)
        else if (line.startsWith('data: ')) {
          frame.data = line.slice(6)
          isFrame = true
        }
      }
      if (!isFrame) continue
      reading.frames.push(frame)
      if (options.stopAt?.(frame, reading)) {
        abort.abort()
        return reading
      }
    }
  }
}

const names = (reading: Reading) => reading.frames.map((f) => f.event)
const dataOf = <T>(frame: Frame | undefined): T => JSON.parse(frame?.data ?? 'null') as T
const textOf = (reading: Reading) =>
  reading.frames
    .filter((f) => f.event === 'delta')
    .map((f) => dataOf<{ text: string }>(f).text)
    .join('')

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

const runOf = (rid: string) => daemon.state().runs.find((r) => r.id === rid)
const messageOf = (id: string) => daemon.state().messages.find((m) => m.id === id)
const ended = (rid: string) => () => ['completed', 'failed', 'cancelled'].includes(runOf(rid)?.status ?? '')

// --- Sessions --------------------------------------------------------------------------------

describe('sessions', () => {
  it('creates sessions untitled or with the given title and lists them newest first', async () => {
    const first = await newSession()
    const second = await newSession('Deploy notes')
    // Untitled is "", never a title baked in one language: the client labels it in the operator's.
    expect(first).toMatchObject({ title: '', status: 'idle' })
    expect(first.id).toMatch(/^ses_/)
    expect(second.title).toBe('Deploy notes')
    const { status, body } = await call<{ sessions: Session[] }>('GET', api('/sessions'))
    expect(status).toBe(200)
    expect(body.sessions.map((s) => s.id)).toEqual([second.id, first.id])
  })

  it('accepts a POST with no body at all', async () => {
    const response = await fetch(`${ORIGIN}${api('/sessions')}`, { method: 'POST' })
    expect(response.status).toBe(201)
  })

  it.each([
    ['a title that is not a string', { title: 42 }, 422, 'invalid_request'],
    ['a title over 200 characters', { title: 'x'.repeat(201) }, 422, 'title_too_long'],
    ['a body that is not an object', [1, 2], 422, 'invalid_request'],
    ['a body that is not JSON', '{nope', 400, 'invalid_request'],
  ])('refuses %s (%i %s) and creates nothing', async (_name, body, status, code) => {
    const refused = await call('POST', api('/sessions'), body)
    expect(refused.status).toBe(status)
    expect(refused.body).toEqual({ error: expect.any(String), code })
    expect(daemon.state().sessions).toEqual([])
  })

  it('accepts a title of exactly 200 characters', async () => {
    expect((await newSession('t'.repeat(200))).title).toHaveLength(200)
  })
})

// --- Sending ---------------------------------------------------------------------------------

describe('sending', () => {
  it('creates the operator message, the agent reply and its run in one step, then streams the reply', async () => {
    // Text only: `ok` shows agent steps before its answer (mock-daemon-steps.test.ts).
    daemon.plan(['plain'])
    const session = await newSession()
    const receipt = await accepted(session.id, 'Tell me about tides')
    expect(receipt).toEqual({ message_id: expect.stringMatching(/^msg_/), run_id: expect.stringMatching(/^run_/), queued: false })

    const reading = await readStream(session.id, receipt.run_id)
    const [start, ...rest] = reading.frames
    expect(start).toMatchObject({ id: '1', event: 'start' })
    expect(rest.at(-1)?.event).toBe('done')
    expect(rest.slice(0, -1).every((f) => f.event === 'delta')).toBe(true)
    expect(rest.length).toBeGreaterThan(3)
    expect(reading.frames.map((f) => Number(f.id))).toEqual(reading.frames.map((_, i) => i + 1))

    const [operator, agent] = await messages(session.id)
    expect(operator).toMatchObject({
      id: receipt.message_id,
      role: 'operator',
      content: 'Tell me about tides',
      client_message_id: 'cid-' + sent,
      superseded: false,
    })
    expect(agent).toMatchObject({
      role: 'agent',
      reply_to: receipt.message_id,
      run_id: receipt.run_id,
      status: 'complete',
      content: textOf(reading),
      superseded: false,
    })
    expect(dataOf<{ message_id: string }>(start).message_id).toBe(agent!.id)
    expect(agent!.error).toBeUndefined()
    expect(agent!.retry).toBeUndefined()
  })

  it('streams the same reply for the same prompt, and a different one for another prompt', async () => {
    const session = await newSession()
    const a = await accepted(session.id, 'same prompt')
    await until(ended(a.run_id))
    const b = await accepted(session.id, 'same prompt')
    await until(ended(b.run_id))
    const c = await accepted(session.id, 'another prompt entirely')
    await until(ended(c.run_id))
    const replies = (await messages(session.id)).filter((m) => m.role === 'agent').map((m) => m.content)
    expect(replies[0]).toBe(replyFor('same prompt'))
    expect(replies[1]).toBe(replies[0])
    expect(replies[2]).not.toBe(replies[0])
  })

  it('updates the agent content as deltas arrive, so GET messages shows partial text', async () => {
    boot({ deltaDelayMs: 1, slowDelayMs: 5 })
    daemon.plan(['slow'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const reading = await readStream(session.id, receipt.run_id, { stopAt: (f) => f.event === 'delta' && Number(f.id) === 4 })
    const agent = (await messages(session.id)).find((m) => m.role === 'agent')!
    expect(agent.status).toBe('streaming')
    expect(agent.content.startsWith(textOf(reading))).toBe(true)
    expect(agent.content.length).toBeLessThan(replyFor('What is the capital of France?', true).length)
    expect(daemon.state().sessions[0]!.status).toBe('running')
  })

  it('refuses a send to an unknown session with 404 session_not_found', async () => {
    const refused = await send('ses_missing')
    expect(refused).toEqual({ status: 404, body: { error: expect.any(String), code: 'session_not_found' } })
  })

  it.each([
    ['whitespace-only content', { content: ' \n\t ', client_message_id: 'x' }, 422, 'content_empty'],
    ['content over 32,000 characters', { content: 'a'.repeat(MAX_CONTENT_LENGTH + 1), client_message_id: 'x' }, 422, 'content_too_long'],
    ['missing content', { client_message_id: 'x' }, 422, 'invalid_request'],
    ['content that is not a string', { content: 5, client_message_id: 'x' }, 422, 'invalid_request'],
    ['missing client_message_id', { content: 'hi' }, 422, 'invalid_request'],
    ['an empty client_message_id', { content: 'hi', client_message_id: '' }, 422, 'invalid_request'],
    ['a body that is not JSON', 'content=hi', 400, 'invalid_request'],
  ])('refuses %s and changes nothing', async (_name, body, status, code) => {
    const session = await newSession()
    daemon.plan(['send_error'])
    const refused = await call('POST', api(`/sessions/${session.id}/messages`), body)
    expect(refused).toEqual({ status, body: { error: expect.any(String), code } })
    const state = daemon.state()
    expect(state.messages).toEqual([])
    expect(state.runs).toEqual([])
    // A refused request does not take the send fault meant for the next real send.
    expect(state.plan).toEqual(['send_error'])
  })

  it('accepts content of exactly 32,000 characters', async () => {
    const session = await newSession()
    expect((await send(session.id, 'b'.repeat(MAX_CONTENT_LENGTH))).status).toBe(202)
  })

  it('refuses a reused client_message_id with 409 and creates no second message or run', async () => {
    const session = await newSession()
    const first = await send(session.id, 'hello', 'uuid-1')
    expect(first.status).toBe(202)
    daemon.plan(['accept_then_drop', 'rate_limited'])
    const before = daemon.state()
    const again = await send(session.id, 'hello', 'uuid-1')
    expect(again).toEqual({ status: 409, body: { error: expect.any(String), code: 'message_duplicate' } })
    const after = daemon.state()
    expect(after.messages.length).toBe(before.messages.length)
    expect(after.runs.length).toBe(before.runs.length)
    expect(after.plan).toEqual(['accept_then_drop', 'rate_limited'])
    // The key is per session.
    const other = await newSession()
    daemon.plan([])
    expect((await send(other.id, 'hello', 'uuid-1')).status).toBe(202)
  })
})

// --- Listing ---------------------------------------------------------------------------------

describe('listing messages', () => {
  it('refuses an unknown session with 404 session_not_found', async () => {
    const refused = await call('GET', api('/sessions/ses_nope/messages'))
    expect(refused).toEqual({ status: 404, body: { error: expect.any(String), code: 'session_not_found' } })
  })

  it('lists oldest first, superseded messages included, and only the session’s own', async () => {
    const session = await newSession()
    const other = await newSession()
    const first = await accepted(session.id, 'one')
    await until(ended(first.run_id))
    await accepted(other.id, 'elsewhere')
    const regen = await call<RegenerateReceipt>('POST', api(`/sessions/${session.id}/messages/${first.message_id}/regenerate`))
    await until(ended(regen.body.run_id))
    const list = await messages(session.id)
    expect(list.map((m) => [m.role, m.superseded])).toEqual([
      ['operator', false],
      ['agent', true],
      ['agent', false],
    ])
    expect(list.every((m) => m.session_id === session.id)).toBe(true)
  })
})

// --- One run per session ---------------------------------------------------------------------

describe('the run queue', () => {
  it('queues a second run behind the first and starts it when the first ends', async () => {
    const session = await newSession()
    const first = await accepted(session.id, 'first')
    const second = await accepted(session.id, 'second')
    expect(first.queued).toBe(false)
    expect(second.queued).toBe(true)
    expect(messageOf(runOf(second.run_id)!.reply_message_id)!.status).toBe('queued')

    let firstAtStart: string | undefined
    const reading = await readStream(session.id, second.run_id, {
      stopAt: (f) => {
        if (f.event === 'start') firstAtStart = runOf(first.run_id)?.status
        return false
      },
    })
    expect(reading.frames[0]).toMatchObject({ id: '1', event: 'queued', data: JSON.stringify({ position: 1 }) })
    expect(names(reading).slice(1, 2)).toEqual(['start'])
    expect(names(reading).at(-1)).toBe('done')
    expect(firstAtStart).toBe('completed')
    await until(() => daemon.state().sessions.every((s) => s.status === 'idle'))
  })

  it('counts every run ahead in the position, and tells a waiting run when it moves up', async () => {
    daemon.plan(['hang'])
    const session = await newSession()
    const first = await accepted(session.id)
    const second = await accepted(session.id)
    const third = await accepted(session.id)
    expect(daemon.events(third.run_id)).toEqual([{ id: 1, event: 'queued', data: '{"position":2}' }])

    // Cancelling a queued run ends it at once; it never starts.
    const cancelled = await call<CancelReceipt>('POST', api(`/sessions/${session.id}/runs/${second.run_id}/cancel`))
    expect(cancelled).toEqual({ status: 200, body: { run_id: second.run_id, status: 'cancelled' } })
    expect(names(await readStream(session.id, second.run_id))).toEqual(['queued', 'cancelled'])
    expect(messageOf(runOf(second.run_id)!.reply_message_id)).toMatchObject({ status: 'cancelled' })
    expect(daemon.events(third.run_id)!.map((e) => e.data)).toEqual(['{"position":2}', '{"position":1}'])

    await call('POST', api(`/sessions/${session.id}/runs/${first.run_id}/cancel`))
    await until(ended(third.run_id))
    expect(runOf(third.run_id)!.status).toBe('completed')
    expect(daemon.events(second.run_id)!.some((e) => e.event === 'start')).toBe(false)
  })

  it('runs sessions independently of each other', async () => {
    daemon.plan(['hang'])
    const a = await newSession()
    const b = await newSession()
    await accepted(a.id)
    expect((await accepted(b.id)).queued).toBe(false)
  })
})

// --- Regenerate ------------------------------------------------------------------------------

describe('regenerate', () => {
  const regenerate = (sid: string, mid: string) =>
    call<RegenerateReceipt>('POST', api(`/sessions/${sid}/messages/${mid}/regenerate`))

  it('supersedes every later message, operator ones too, and writes a new reply to the anchor', async () => {
    const session = await newSession()
    const first = await accepted(session.id, 'first question')
    await until(ended(first.run_id))
    const second = await accepted(session.id, 'second question')
    await until(ended(second.run_id))
    const before = await messages(session.id)

    const { status, body } = await regenerate(session.id, first.message_id)
    expect(status).toBe(202)
    expect(body.queued).toBe(false)
    expect(body.run_id).not.toBe(first.run_id)
    expect(body.superseded).toEqual(before.slice(1).map((m) => m.id))

    const reading = await readStream(session.id, body.run_id)
    expect(names(reading).at(-1)).toBe('done')
    const after = await messages(session.id)
    expect(after.filter((m) => m.role === 'operator')).toHaveLength(2)
    expect(after.slice(0, 4).map((m) => m.superseded)).toEqual([false, true, true, true])
    expect(after[0]).toEqual(before[0])
    const fresh = after[4]!
    expect(fresh).toMatchObject({ role: 'agent', reply_to: first.message_id, run_id: body.run_id, status: 'complete' })
    expect(fresh.content).toBe(replyFor('first question'))
    expect(runOf(body.run_id)).toMatchObject({ anchor_message_id: first.message_id, reply_message_id: fresh.id })
  })

  it('cancels a superseded reply that is still running, recording it cancelled', async () => {
    daemon.plan(['hang'])
    const session = await newSession()
    const first = await accepted(session.id)
    const { body } = await regenerate(session.id, first.message_id)
    expect(body.queued).toBe(false)
    expect(runOf(first.run_id)).toMatchObject({ status: 'cancelled' })
    expect(runOf(first.run_id)!.retry).toBeUndefined()
    expect(names(await readStream(session.id, first.run_id))).toEqual(['start', 'cancelled'])
    await until(ended(body.run_id))
  })

  it('queues the new run while an earlier run of the session is active', async () => {
    daemon.plan(['hang'])
    const session = await newSession()
    const first = await accepted(session.id)
    const second = await accepted(session.id)
    const { body } = await regenerate(session.id, second.message_id)
    expect(body).toMatchObject({ queued: true, superseded: [runOf(second.run_id)!.reply_message_id] })
    expect(runOf(second.run_id)!.status).toBe('cancelled')
    expect(daemon.events(body.run_id)).toEqual([{ id: 1, event: 'queued', data: '{"position":1}' }])
    await call('POST', api(`/sessions/${session.id}/runs/${first.run_id}/cancel`))
    await until(ended(body.run_id))
    expect(runOf(body.run_id)!.status).toBe('completed')
  })

  it('refuses an unknown message, a superseded operator message and a message of another session with 404', async () => {
    const session = await newSession()
    const other = await newSession()
    const first = await accepted(session.id)
    await until(ended(first.run_id))
    const second = await accepted(session.id)
    await until(ended(second.run_id))
    await regenerate(session.id, first.message_id)
    for (const [sid, mid] of [
      [session.id, 'msg_unknown'],
      [session.id, second.message_id],
      [other.id, first.message_id],
      ['ses_unknown', first.message_id],
    ] as const) {
      const before = daemon.state()
      const refused = await regenerate(sid, mid)
      expect(refused).toEqual({ status: 404, body: { error: expect.any(String), code: 'message_not_found' } })
      expect(daemon.state().runs.length).toBe(before.runs.length)
    }
  })

  it('refuses an agent message with 422 not_operator_message and changes nothing', async () => {
    const session = await newSession()
    const first = await accepted(session.id)
    await until(ended(first.run_id))
    const reply = runOf(first.run_id)!.reply_message_id
    const before = daemon.state()
    expect(await regenerate(session.id, reply)).toEqual({
      status: 422,
      body: { error: expect.any(String), code: 'not_operator_message' },
    })
    expect(daemon.state().messages).toEqual(before.messages)
  })
})

// --- Runs ------------------------------------------------------------------------------------

describe('runs', () => {
  it('reads a run as its wire record', async () => {
    const session = await newSession()
    const receipt = await accepted(session.id)
    await until(ended(receipt.run_id))
    const { status, body } = await call<Run>('GET', api(`/sessions/${session.id}/runs/${receipt.run_id}`))
    expect(status).toBe(200)
    expect(body).toEqual({
      id: receipt.run_id,
      session_id: session.id,
      anchor_message_id: receipt.message_id,
      reply_message_id: expect.stringMatching(/^msg_/),
      status: 'completed',
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), cost_usd: expect.any(Number) },
    })
  })

  it.each([
    ['GET', ''],
    ['POST', '/cancel'],
    ['GET', '/events'],
  ])('refuses %s runs/:rid%s for an unknown run or another session’s run with 404 run_not_found', async (method, suffix) => {
    const session = await newSession()
    const other = await newSession()
    const receipt = await accepted(session.id)
    for (const path of [`/sessions/${session.id}/runs/run_nope${suffix}`, `/sessions/${other.id}/runs/${receipt.run_id}${suffix}`]) {
      expect(await call(method, api(path))).toEqual({ status: 404, body: { error: expect.any(String), code: 'run_not_found' } })
    }
  })

  it('cancels a streaming run: cancelled, never failed, no retry, partial text kept', async () => {
    daemon.plan(['slow'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const live = readStream(session.id, receipt.run_id)
    await until(() => (daemon.events(receipt.run_id)?.length ?? 0) >= 3)
    const { status, body } = await call<CancelReceipt>('POST', api(`/sessions/${session.id}/runs/${receipt.run_id}/cancel`))
    expect(status).toBe(200)
    expect(body).toEqual({ run_id: receipt.run_id, status: 'cancelled' })
    const reading = await live
    expect(names(reading).at(-1)).toBe('cancelled')
    expect(dataOf<{ message_id: string }>(reading.frames.at(-1))).toEqual({ message_id: runOf(receipt.run_id)!.reply_message_id })
    const run = runOf(receipt.run_id)!
    expect(run.error).toBeUndefined()
    expect(run.retry).toBeUndefined()
    const reply = messageOf(run.reply_message_id)!
    expect(reply).toMatchObject({ status: 'cancelled', content: textOf(reading) })
    expect(reply.error).toBeUndefined()
    expect(reply.retry).toBeUndefined()
    expect(daemon.state().sessions[0]!.status).toBe('idle')
  })

  it('cancels a hanging run (a run stuck before its first delta)', async () => {
    daemon.plan(['hang'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const live = readStream(session.id, receipt.run_id)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(daemon.events(receipt.run_id)!.map((e) => e.event)).toEqual(['start'])
    await call('POST', api(`/sessions/${session.id}/runs/${receipt.run_id}/cancel`))
    expect(names(await live)).toEqual(['start', 'cancelled'])
    expect(runOf(receipt.run_id)!.status).toBe('cancelled')
  })

  it('answers a cancel of an ended run with its final status, changing nothing', async () => {
    daemon.plan(['ok', 'overloaded'])
    const session = await newSession()
    const done = await accepted(session.id)
    await until(ended(done.run_id))
    const failed = await accepted(session.id)
    await until(ended(failed.run_id))
    const before = daemon.state()
    for (const [rid, final] of [
      [done.run_id, 'completed'],
      [failed.run_id, 'failed'],
    ] as const) {
      expect(await call('POST', api(`/sessions/${session.id}/runs/${rid}/cancel`))).toEqual({
        status: 200,
        body: { run_id: rid, status: final },
      })
    }
    expect(daemon.state().runs).toEqual(before.runs)
    expect(daemon.state().messages).toEqual(before.messages)
  })
})

// --- Replay ----------------------------------------------------------------------------------

describe('replay by Last-Event-ID', () => {
  it('replays an ended run to its terminal event and closes, from any point', async () => {
    const session = await newSession()
    const receipt = await accepted(session.id)
    await until(ended(receipt.run_id))
    const log = daemon.events(receipt.run_id)!
    const full = await readStream(session.id, receipt.run_id)
    expect(full.frames.map((f) => [Number(f.id), f.event, f.data])).toEqual(log.map((e) => [e.id, e.event, e.data]))
    const tail = await readStream(session.id, receipt.run_id, { lastEventId: 3 })
    expect(tail.frames[0]!.id).toBe('4')
    expect(tail.frames).toEqual(full.frames.slice(3))
    const byQuery = await readStream(session.id, receipt.run_id, { query: '?last_event_id=3' })
    expect(byQuery.frames).toEqual(tail.frames)
    const nothing = await readStream(session.id, receipt.run_id, { lastEventId: log.length })
    expect(nothing.frames).toEqual([])
  })

  it('treats a Last-Event-ID that is not a number as a fresh attach', async () => {
    const session = await newSession()
    const receipt = await accepted(session.id)
    await until(ended(receipt.run_id))
    const response = await fetch(`${ORIGIN}${api(`/sessions/${session.id}/runs/${receipt.run_id}/events`)}`, {
      headers: { 'last-event-id': 'banana' },
    })
    expect(await response.text()).toMatch(/^id: 1\nevent: start\n/)
  })
})

// --- Faults ----------------------------------------------------------------------------------

describe('fault outcomes that fail a run', () => {
  beforeEach(() => {
    boot({ deltaDelayMs: 1, now: () => NOW })
  })

  it.each([
    ['rate_limited', 'model_rate_limited', { retryable: true, retry_class: 'rate_limited' }],
    ['rate_limited:45', 'model_rate_limited', { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 45_000 }],
    ['quota:50', 'model_rate_limited', { retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 50 * 60_000 }],
    ['overloaded', 'model_unavailable', { retryable: true, retry_class: 'overloaded' }],
    ['unreachable', 'model_unreachable', { retryable: true, retry_class: 'network' }],
    ['out_of_credit', 'model_out_of_credit', { retryable: false, retry_class: 'spend_limit_exceeded' }],
    ['auth_failed', 'model_rejected', { retryable: false, retry_class: 'auth_failed' }],
    ['credentials_unresolved', 'credentials_unresolved', { retryable: false, retry_class: 'credentials_unresolved' }],
    ['spend_limit', 'spend_limit_exceeded', { retryable: false, retry_class: 'spend_limit_exceeded' }],
    ['context_overflow', 'context_overflow', { retryable: false, retry_class: 'context_overflow' }],
    ['hard_quota', 'quota_exhausted', { retryable: false, retry_class: 'quota_exhausted' }],
  ])('%s fails before the first delta with %s and persists the classification', async (outcome, code, retry) => {
    daemon.plan([outcome])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const reading = await readStream(session.id, receipt.run_id)
    expect(names(reading)).toEqual(['start', 'error'])
    const data = dataOf<RefusalBody>(reading.frames[1])
    expect(data).toEqual({ error: expect.stringMatching(/\w+ \w+/), code })
    const run = runOf(receipt.run_id)!
    expect(run).toMatchObject({ status: 'failed', outcome, error: { code, message: data.error }, retry })
    expect(run.retry).toEqual(retry)
    const reply = messageOf(run.reply_message_id)!
    expect(reply).toMatchObject({ status: 'failed', content: '', error: { code, message: data.error } })
    expect(reply.retry).toEqual(retry)
    expect(daemon.state().sessions[0]!.status).toBe('idle')
  })

  it.each([
    ['code:answer_empty', 'answer_empty', { retryable: false, retry_class: 'answer' }],
    ['code:answer_tool_text', 'answer_tool_text', { retryable: false, retry_class: 'answer' }],
    ['code:answer_tool_call', 'answer_tool_call', { retryable: false, retry_class: 'answer' }],
    ['code:answer_too_long', 'answer_too_long', { retryable: false, retry_class: 'answer' }],
    ['code:answer_failed', 'answer_failed', { retryable: false, retry_class: 'answer' }],
    ['code:answer_not_saved', 'answer_not_saved', { retryable: false, retry_class: 'answer' }],
    ['code:search_failed', 'search_failed', { retryable: false, retry_class: 'answer' }],
    ['code:model_unavailable', 'model_unavailable', { retryable: true, retry_class: 'overloaded' }],
    ['code:model_rejected', 'model_rejected', { retryable: false, retry_class: 'rejected' }],
    ['code:quota_exhausted', 'quota_exhausted', { retryable: false, retry_class: 'quota_exhausted' }],
    ['code:stream_ended', 'stream_ended', undefined],
    ['code:brand_new_code', 'brand_new_code', undefined],
    ['unknown_code', UNKNOWN_CODE, undefined],
  ])('%s streams a few deltas, then fails with %s', async (outcome, code, retry) => {
    daemon.plan([outcome])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const reading = await readStream(session.id, receipt.run_id)
    expect(names(reading)).toEqual(['start', 'delta', 'delta', 'delta', 'error'])
    const data = dataOf<RefusalBody>(reading.frames[4])
    expect(data).toEqual({ error: expect.stringMatching(/\w+ \w+/), code })
    const run = runOf(receipt.run_id)!
    expect(run.error).toEqual({ code, message: data.error })
    expect(run.retry).toEqual(retry)
    const reply = messageOf(run.reply_message_id)!
    expect(reply).toMatchObject({ status: 'failed', content: textOf(reading), error: { code, message: data.error } })
    expect(reply.retry).toEqual(retry)
  })

  it('raw sends a plain-text error and persists the text with an empty code and no retry class', async () => {
    daemon.plan(['raw'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const reading = await readStream(session.id, receipt.run_id)
    expect(names(reading).at(-1)).toBe('error')
    expect(reading.frames.at(-1)!.data).toBe(RAW_ERROR_TEXT)
    expect(() => JSON.parse(RAW_ERROR_TEXT) as unknown).toThrow()
    const run = runOf(receipt.run_id)!
    expect(run).toMatchObject({ status: 'failed', error: { code: '', message: RAW_ERROR_TEXT } })
    expect(run.retry).toBeUndefined()
    expect(messageOf(run.reply_message_id)).toMatchObject({ status: 'failed', error: { code: '', message: RAW_ERROR_TEXT } })
    expect(messageOf(run.reply_message_id)!.retry).toBeUndefined()
  })

  it('a GET of a failed run carries the same classification', async () => {
    daemon.plan(['quota:5'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    await until(ended(receipt.run_id))
    const { body } = await call<Run>('GET', api(`/sessions/${session.id}/runs/${receipt.run_id}`))
    expect(body.retry).toEqual({ retryable: true, retry_class: 'rate_limited', retry_after_until: NOW + 5 * 60_000 })
    expect(body).not.toHaveProperty('outcome')
  })
})

describe('fault outcomes that complete', () => {
  it('slow streams a longer reply, more slowly, and completes', async () => {
    boot({ deltaDelayMs: 1, slowDelayMs: 4 })
    daemon.plan(['slow'])
    const session = await newSession()
    const started = Date.now()
    const receipt = await accepted(session.id, 'slowly please')
    const reading = await readStream(session.id, receipt.run_id)
    const deltas = reading.frames.filter((f) => f.event === 'delta').length
    expect(names(reading).at(-1)).toBe('done')
    expect(textOf(reading)).toBe(replyFor('slowly please', true))
    expect(textOf(reading).length).toBeGreaterThan(replyFor('slowly please').length)
    expect(Date.now() - started).toBeGreaterThanOrEqual(deltas * 4 - 5)
  })

  it('drop closes the live stream mid-run without a terminal event; a reattach gets the rest', async () => {
    daemon.plan(['drop'])
    const session = await newSession()
    const receipt = await accepted(session.id, 'drop me')
    const first = await readStream(session.id, receipt.run_id)
    expect(names(first).some((n) => ['done', 'cancelled', 'error'].includes(n))).toBe(false)
    expect(names(first)).toContain('delta')
    const lastId = Number(first.frames.at(-1)!.id)
    await until(ended(receipt.run_id))
    expect(runOf(receipt.run_id)!.status).toBe('completed')
    const rest = await readStream(session.id, receipt.run_id, { lastEventId: lastId })
    expect(Number(rest.frames[0]!.id)).toBe(lastId + 1)
    expect(names(rest).at(-1)).toBe('done')
    expect(textOf(first) + textOf(rest)).toBe(replyFor('drop me'))
    expect(messageOf(runOf(receipt.run_id)!.reply_message_id)!.content).toBe(replyFor('drop me'))
  })

  it('drop closes the connection before half the deltas, and a live reattach follows to the end', async () => {
    boot({ deltaDelayMs: 5 })
    daemon.plan(['drop'])
    const session = await newSession()
    const receipt = await accepted(session.id, 'reattach while running')
    const first = await readStream(session.id, receipt.run_id)
    const total = daemon.events(receipt.run_id)!.length
    expect(runOf(receipt.run_id)!.status).toBe('running')
    const rest = await readStream(session.id, receipt.run_id, { lastEventId: Number(first.frames.at(-1)!.id) })
    expect(names(rest).at(-1)).toBe('done')
    expect(first.frames.length + rest.frames.length).toBe(daemon.events(receipt.run_id)!.length)
    expect(total).toBeLessThan(daemon.events(receipt.run_id)!.length)
  })

  it('lag sends stream_lagged and closes; the run goes on and the frame is not in the log', async () => {
    boot({ deltaDelayMs: 3 })
    daemon.plan(['lag'])
    const session = await newSession()
    const receipt = await accepted(session.id, 'lag me')
    const first = await readStream(session.id, receipt.run_id)
    const lagged = first.frames.at(-1)!
    expect(lagged.event).toBe('error')
    expect(dataOf(lagged)).toEqual({ error: expect.any(String), code: 'stream_lagged' })
    // The frame repeats the last real id, so a reattach resumes right after it.
    const previous = first.frames.at(-2)!
    expect(lagged.id).toBe(previous.id)
    await until(ended(receipt.run_id))
    expect(runOf(receipt.run_id)!.status).toBe('completed')
    expect(daemon.events(receipt.run_id)!.some((e) => e.data.includes('stream_lagged'))).toBe(false)
    const rest = await readStream(session.id, receipt.run_id, { lastEventId: Number(lagged.id) })
    expect(textOf(first) + textOf(rest)).toBe(replyFor('lag me'))
    expect(names(rest).at(-1)).toBe('done')
  })
})

describe('send faults', () => {
  it('accept_then_drop stores the message and its run, then answers with a network error', async () => {
    daemon.plan(['accept_then_drop', 'overloaded'])
    const session = await newSession()
    await expect(send(session.id, 'lost in transit', 'uuid-lost')).rejects.toThrow(TypeError)
    const state = daemon.state()
    expect(state.plan).toEqual([])
    expect(state.runs).toHaveLength(1)
    expect(state.runs[0]!.outcome).toBe('overloaded')
    // The client's recovery: retry with the same id, get 409, find its message by client_message_id.
    expect((await send(session.id, 'lost in transit', 'uuid-lost')).status).toBe(409)
    const mine = (await messages(session.id)).find((m) => m.client_message_id === 'uuid-lost')!
    const reply = (await messages(session.id)).find((m) => m.reply_to === mine.id)!
    expect(reply.run_id).toBe(state.runs[0]!.id)
    expect(daemon.state().messages).toHaveLength(2)
  })

  it('send_error answers 500 internal_error and creates nothing; the next send is fine', async () => {
    daemon.plan(['send_error'])
    const session = await newSession()
    expect(await send(session.id, 'hi', 'uuid-500')).toEqual({
      status: 500,
      body: { error: expect.any(String), code: 'internal_error' },
    })
    expect(daemon.state()).toMatchObject({ messages: [], runs: [], plan: [] })
    expect((await send(session.id, 'hi', 'uuid-500')).status).toBe(202)
  })
})

// --- The fault plan --------------------------------------------------------------------------

describe('the fault plan', () => {
  it('is one queue: a send takes a send fault at its head, a run takes a run outcome at its head', async () => {
    daemon.plan(['send_error', 'rate_limited', 'accept_then_drop', 'ok', 'hang'])
    const session = await newSession()
    expect((await send(session.id)).status).toBe(500)
    const failed = await accepted(session.id)
    expect(runOf(failed.run_id)!.outcome).toBe('rate_limited')
    await until(ended(failed.run_id))
    // The head is a send fault: a regenerate runs `ok` and leaves it for the next send.
    const regen = await call<RegenerateReceipt>(
      'POST',
      api(`/sessions/${session.id}/messages/${failed.message_id}/regenerate`),
    )
    expect(runOf(regen.body.run_id)!.outcome).toBe('ok')
    expect(daemon.state().plan).toEqual(['accept_then_drop', 'ok', 'hang'])
    await until(ended(regen.body.run_id))
    await expect(send(session.id)).rejects.toThrow()
    expect(daemon.state().runs.at(-1)!.outcome).toBe('ok')
    const last = await accepted(session.id)
    expect(runOf(last.run_id)!.outcome).toBe('hang')
    // Run out: everything is ok.
    expect(daemon.state().plan).toEqual([])
  })

  it('a send with a run outcome at the head does not take it as a send fault', async () => {
    daemon.plan(['overloaded', 'send_error'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    expect(runOf(receipt.run_id)!.outcome).toBe('overloaded')
    expect(daemon.state().plan).toEqual(['send_error'])
  })

  it('replaces the pending plan and refuses an unknown outcome, keeping the plan it had', () => {
    daemon.plan(['hang', 'hang'])
    expect(daemon.plan(['ok'])).toEqual(['ok'])
    for (const bad of ['nope', 'rate_limited:', 'rate_limited:soon', 'quota:', 'code:', 'accept-then-drop', '', 'tier1:', 'tier1:0', 'tier1:x', 'tier1:-1']) {
      expect(() => daemon.plan(['ok', bad])).toThrow(/Unknown fault outcome/)
    }
    expect(daemon.state().plan).toEqual(['ok'])
  })

  it('throws a typed error carrying the entry and its position, for the panel to word', () => {
    const refuse = (plan: unknown[]) => {
      try {
        validatePlan(plan)
      } catch (error) {
        return error
      }
      throw new Error('expected the plan to be refused')
    }
    const error = refuse(['ok', 'tier1:2', 'tier1:two', 'flux'])
    expect(error).toBeInstanceOf(UnknownOutcomeError)
    expect(error).toMatchObject({ entry: 'tier1:two', position: 2 })
    expect((error as Error).message).toMatch(/tier1:N/)
    expect(refuse([7])).toMatchObject({ entry: 7, position: 0 })
  })

  it('knows every outcome of the design page', () => {
    const outcomes = [
      'ok', 'slow', 'hang', 'rate_limited', 'rate_limited:45', 'rate_limited:20', 'tier1:1', 'tier1:3', 'quota:50', 'overloaded', 'unreachable',
      'out_of_credit', 'auth_failed', 'credentials_unresolved', 'spend_limit', 'context_overflow', 'hard_quota',
      'code:answer_empty', 'unknown_code', 'raw', 'drop', 'lag', 'accept_then_drop', 'send_error',
    ]
    expect(validatePlan(outcomes)).toEqual(outcomes)
    expect(outcomes.every((o) => parseOutcome(o) !== undefined)).toBe(true)
    expect(validatePlan([' ok '])).toEqual(['ok'])
  })
})

// --- Mock control ----------------------------------------------------------------------------

describe('/__mock', () => {
  it('sets the plan, shows the state and resets', async () => {
    expect(await call('POST', '/__mock/plan', { faults: ['hang', 'raw'] })).toEqual({
      status: 200,
      body: { faults: ['hang', 'raw'] },
    })
    expect(daemon.state().plan).toEqual(['hang', 'raw'])
    const session = await newSession()
    const state = await call<{ sessions: Session[]; plan: string[] }>('GET', '/__mock/state')
    expect(state.status).toBe(200)
    expect(state.body.sessions.map((s) => s.id)).toEqual([session.id])
    expect((await call('POST', '/__mock/reset')).status).toBe(200)
    expect(daemon.state()).toMatchObject({ sessions: [], messages: [], runs: [], requests: [], plan: [] })
  })

  it.each([
    [{ faults: ['ok', 'flux'] }, 422],
    [{ faults: 'ok' }, 422],
    [{ faults: [3] }, 422],
    ['not json', 400],
  ])('refuses a bad plan %j with invalid_request and keeps the old one', async (body, status) => {
    daemon.plan(['hang'])
    expect(await call('POST', '/__mock/plan', body)).toEqual({ status, body: { error: expect.any(String), code: 'invalid_request' } })
    expect(daemon.state().plan).toEqual(['hang'])
  })

  it('ends live streams on reset', async () => {
    daemon.plan(['hang'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const live = readStream(session.id, receipt.run_id)
    await new Promise((resolve) => setTimeout(resolve, 10))
    daemon.reset()
    expect(names(await live)).toEqual(['start'])
  })
})

// --- Request log -----------------------------------------------------------------------------

describe('the request log', () => {
  it('lists every API request with method, path and time, and not the mock’s own', async () => {
    boot({ deltaDelayMs: 1, now: () => NOW })
    const session = await newSession()
    await send(session.id, 'count me', 'uuid-log')
    await send(session.id, 'count me', 'uuid-log')
    await call('GET', api(`/sessions/${session.id}/messages`))
    await call('GET', api('/sessions/ses_nope/messages'))
    await call('GET', '/__mock/state')
    const { requests } = daemon.state()
    expect(requests).toEqual([
      { method: 'POST', path: '/api/v1/sessions', at: NOW },
      { method: 'POST', path: `/api/v1/sessions/${session.id}/messages`, at: NOW },
      { method: 'POST', path: `/api/v1/sessions/${session.id}/messages`, at: NOW },
      { method: 'GET', path: `/api/v1/sessions/${session.id}/messages`, at: NOW },
      { method: 'GET', path: '/api/v1/sessions/ses_nope/messages', at: NOW },
    ])
  })

  it('keeps the query string of a stream request', async () => {
    const session = await newSession()
    const receipt = await accepted(session.id)
    await readStream(session.id, receipt.run_id, { query: '?last_event_id=2' })
    expect(daemon.state().requests.at(-1)).toMatchObject({
      method: 'GET',
      path: `/api/v1/sessions/${session.id}/runs/${receipt.run_id}/events?last_event_id=2`,
    })
  })
})

// --- Persistence -----------------------------------------------------------------------------

function memoryStorage(initial: string | null = null): DaemonStorage & { value: string | null; saves: number } {
  const storage = {
    value: initial,
    saves: 0,
    load: () => storage.value,
    save: (state: string) => {
      storage.value = state
      storage.saves++
    },
  }
  return storage
}

describe('persistence', () => {
  it('saves every change and loads it back as it was', async () => {
    const storage = memoryStorage()
    boot({ storage })
    const session = await newSession('kept')
    const receipt = await accepted(session.id)
    await until(ended(receipt.run_id))
    daemon.plan(['hang'])
    await Promise.resolve()
    const before = daemon.state()
    const events = daemon.events(receipt.run_id)
    const reloaded = createDaemon({ storage })
    expect(reloaded.state()).toEqual(before)
    expect(reloaded.events(receipt.run_id)).toEqual(events)
    reloaded.dispose()
  })

  it('resume() finishes an interrupted run exactly as an uninterrupted one, then the queued one', async () => {
    const storage = memoryStorage()
    boot({ storage, deltaDelayMs: 4 })
    const session = await newSession()
    const first = await accepted(session.id, 'interrupted prompt')
    const second = await accepted(session.id, 'queued prompt')
    await until(() => (daemon.events(first.run_id)?.length ?? 0) >= 4)
    // The tab goes away mid-stream (no flush: the per-task save must already hold the state).
    const idsBefore = daemon.events(first.run_id)!.map((e) => e.id)
    const snapshot = storage.value
    boot({ storage: memoryStorage(snapshot), deltaDelayMs: 1 })
    expect(runOf(first.run_id)!.status).toBe('running')
    expect(runOf(second.run_id)!.status).toBe('queued')
    // Not resumed yet: nothing moves.
    await new Promise((resolve) => setTimeout(resolve, 15))
    expect(daemon.events(first.run_id)!.map((e) => e.id)).toEqual(idsBefore)

    daemon.resume()
    const reading = await readStream(session.id, first.run_id)
    expect(names(reading).at(-1)).toBe('done')
    expect(reading.frames.map((f) => Number(f.id))).toEqual(reading.frames.map((_, i) => i + 1))
    expect(textOf(reading)).toBe(replyFor('interrupted prompt'))
    expect(messageOf(runOf(first.run_id)!.reply_message_id)!.content).toBe(replyFor('interrupted prompt'))
    await until(ended(second.run_id))
    expect(messageOf(runOf(second.run_id)!.reply_message_id)).toMatchObject({
      status: 'complete',
      content: replyFor('queued prompt'),
    })
  })

  it('keeps a resumed run on its planned outcome: a hang stays hanging, a failure still fails', async () => {
    const storage = memoryStorage()
    boot({ storage, deltaDelayMs: 50 })
    daemon.plan(['hang'])
    const session = await newSession()
    const hanging = await accepted(session.id)
    const other = await newSession()
    daemon.plan(['overloaded'])
    const failing = await accepted(other.id)
    await Promise.resolve()
    boot({ storage: memoryStorage(storage.value), deltaDelayMs: 1 })
    daemon.resume()
    await until(ended(failing.run_id))
    expect(runOf(failing.run_id)).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' } })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(runOf(hanging.run_id)!.status).toBe('running')
    expect(daemon.events(hanging.run_id)!.map((e) => e.event)).toEqual(['start'])
  })

  it('saves the pending plan too', async () => {
    const storage = memoryStorage()
    boot({ storage })
    daemon.plan(['raw', 'lag'])
    daemon.flush()
    expect(createDaemon({ storage }).state().plan).toEqual(['raw', 'lag'])
  })

  it.each([
    ['missing', null],
    ['not JSON', '{"version":1,'],
    ['another version', JSON.stringify({ version: 0, sessions: [] })],
    ['a wrong shape', JSON.stringify({ version: 1, tag: 'x', counter: 1, sessions: [{}], messages: [], runs: [], requests: [], plan: [] })],
    ['a bad plan', JSON.stringify({ version: 1, tag: 'x', counter: 1, sessions: [], messages: [], runs: [], requests: [], plan: ['boom'] })],
    [
      'an event the wire does not know',
      JSON.stringify({
        version: 1, tag: 'x', counter: 1, sessions: [], messages: [], requests: [], plan: [],
        runs: [{ id: 'r', session_id: 's', anchor_message_id: 'a', reply_message_id: 'm', status: 'running', outcome: 'ok', events: [{ id: 1, event: 'started', data: '{}' }] }],
      }),
    ],
  ])('starts fresh when the save is %s', (_name, saved) => {
    const fresh = createDaemon({ storage: memoryStorage(saved) })
    expect(fresh.state()).toEqual({ sessions: [], messages: [], runs: [], requests: [], plan: [] })
    fresh.dispose()
  })

  it('starts fresh when the storage throws, and survives a storage that refuses to save', async () => {
    const storage: DaemonStorage = {
      load: () => {
        throw new Error('blocked')
      },
      save: () => {
        throw new Error('quota exceeded')
      },
    }
    boot({ storage })
    const session = await newSession()
    const receipt = await accepted(session.id)
    await until(ended(receipt.run_id))
    expect(runOf(receipt.run_id)!.status).toBe('completed')
  })
})

// --- Keep-alive and clean-up (fake timers) ---------------------------------------------------

describe('stream keep-alive and clean-up', () => {
  it('sends a ping comment every 15 s while idle, and leaves no timer behind after the client aborts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    boot()
    daemon.plan(['hang'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    const abort = new AbortController()
    const response = await fetch(`${ORIGIN}${api(`/sessions/${session.id}/runs/${receipt.run_id}/events`)}`, {
      signal: abort.signal,
    })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    expect(decoder.decode((await reader.read()).value)).toMatch(/event: start/)
    await vi.advanceTimersByTimeAsync(14_999)
    expect(vi.getTimerCount()).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(decoder.decode((await reader.read()).value)).toBe(': ping\n\n')
    await vi.advanceTimersByTimeAsync(15_000)
    expect(decoder.decode((await reader.read()).value)).toBe(': ping\n\n')
    abort.abort()
    await vi.advanceTimersByTimeAsync(0)
    expect(vi.getTimerCount()).toBe(0)
    // The run itself is unaffected by the client leaving.
    expect(runOf(receipt.run_id)!.status).toBe('running')
  })

  it('slow takes several seconds at the default pacing, about 300 ms a delta', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    boot({ deltaDelayMs: 40 })
    daemon.plan(['slow'])
    const session = await newSession()
    const receipt = await accepted(session.id)
    await vi.advanceTimersByTimeAsync(299)
    expect(daemon.events(receipt.run_id)).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(daemon.events(receipt.run_id)).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(3_000)
    expect(runOf(receipt.run_id)!.status).toBe('running')
    await vi.advanceTimersByTimeAsync(60_000)
    expect(runOf(receipt.run_id)!.status).toBe('completed')
  })

  it('dispose() stops every run timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    boot()
    const session = await newSession()
    await accepted(session.id)
    expect(vi.getTimerCount()).toBeGreaterThan(0)
    daemon.dispose()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('paces deltas with setTimeout, so fake timers drive a run exactly', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    boot({ deltaDelayMs: 40 })
    const session = await newSession()
    const receipt = await accepted(session.id, 'timed')
    expect(daemon.events(receipt.run_id)!.map((e) => e.event)).toEqual(['start'])
    await vi.advanceTimersByTimeAsync(39)
    expect(daemon.events(receipt.run_id)).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(daemon.events(receipt.run_id)).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(40 * 100)
    expect(runOf(receipt.run_id)!.status).toBe('completed')
    expect(messageOf(runOf(receipt.run_id)!.reply_message_id)!.content).toBe(replyFor('timed'))
  })
})
