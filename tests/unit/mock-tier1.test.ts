/**
 * Tier 1 in the mock daemon: the policy (pure), then every path a run takes through it, driven
 * exactly by fake `setTimeout`/`clearTimeout`/`Date` (style.md, "Known traps"), over MSW's node
 * server as a client sees it.
 */
import type { SetupServer } from 'msw/node'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createTestDaemon } from '../../mocks/node'
import { createDaemon, replyFor, type DaemonStorage, type MockDaemon, type StreamEvent } from '../../mocks/model'
import { TIER1_BASE_MS, tier1After } from '../../mocks/tier1'
import { TIER1_MAX_ATTEMPTS, TIER1_WINDOW_MS, type CancelReceipt, type SendReceipt, type Session } from '../../src/wire/types'

const ORIGIN = 'http://daemon.test'
const T0 = Date.UTC(2026, 2, 4, 9, 0, 0)
/** The pause before each provider attempt's answer and between deltas. */
const D = 10

let daemon: MockDaemon
let server: SetupServer

function boot(options: { storage?: DaemonStorage } = {}): MockDaemon {
  daemon?.dispose()
  server?.close()
  ;({ daemon, server } = createTestDaemon({ deltaDelayMs: D, ...options }))
  server.listen({ onUnhandledRequest: 'error' })
  return daemon
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 })
  boot()
})
afterEach(() => {
  daemon.dispose()
  server.close()
  vi.useRealTimers()
})

const api = (path: string) => `${ORIGIN}/api/v1${path}`

async function post<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(api(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as T }
}

let sent = 0
/** A session with one message sent under `outcome`; the clock is at the run's start. */
async function runWith(outcome: string, content = 'Why did the deploy fail?'): Promise<{ sid: string; rid: string; started: number }> {
  daemon.plan([outcome])
  const session = (await post<Session>('/sessions', {})).body
  const receipt = await post<SendReceipt>(`/sessions/${session.id}/messages`, { content, client_message_id: `cid-${++sent}` })
  expect(receipt.status).toBe(202)
  return { sid: session.id, rid: receipt.body.run_id, started: Date.now() }
}

const log = (rid: string): StreamEvent[] => daemon.events(rid) ?? []
const names = (rid: string) => log(rid).map((e) => e.event)
const data = <T>(event: StreamEvent | undefined): T => JSON.parse(event?.data ?? 'null') as T
const runOf = (rid: string) => daemon.state().runs.find((r) => r.id === rid)!
const replyOf = (rid: string) => daemon.state().messages.find((m) => m.id === runOf(rid).reply_message_id)!
/** Moves the fake clock to `started + ms`. */
const at = async (started: number, ms: number) => vi.advanceTimersByTimeAsync(started + ms - Date.now())

type Frame = { id: number; event: string; data: string }

/** Reads a whole event stream while fake time runs, in steps, until the stream closes. */
async function readAll(sid: string, rid: string, lastEventId?: number, budgetMs = 120_000): Promise<Frame[]> {
  const response = await fetch(api(`/sessions/${sid}/runs/${rid}/events`), {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
  })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let closed = false
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    closed = true
  })()
  for (let spent = 0; !closed && spent < budgetMs; spent += 250) await vi.advanceTimersByTimeAsync(250)
  await pump
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const line = (prefix: string) => block.split('\n').find((l) => l.startsWith(prefix))?.slice(prefix.length) ?? ''
      return { id: Number(line('id: ')), event: line('event: '), data: line('data: ') }
    })
}

// --- The policy ------------------------------------------------------------------------------

describe('tier1After (the policy)', () => {
  it('waits 1 s after the first failure and 2 s after the second, then gives up', () => {
    expect(TIER1_MAX_ATTEMPTS).toBe(3)
    expect(tier1After(1)).toEqual({ kind: 'wait', ms: TIER1_BASE_MS })
    expect(tier1After(2)).toEqual({ kind: 'wait', ms: 2 * TIER1_BASE_MS })
    expect(tier1After(3)).toEqual({ kind: 'give_up' })
  })

  it('honours a Retry-After within the window, exactly 30 s included', () => {
    expect(tier1After(1, 20_000)).toEqual({ kind: 'wait', ms: 20_000 })
    expect(tier1After(2, 500)).toEqual({ kind: 'wait', ms: 500 })
    expect(tier1After(1, TIER1_WINDOW_MS)).toEqual({ kind: 'wait', ms: TIER1_WINDOW_MS })
    expect(tier1After(3, 20_000)).toEqual({ kind: 'give_up' })
  })

  it('hands a longer Retry-After to tier 2 at once, on any attempt, without waiting', () => {
    expect(tier1After(1, TIER1_WINDOW_MS + 1)).toEqual({ kind: 'hand_over', retryAfterMs: TIER1_WINDOW_MS + 1 })
    expect(tier1After(2, 90_000)).toEqual({ kind: 'hand_over', retryAfterMs: 90_000 })
    expect(tier1After(3, 3_000_000)).toEqual({ kind: 'hand_over', retryAfterMs: 3_000_000 })
  })

  it('never retries once the run has published output (a delta, reasoning or a tool_call), even on attempt 1', () => {
    expect(tier1After(1, undefined, true)).toEqual({ kind: 'give_up' })
    expect(tier1After(1, 5_000, true)).toEqual({ kind: 'give_up' })
    // A provider time past the window still reaches tier 2.
    expect(tier1After(1, 90_000, true)).toEqual({ kind: 'hand_over', retryAfterMs: 90_000 })
  })
})

// --- tier1:N ---------------------------------------------------------------------------------

describe('tier1:N (the provider fails N times with 503)', () => {
  it('tier1:1: one retrying event, a 1 s wait, then the reply streams and completes', async () => {
    const { rid, started } = await runWith('tier1:1', 'one blip')
    expect(names(rid)).toEqual(['start'])
    await at(started, D - 1)
    expect(names(rid)).toEqual(['start'])
    await at(started, D)
    expect(names(rid)).toEqual(['start', 'retrying'])
    expect(data(log(rid)[1])).toEqual({ attempt: 2, max_attempts: 3, retry_at: started + D + 1000, code: 'model_unavailable' })
    // Waiting: nothing streams, the run is running and the reply is empty.
    await at(started, D + 1000 + D - 1)
    expect(names(rid)).toEqual(['start', 'retrying'])
    expect(runOf(rid).status).toBe('running')
    expect(replyOf(rid)).toMatchObject({ status: 'streaming', content: '' })
    await at(started, D + 1000 + D)
    expect(names(rid)).toEqual(['start', 'retrying', 'delta'])
    await vi.advanceTimersByTimeAsync(10_000)
    expect(names(rid).at(-1)).toBe('done')
    expect(runOf(rid)).toMatchObject({ status: 'completed' })
    expect(runOf(rid).error).toBeUndefined()
    expect(runOf(rid).retry).toBeUndefined()
    expect(replyOf(rid)).toMatchObject({ status: 'complete', content: replyFor('one blip') })
  })

  it('tier1:2: retrying (attempt 2, 1 s), retrying (attempt 3, 2 s), then the reply completes', async () => {
    const { rid, started } = await runWith('tier1:2', 'two blips')
    await at(started, D)
    expect(data(log(rid)[1])).toEqual({ attempt: 2, max_attempts: 3, retry_at: started + D + 1000, code: 'model_unavailable' })
    await at(started, 2 * D + 1000 - 1)
    expect(names(rid)).toEqual(['start', 'retrying'])
    await at(started, 2 * D + 1000)
    expect(names(rid)).toEqual(['start', 'retrying', 'retrying'])
    expect(data(log(rid)[2])).toEqual({ attempt: 3, max_attempts: 3, retry_at: started + 2 * D + 3000, code: 'model_unavailable' })
    await at(started, 3 * D + 3000 - 1)
    expect(names(rid)).toHaveLength(3)
    await at(started, 3 * D + 3000)
    expect(names(rid).at(-1)).toBe('delta')
    await vi.advanceTimersByTimeAsync(10_000)
    expect(runOf(rid).status).toBe('completed')
    expect(replyOf(rid).content).toBe(replyFor('two blips'))
    const events = names(rid)
    expect(events.slice(0, 3)).toEqual(['start', 'retrying', 'retrying'])
    expect(events.slice(3, -1).every((e) => e === 'delta')).toBe(true)
    expect(events.at(-1)).toBe('done')
  })

  it.each([3, 5])('tier1:%i: two waits, then the third failure fails the run model_unavailable, retryable overloaded', async (n) => {
    const { rid, started } = await runWith(`tier1:${n}`)
    await at(started, 3 * D + 3000 - 1)
    expect(names(rid)).toEqual(['start', 'retrying', 'retrying'])
    await at(started, 3 * D + 3000)
    expect(names(rid)).toEqual(['start', 'retrying', 'retrying', 'error'])
    expect(data(log(rid)[3])).toEqual({ error: expect.stringMatching(/\w+ \w+/), code: 'model_unavailable' })
    const run = runOf(rid)
    expect(run).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' } })
    expect(run.retry).toEqual({ retryable: true, retry_class: 'overloaded' })
    expect(replyOf(rid)).toMatchObject({ status: 'failed', content: '', retry: { retryable: true, retry_class: 'overloaded' } })
    // No fourth attempt: nothing more happens, ever.
    await vi.advanceTimersByTimeAsync(60_000)
    expect(names(rid)).toHaveLength(4)
    expect(daemon.state().sessions[0]!.status).toBe('idle')
  })
})

// --- rate_limited:S --------------------------------------------------------------------------

describe('rate_limited:S (429 with Retry-After S s on every attempt)', () => {
  it.each([20, 30])('rate_limited:%i: waits S s twice, a retrying event before each, then fails retryable rate_limited', async (s) => {
    const { rid, started } = await runWith(`rate_limited:${s}`)
    const wait = s * 1000
    await at(started, D)
    expect(data(log(rid)[1])).toEqual({ attempt: 2, max_attempts: 3, retry_at: started + D + wait, code: 'model_rate_limited' })
    await at(started, 2 * D + wait)
    expect(data(log(rid)[2])).toEqual({ attempt: 3, max_attempts: 3, retry_at: started + 2 * D + 2 * wait, code: 'model_rate_limited' })
    await at(started, 3 * D + 2 * wait - 1)
    expect(names(rid)).toEqual(['start', 'retrying', 'retrying'])
    await at(started, 3 * D + 2 * wait)
    expect(names(rid)).toEqual(['start', 'retrying', 'retrying', 'error'])
    expect(data(log(rid)[3])).toMatchObject({ code: 'model_rate_limited' })
    expect(runOf(rid)).toMatchObject({ status: 'failed', error: { code: 'model_rate_limited' } })
    // Tier 1 absorbed the provider's waits: there is no time left to hand on.
    expect(runOf(rid).retry).toEqual({ retryable: true, retry_class: 'rate_limited' })
    expect(replyOf(rid).retry).toEqual({ retryable: true, retry_class: 'rate_limited' })
  })

  it.each([31, 90, 3000])('rate_limited:%i: fails at once, no retrying, retry_after_until = now + S s on the daemon clock', async (s) => {
    const { rid, started } = await runWith(`rate_limited:${s}`)
    await at(started, D)
    expect(names(rid)).toEqual(['start', 'error'])
    expect(data(log(rid)[1])).toEqual({ error: expect.stringContaining(`${s} s`), code: 'model_rate_limited' })
    const retry = { retryable: true, retry_class: 'rate_limited', retry_after_until: started + D + s * 1000 }
    expect(runOf(rid)).toMatchObject({ status: 'failed', retry })
    expect(replyOf(rid).retry).toEqual(retry)
  })

  it('the bare outcomes still fail at once, as before tier 1 existed', async () => {
    for (const outcome of ['rate_limited', 'overloaded', 'unreachable', 'quota:50']) {
      const { rid, started } = await runWith(outcome)
      await at(started, D)
      expect(names(rid), outcome).toEqual(['start', 'error'])
    }
  })
})

// --- Never after the first delta -------------------------------------------------------------

describe('the first-delta rule', () => {
  it('a provider failure after the first delta fails the run at once, with no retrying event', async () => {
    const { rid, started } = await runWith('code:model_unavailable')
    await at(started, 4 * D)
    expect(names(rid)).toEqual(['start', 'delta', 'delta', 'delta', 'error'])
    expect(runOf(rid)).toMatchObject({ status: 'failed', retry: { retryable: true, retry_class: 'overloaded' } })
    expect(replyOf(rid).content).not.toBe('')
  })

  it('a failure after a tool_call (write_then_fail) fails the run at once, with no retrying event: the tool may have changed something', async () => {
    const { rid } = await runWith('write_then_fail')
    for (let i = 0; i < 100 && !names(rid).includes('tool_result'); i++) await vi.advanceTimersByTimeAsync(D)
    expect(names(rid).at(-1)).toBe('tool_result')
    // At once: the next step's pause, not a tier 1 wait of 1 s.
    await vi.advanceTimersByTimeAsync(D)
    const events = names(rid)
    expect(events.slice(-2)).toEqual(['tool_result', 'error'])
    expect(events.indexOf('tool_call')).toBeGreaterThan(0)
    expect(events).not.toContain('retrying')
    expect(runOf(rid)).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' }, retry: { retryable: true, retry_class: 'overloaded' } })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(names(rid)).toEqual(events)
  })

  it('once tier 1 has let the reply start, no retrying event follows a delta', async () => {
    const { rid } = await runWith('tier1:2')
    await vi.advanceTimersByTimeAsync(20_000)
    const events = names(rid)
    expect(events.lastIndexOf('retrying')).toBeLessThan(events.indexOf('delta'))
  })
})

// --- Cancel during a wait --------------------------------------------------------------------

describe('cancelling during a tier 1 wait', () => {
  const cancel = (sid: string, rid: string) => post<CancelReceipt>(`/sessions/${sid}/runs/${rid}/cancel`)

  it.each([
    ['the first wait of tier1:2', 'tier1:2', D + 500, 2],
    ['the second wait of tier1:2', 'tier1:2', 2 * D + 1000 + 1500, 3],
    ['the second wait of tier1:3', 'tier1:3', 2 * D + 1000 + 10, 3],
    ['a 20 s wait of rate_limited:20', 'rate_limited:20', D + 19_000, 2],
  ])('during %s: aborts the wait at once, ends cancelled, no failure, no retry', async (_name, outcome, when, logged) => {
    const { sid, rid, started } = await runWith(outcome)
    await at(started, when)
    expect(names(rid)).toHaveLength(logged)
    expect(names(rid).at(-1)).toBe('retrying')
    // The wait's timer is the only one running; the cancel clears it.
    expect(vi.getTimerCount()).toBe(1)
    expect(await cancel(sid, rid)).toEqual({ status: 200, body: { run_id: rid, status: 'cancelled' } })
    expect(vi.getTimerCount()).toBe(0)
    expect(names(rid).at(-1)).toBe('cancelled')
    expect(names(rid)).toHaveLength(logged + 1)
    const run = runOf(rid)
    expect(run.status).toBe('cancelled')
    expect(run.error).toBeUndefined()
    expect(run.retry).toBeUndefined()
    const reply = replyOf(rid)
    expect(reply).toMatchObject({ status: 'cancelled', content: '' })
    expect(reply.error).toBeUndefined()
    expect(reply.retry).toBeUndefined()
    // Long past the wait: no attempt ever fires.
    await vi.advanceTimersByTimeAsync(120_000)
    expect(names(rid)).toHaveLength(logged + 1)
    expect(daemon.state().sessions[0]!.status).toBe('idle')
  })

  it('a live stream sees retrying, then cancelled, and closes', async () => {
    const { sid, rid, started } = await runWith('tier1:2')
    const reading = readAll(sid, rid)
    await at(started, D + 300)
    await cancel(sid, rid)
    const frames = await reading
    expect(frames.map((f) => f.event)).toEqual(['start', 'retrying', 'cancelled'])
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3])
  })

  it('the next queued run starts at once after the cancel', async () => {
    const { sid, rid, started } = await runWith('tier1:2')
    const queued = await post<SendReceipt>(`/sessions/${sid}/messages`, { content: 'next', client_message_id: 'cid-next' })
    expect(queued.body.queued).toBe(true)
    await at(started, D + 100)
    await cancel(sid, rid)
    expect(names(queued.body.run_id)).toEqual(['queued', 'start'])
  })
})

// --- On the stream ---------------------------------------------------------------------------

describe('retrying on the event stream', () => {
  it('arrives live in order, with consecutive ids, between start and the first delta', async () => {
    const { sid, rid } = await runWith('tier1:2', 'live order')
    const frames = await readAll(sid, rid)
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i + 1))
    expect(frames.slice(0, 3).map((f) => f.event)).toEqual(['start', 'retrying', 'retrying'])
    expect(frames.slice(3, -1).every((f) => f.event === 'delta')).toBe(true)
    expect(frames.at(-1)!.event).toBe('done')
    expect(frames.filter((f) => f.event === 'retrying').map((f) => JSON.parse(f.data) as { attempt: number })).toMatchObject([
      { attempt: 2 },
      { attempt: 3 },
    ])
  })

  it('is in the log, so Last-Event-ID replays it: after the run, and mid-wait', async () => {
    const { sid, rid, started } = await runWith('tier1:2', 'replay me')
    // Mid-wait: a client that saw only `start` reattaches and gets the retrying event it missed.
    await at(started, 2 * D + 1000 + 100)
    const midWait = readAll(sid, rid, 1)
    const tail = await midWait
    expect(tail[0]).toMatchObject({ id: 2, event: 'retrying' })
    expect(tail[1]).toMatchObject({ id: 3, event: 'retrying' })
    expect(tail.at(-1)!.event).toBe('done')
    // After the run: the same log, from any point.
    const full = await readAll(sid, rid)
    expect(full.map((f) => [f.id, f.event, f.data])).toEqual(log(rid).map((e) => [e.id, e.event, e.data]))
    expect(await readAll(sid, rid, 2)).toEqual(full.slice(2))
    expect(await readAll(sid, rid, 3)).toEqual(full.slice(3))
  })

  it('rate_limited:90 streams start, then the error, and nothing else', async () => {
    const { sid, rid } = await runWith('rate_limited:90')
    const frames = await readAll(sid, rid)
    expect(frames.map((f) => f.event)).toEqual(['start', 'error'])
  })
})

// --- Reload during a wait --------------------------------------------------------------------

function memoryStorage(): DaemonStorage & { value: string | null } {
  const storage = {
    value: null as string | null,
    load: () => storage.value,
    save: (state: string) => {
      storage.value = state
    },
  }
  return storage
}

describe('a reload during a tier 1 wait', () => {
  it('resumes the wait for the time left, then carries on as if never interrupted', async () => {
    const storage = memoryStorage()
    boot({ storage })
    const { rid, started } = await runWith('tier1:1', 'survive a reload')
    await at(started, D + 400)
    expect(names(rid)).toEqual(['start', 'retrying'])
    const saved = storage.value
    // The tab closes; 300 ms pass before the page is back (600 ms of the wait are left then).
    daemon.dispose()
    await vi.advanceTimersByTimeAsync(300)
    const reloaded = createDaemon({ deltaDelayMs: D, storage: { load: () => saved, save: () => {} } })
    expect(reloaded.events(rid)!.map((e) => e.event)).toEqual(['start', 'retrying'])
    reloaded.resume()
    await vi.advanceTimersByTimeAsync(300 - 1 + D)
    expect(reloaded.events(rid)!.map((e) => e.event)).toEqual(['start', 'retrying'])
    await vi.advanceTimersByTimeAsync(1)
    expect(reloaded.events(rid)!.map((e) => e.event)).toEqual(['start', 'retrying', 'delta'])
    await vi.advanceTimersByTimeAsync(10_000)
    const reply = reloaded.state().messages.find((m) => m.role === 'agent')!
    expect(reply).toMatchObject({ status: 'complete', content: replyFor('survive a reload') })
    reloaded.dispose()
  })

  it('makes the next attempt as soon as it is back when the wait ran out while it was closed', async () => {
    const storage = memoryStorage()
    boot({ storage })
    const { rid, started } = await runWith('tier1:3')
    await at(started, 2 * D + 1000 + 50)
    expect(names(rid)).toEqual(['start', 'retrying', 'retrying'])
    const saved = storage.value
    daemon.dispose()
    await vi.advanceTimersByTimeAsync(60_000)
    const reloaded = createDaemon({ deltaDelayMs: D, storage: { load: () => saved, save: () => {} } })
    reloaded.resume()
    await vi.advanceTimersByTimeAsync(D - 1)
    expect(reloaded.events(rid)!.map((e) => e.event)).toHaveLength(3)
    await vi.advanceTimersByTimeAsync(1)
    expect(reloaded.events(rid)!.map((e) => e.event)).toEqual(['start', 'retrying', 'retrying', 'error'])
    expect(reloaded.state().runs[0]).toMatchObject({ status: 'failed', retry: { retryable: true, retry_class: 'overloaded' } })
    reloaded.dispose()
  })
})
