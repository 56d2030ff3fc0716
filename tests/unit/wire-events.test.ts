/**
 * followRun against the mock daemon (MSW in node): a run is read to its terminal frame; a
 * connection that ends early is picked up again with Last-Event-ID and yields every event once;
 * a stream that never delivers is given up as `stream_ended`; an abort stops it; error frames,
 * coded or plain text, become typed frames; what cannot be read is skipped.
 */
import fc from 'fast-check'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { failureForCode, RAW_ERROR_TEXT, UNKNOWN_CODE } from '../../mocks/faults'
import { startMockDaemonForFile } from '../setup/mock-daemon'
import { isAbortError, RefusalError, StreamFailure } from '../../src/wire/errors'
import { followRun, toFrame, type FollowRunOptions } from '../../src/wire/events'
import { createDaemonClient } from '../../src/wire/http'
import type { StreamFrame } from '../../src/wire/types'

const { daemon, server } = startMockDaemonForFile()

const client = createDaemonClient({ baseUrl: 'http://daemon.test' })
let ids = 0

/** Sends one message whose run follows `fault`; returns the ids to follow. */
async function startRun(fault: string) {
  daemon.plan([fault])
  const session = await client.createSession('Events')
  const receipt = await client.sendMessage(session.id, { content: 'Tell me about event streams', client_message_id: `cid-${++ids}` })
  return { sessionId: session.id, runId: receipt.run_id }
}

/**
 * Follows a run and records what it saw: each frame, and the Last-Event-ID of each connection.
 * Reattachments wait 1 ms, so the tests do not sit through the real backoff.
 */
async function follow(run: { sessionId: string; runId: string }, options: Partial<FollowRunOptions> = {}) {
  const frames: StreamFrame[] = []
  const connections: Array<number | undefined> = []
  const terminal = await followRun({
    client: {
      openEvents: (sid, rid, lastEventId, signal) => {
        connections.push(lastEventId)
        return client.openEvents(sid, rid, lastEventId, signal)
      },
    },
    ...run,
    signal: new AbortController().signal,
    onFrame: (frame) => frames.push(frame),
    backoffMs: () => 1,
    ...options,
  })
  const text = frames.flatMap((f) => (f.type === 'delta' ? [f.text] : [])).join('')
  return { terminal, frames, connections, text }
}

const storedReply = (runId: string) => daemon.state().messages.find((m) => m.run_id === runId)!

/** Frame ids in order: every event once, none repeated, none missing after the first. */
function expectEachEventOnce(frames: StreamFrame[], runId: string) {
  const ids = frames.map((f) => f.id)
  expect(ids).toEqual(daemon.events(runId)!.map((e) => e.id))
}

describe('followRun', () => {
  it('streams a run to done', async () => {
    const run = await startRun('ok')
    const { terminal, frames, connections, text } = await follow(run)
    expect(terminal).toEqual({ type: 'done', id: expect.any(Number), message_id: storedReply(run.runId).id })
    expect(frames[0]).toMatchObject({ type: 'start', id: 1 })
    expect(frames.at(-1)).toBe(terminal)
    expect(text).toBe(storedReply(run.runId).content)
    expect(text.length).toBeGreaterThan(0)
    expect(connections).toEqual([undefined])
    expectEachEventOnce(frames, run.runId)
  })

  it('reattaches after a dropped connection with Last-Event-ID and gets the rest exactly once', async () => {
    const run = await startRun('drop')
    const { terminal, frames, connections, text } = await follow(run)
    expect(terminal.type).toBe('done')
    expect(connections).toHaveLength(2)
    expect(connections[0]).toBeUndefined()
    // The second connection resumes right after the last event the first one delivered.
    const beforeDrop = frames.filter((f) => f.id <= connections[1]!)
    expect(beforeDrop.length).toBeGreaterThan(1)
    expect(connections[1]).toBe(beforeDrop.at(-1)!.id)
    expect(text).toBe(storedReply(run.runId).content)
    expectEachEventOnce(frames, run.runId)
  })

  it('reattaches after stream_lagged, which is not passed on as a failure', async () => {
    const run = await startRun('lag')
    const { terminal, frames, connections, text } = await follow(run)
    expect(terminal.type).toBe('done')
    expect(connections.length).toBe(2)
    expect(connections[1]).toEqual(expect.any(Number))
    expect(frames.some((f) => f.type === 'error')).toBe(false)
    expect(text).toBe(storedReply(run.runId).content)
    expectEachEventOnce(frames, run.runId)
  })

  it('replays an ended run to its terminal frame, from the start or from an event id', async () => {
    const run = await startRun('ok')
    const live = await follow(run)
    const replay = await follow(run)
    expect(replay.frames).toEqual(live.frames)
    const after = live.frames[2]!.id
    const resumed = await follow(run, { lastEventId: after })
    expect(resumed.frames).toEqual(live.frames.filter((f) => f.id > after))
    expect(resumed.connections).toEqual([after])
  })

  it('gives up a stream that never delivers after maxReattach, with stream_ended', async () => {
    const run = await startRun('hang')
    let opened = 0
    server.use(
      http.get('*/api/v1/sessions/:sid/runs/:rid/events', () => {
        opened++
        return new HttpResponse(': ping\n\n', { headers: { 'content-type': 'text/event-stream' } })
      }),
    )
    const error = await follow(run, { maxReattach: 3 }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StreamFailure)
    expect((error as StreamFailure).code).toBe('stream_ended')
    // The first connection and three reattachments.
    expect(opened).toBe(4)
  })

  it('a transport error mid-run is reattached like an early close', async () => {
    const run = await startRun('ok')
    let failed = false
    server.use(
      http.get('*/api/v1/sessions/:sid/runs/:rid/events', () => {
        if (failed) return undefined
        failed = true
        return HttpResponse.error()
      }),
    )
    const { terminal, text } = await follow(run)
    expect(failed).toBe(true)
    expect(terminal.type).toBe('done')
    expect(text).toBe(storedReply(run.runId).content)
  })

  it('stops on abort, while streaming and while waiting to reattach, rejecting as an abort', async () => {
    const run = await startRun('hang')
    const streaming = new AbortController()
    let started!: () => void
    const startSeen = new Promise<void>((resolve) => (started = resolve))
    const following = follow(run, {
      signal: streaming.signal,
      onFrame: (frame) => {
        if (frame.type === 'start') started()
      },
    })
    await startSeen
    streaming.abort()
    expect(isAbortError(await following.catch((e: unknown) => e))).toBe(true)

    // Every connection ends at once with nothing; the abort comes while the reattachment waits.
    server.use(http.get('*/api/v1/sessions/:sid/runs/:rid/events', () => new HttpResponse('', { headers: { 'content-type': 'text/event-stream' } })))
    const waiting = new AbortController()
    const backoffs: number[] = []
    const outcome = await follow(run, {
      signal: waiting.signal,
      backoffMs: (attempt) => {
        backoffs.push(attempt)
        // The wait starts right after this returns; only the abort can end it.
        queueMicrotask(() => waiting.abort())
        return 3_600_000
      },
    }).then(
      () => 'resolved',
      (e: unknown) => e,
    )
    expect(isAbortError(outcome)).toBe(true)
    expect(backoffs).toEqual([1])
  })

  it('rides out a daemon that is briefly unavailable (5xx) on reattachment', async () => {
    const run = await startRun('drop')
    const statuses: number[] = []
    let reattachments = 0
    server.use(
      http.get('*/api/v1/sessions/:sid/runs/:rid/events', ({ request }) => {
        // The first connection is the daemon's own (it drops mid-run); then a restart answers 503
        // and a proxy 502 with no body, and after that the daemon is back.
        if (request.headers.get('last-event-id') === null) return undefined
        reattachments++
        if (reattachments === 1) {
          statuses.push(503)
          return HttpResponse.json({ error: 'The daemon is starting.', code: 'daemon_unavailable' }, { status: 503 })
        }
        if (reattachments === 2) {
          statuses.push(502)
          return new HttpResponse(null, { status: 502 })
        }
        return undefined
      }),
    )
    const { terminal, frames, connections, text } = await follow(run)
    expect(statuses).toEqual([503, 502])
    expect(terminal.type).toBe('done')
    expect(connections).toHaveLength(4)
    expect(text).toBe(storedReply(run.runId).content)
    expectEachEventOnce(frames, run.runId)
  })

  it('gives up with stream_ended when the daemon stays unavailable', async () => {
    const run = await startRun('hang')
    let opened = 0
    server.use(
      http.get('*/api/v1/sessions/:sid/runs/:rid/events', () => {
        opened++
        return HttpResponse.json({ error: 'Down.', code: 'daemon_unavailable' }, { status: 503 })
      }),
    )
    const error = await follow(run, { maxReattach: 2 }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StreamFailure)
    expect((error as StreamFailure).code).toBe('stream_ended')
    expect(opened).toBe(3)
  })

  it('does not ask again when the daemon refuses the stream', async () => {
    const run = await startRun('ok')
    const result = await follow({ sessionId: run.sessionId, runId: 'missing' }).catch((e: unknown) => e)
    expect(result).toBeInstanceOf(RefusalError)
    expect((result as RefusalError).code).toBe('run_not_found')
  })

  it('turns error frames into typed frames: coded, unknown, and plain text with no code', async () => {
    const coded = await follow(await startRun('code:answer_not_saved'))
    expect(coded.terminal).toEqual({ type: 'error', id: expect.any(Number), code: 'answer_not_saved', message: failureForCode('answer_not_saved').message })

    const unknown = await follow(await startRun('unknown_code'))
    expect(unknown.terminal).toMatchObject({ type: 'error', code: UNKNOWN_CODE })
    expect((unknown.terminal as { message: string }).message.length).toBeGreaterThan(0)

    const raw = await follow(await startRun('raw'))
    expect(raw.terminal).toEqual({ type: 'error', id: expect.any(Number), code: undefined, message: RAW_ERROR_TEXT })
    // The deltas before the failure arrived too.
    expect(raw.text.length).toBeGreaterThan(0)
  })
})

describe('toFrame', () => {
  it('skips unknown events, missing or non-numeric ids, and data that does not fit the event', () => {
    const skipped = [
      { id: '1', event: 'flux', data: '{}' },
      { id: undefined, event: 'delta', data: '{"text":"x"}' },
      { id: '', event: 'delta', data: '{"text":"x"}' },
      { id: 'seven', event: 'delta', data: '{"text":"x"}' },
      { id: '2', event: 'delta', data: 'not json' },
      { id: '3', event: 'delta', data: '{"text":1}' },
      { id: '4', event: 'start', data: '{"message_id":""}' },
      { id: '5', event: 'queued', data: '{"position":"1"}' },
      { id: '6', event: 'done', data: 'null' },
      { id: '7', event: undefined, data: '{"text":"x"}' },
    ]
    for (const event of skipped) expect(toFrame(event), JSON.stringify(event)).toBeUndefined()
    expect(toFrame({ id: '8', event: 'delta', data: '{"text":"ok"}' })).toEqual({ type: 'delta', id: 8, text: 'ok' })
  })

  it('reads a tier 1 retrying event, and skips one it cannot read', () => {
    const data = { attempt: 2, max_attempts: 3, retry_at: 1_700_000_001_000, code: 'model_unavailable' }
    expect(toFrame({ id: '3', event: 'retrying', data: JSON.stringify(data) })).toEqual({ type: 'retrying', id: 3, ...data })
    const unreadable = [
      { ...data, attempt: 1 },
      { ...data, attempt: '2' },
      { ...data, retry_at: null },
      { attempt: 2, max_attempts: 3, retry_at: 1 },
    ]
    for (const bad of unreadable) expect(toFrame({ id: '3', event: 'retrying', data: JSON.stringify(bad) }), JSON.stringify(bad)).toBeUndefined()
    expect(toFrame({ id: '3', event: 'retrying', data: 'soon' })).toBeUndefined()
  })

  it('keeps an error frame whatever its data: the envelope is coded, anything else is plain text', () => {
    expect(toFrame({ id: '9', event: 'error', data: '{"error":"Empty.","code":"answer_empty"}' })).toEqual({ type: 'error', id: 9, code: 'answer_empty', message: 'Empty.' })
    expect(toFrame({ id: '9', event: 'error', data: ' upstream said no \n' })).toEqual({ type: 'error', id: 9, code: undefined, message: 'upstream said no' })
    expect(toFrame({ id: '9', event: 'error', data: '{"message":"not the envelope"}' })).toEqual({ type: 'error', id: 9, code: undefined, message: '{"message":"not the envelope"}' })
  })

  it('never throws, and never makes a frame without a numeric id', () => {
    const names = fc.oneof(fc.constantFrom('queued', 'start', 'retrying', 'delta', 'done', 'cancelled', 'error'), fc.string())
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), fc.option(names, { nil: undefined }), fc.oneof(fc.string(), fc.json()), (id, event, data) => {
        const frame = toFrame({ id, event, data })
        if (frame) expect(Number.isFinite(frame.id)).toBe(true)
      }),
    )
  })
})
