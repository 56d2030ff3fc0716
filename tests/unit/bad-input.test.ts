/**
 * Bad input, each case tried as a new operator would meet it: absurd times that once blanked the
 * page, a daemon that lags every stream, a 2xx receipt that cannot be read, a proxy's HTML page,
 * one unreadable record in a history, event ids that go backwards; and the classic list —
 * malformed JSON, wrong types, missing and extra fields, a wrong content type, a 1 MiB frame, a
 * frame split at every byte, invalid UTF-8, HTML and script in every daemon string, absurd numbers.
 */
import i18next from 'i18next'
import { http, HttpResponse } from 'msw'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { startMockDaemonForFile } from '../setup/mock-daemon'
import { createChatRuntime } from '../../src/thread/runtime'
import { describeFailure, failureFromError, failureOfWireError } from '../../src/i18n/describe-failure'
import { formatClockTime, isFormattableTime } from '../../src/i18n/format'
import { createLiveRunStore } from '../../src/live/live-runs'
import { backoffMs, retryDeadline } from '../../src/retry/schedule'
import { deliver, newEntry } from '../../src/send/deliver'
import { createKeyedStore } from '../../src/storage/keyed-store'
import { MalformedPayloadError, RefusalError, StreamFailure } from '../../src/wire/errors'
import { followRun } from '../../src/wire/events'
import { isAbortError } from '../../src/wire/errors'
import { createDaemonClock } from '../../src/wire/clock'
import { createDaemonClient } from '../../src/wire/http'
import { MESSAGE_SLICE, readMessageList, type StreamFrame } from '../../src/wire/types'
import { readList } from './read-history'
import enApp from '../../locales/en/app.json'
import enErrors from '../../locales/en/errors.json'

const { daemon, server } = startMockDaemonForFile()
const ORIGIN = 'http://daemon.test'
const client = createDaemonClient({ baseUrl: ORIGIN })

const HOSTILE = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '"><svg onload=alert(1)>', '<html><body>502</body></html>', 'javascript:alert(1)']

let t: typeof i18next.t
beforeAll(async () => {
  const i18n = i18next.createInstance()
  await i18n.init({ lng: 'en', resources: { en: { translation: { ...enApp, ...enErrors } } }, interpolation: { escapeValue: false } })
  t = i18n.t.bind(i18n)
})

const encoder = new TextEncoder()
/** A response whose body arrives in exactly these chunks. */
function streamOf(chunks: Uint8Array[], headers: Record<string, string> = { 'content-type': 'text/event-stream' }): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk)
        controller.close()
      },
    }),
    { headers },
  )
}
const sse = (id: number, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`

async function readAll(responses: () => Response, options: { maxLagged?: number } = {}) {
  const frames: StreamFrame[] = []
  let opened = 0
  const outcome = await followRun({
    client: { openEvents: async () => (opened++, responses()) },
    sessionId: 's',
    runId: 'r',
    signal: new AbortController().signal,
    onFrame: (f) => frames.push(f),
    backoffMs: () => 1,
    ...options,
  }).then(
    (terminal) => ({ terminal }),
    (error: unknown) => ({ error }),
  )
  return { frames, opened, outcome }
}

describe('times past the last valid Date', () => {
  it.each([1e20, -1e20, 8.64e15 + 1, Number.NaN, Infinity, -Infinity])('formatClockTime(%s) reads "no reset time" and never throws', (value) => {
    expect(isFormattableTime(value)).toBe(false)
    expect(formatClockTime(value, Date.now(), 'en', 'no reset time')).toBe('no reset time')
    expect(formatClockTime(value, Date.now(), 'zh-CN', '无重置时间')).toBe('无重置时间')
    expect(formatClockTime(Date.now(), value, 'en')).toMatch(/^\d\d:\d\d$/)
  })

  it('the schedule treats such a time as no provider time: the normal backoff, not paused', () => {
    const now = Date.UTC(2030, 0, 1)
    for (const until of [1e20, now + 200_000_000_000 * 60_000, Infinity, Number.NaN, '1e20', null]) {
      expect(retryDeadline({ attempt: 1, now, retryAfterUntil: until })).toEqual({ deadline: now + 2000, paused: false })
    }
  })

  it('quota:200000000000 from the daemon arms the normal countdown, and history still reads', async () => {
    const session = await client.createSession()
    daemon.plan(['quota:200000000000'])
    await client.sendMessage(session.id, { content: 'hi', client_message_id: 'c1' })
    await vi.waitFor(async () => expect((await client.listMessages(session.id)).some((m) => m.status === 'failed')).toBe(true), { timeout: 5000 })
    const history = await client.listMessages(session.id)
    const failed = history.find((m) => m.status === 'failed')!
    expect(failed.retry?.retry_after_until).toBeUndefined()
    expect(failed.retry?.retryable).toBe(true)
  })

  it('a message dated past the last valid Date is skipped and counted, not the whole history', async () => {
    const session = await client.createSession()
    const good = { id: 'm1', session_id: session.id, role: 'operator', content: 'fine', created_at: 1, superseded: false }
    server.use(http.get('*/api/v1/sessions/:sid/messages', () => HttpResponse.json({ messages: [good, { ...good, id: 'm2', created_at: 1e20 }] })))
    expect((await client.listMessages(session.id)).map((m) => m.id)).toEqual(['m1'])
    expect(client.unreadableCount(session.id)).toBe(1)
  })
})

describe('one unreadable record in a history', () => {
  const good = (id: string) => ({ id, session_id: 's', role: 'operator', content: id, created_at: 1, superseded: false })
  it.each([
    ['wrong types', { ...good('x'), content: 42 }],
    ['a missing field', { id: 'x', session_id: 's', role: 'agent', created_at: 1, superseded: false }],
    ['an unknown role', { ...good('x'), role: 'system' }],
    ['null', null],
    ['a string', 'message'],
    ['an absurd date', { ...good('x'), created_at: -1e300 }],
  ])('%s: that one is skipped and counted, the rest shows', async (_, bad) => {
    const parsed = await readList({ messages: [good('a'), bad, good('b')] })
    expect(parsed.messages.map((m) => m.id)).toEqual(['a', 'b'])
    expect(parsed.skipped).toBe(1)
  })

  it('extra fields are read past, not refused', async () => {
    const parsed = await readList({ messages: [{ ...good('a'), unexpected: { deep: [1] } }], extra: true })
    expect(parsed.messages).toHaveLength(1)
    expect(parsed.skipped).toBe(0)
  })
})

describe('a long history is read a slice at a time', () => {
  const good = (id: string) => ({ id, session_id: 's', role: 'operator', content: id, created_at: 1, superseded: false })
  const body = { messages: [good('a'), { ...good('x'), content: 42 }, good('b'), null, good('c'), { ...good('d'), extra: [1] }, good('e')] }

  it('reads what one pass reads, pausing between slices', async () => {
    let pauses = 0
    const read = await readMessageList(body, async () => void (pauses += 1), 3)
    if (!read.ok) throw new Error(read.issue)
    const once = await readList(body)
    expect(read.messages).toEqual(once.messages)
    expect(read.messages.map((m) => m.id)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(read.skipped).toBe(2)
    // 7 records in slices of 3: a pause before the second and before the third.
    expect(pauses).toBe(2)
  })

  it('a body that is no message list is worded, and nothing pauses', async () => {
    let pauses = 0
    const read = await readMessageList({ messages: 'none' }, async () => void (pauses += 1))
    expect(read.ok).toBe(false)
    expect(pauses).toBe(0)
  })

  it('through the client: a history over one slice arrives whole', async () => {
    const session = await client.createSession()
    const many = Array.from({ length: MESSAGE_SLICE * 2 + 5 }, (_, i) => ({ ...good(`m${i}`), session_id: session.id }))
    server.use(http.get('*/api/v1/sessions/:sid/messages', () => HttpResponse.json({ messages: many })))
    const all = await client.listMessages(session.id)
    expect(all).toHaveLength(many.length)
    expect(all.at(-1)?.id).toBe(`m${many.length - 1}`)

  })

  it('an abort once the body is in hand ends the read at the next pause', async () => {
    const many = Array.from({ length: MESSAGE_SLICE * 2 + 5 }, (_, i) => good(`m${i}`))
    const controller = new AbortController()
    // The answer is whole before the abort: only the pause between slices can see it.
    const answered = async () => {
      const response = new Response(JSON.stringify({ messages: many }), { headers: { 'content-type': 'application/json' } })
      const read = response.json.bind(response)
      response.json = async () => {
        const body: unknown = await read()
        controller.abort()
        return body
      }
      return response
    }
    const stubbed = createDaemonClient({ baseUrl: ORIGIN, fetch: answered as typeof fetch })
    await expect(stubbed.listMessages('s', controller.signal)).rejects.toSatisfy(isAbortError)
  })
})

describe('refused requests that are not the envelope', () => {
  it.each([
    [503, '<html><body><h1>503 Service Unavailable</h1></body></html>', 'text/html', 'daemon_unavailable'],
    [502, 'Bad gateway', 'text/plain', 'daemon_unavailable'],
    [500, '{"oops":', 'application/json', 'internal_error'],
    [401, '<html>login</html>', 'text/html', 'unauthorized'],
    [599, '', 'text/plain', 'daemon_unavailable'],
  ])('%s with %j takes the code its status implies, never the body as the reason', async (status, body, type, code) => {
    server.use(http.get('*/api/v1/sessions', () => new HttpResponse(body, { status, headers: { 'content-type': type } })))
    const error = (await client.listSessions().catch((e: unknown) => e)) as RefusalError
    expect(error).toBeInstanceOf(RefusalError)
    expect(error.code).toBe(code)
    expect(error.message).not.toContain('<')
    const worded = describeFailure(t, failureFromError(error))
    expect(worded.text).toBe((enErrors.errors as Record<string, string>)[code])
  })
})

describe('2xx answers the wire does not promise', () => {
  it.each([
    ['malformed JSON', () => new HttpResponse('{"sessions": [', { status: 200, headers: { 'content-type': 'application/json' } })],
    ['wrong types', () => HttpResponse.json({ sessions: 'many' })],
    ['a missing field', () => HttpResponse.json({})],
    ['a wrong content type', () => new HttpResponse('<html>a captive portal</html>', { status: 200, headers: { 'content-type': 'text/html' } })],
  ])('%s: MalformedPayloadError (payload_invalid), worded, never thrown into render', async (_, answer) => {
    server.use(http.get('*/api/v1/sessions', answer))
    const error = await client.listSessions().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MalformedPayloadError)
    expect(describeFailure(t, failureFromError(error)).text).toBe(t('errors.payload_invalid'))
  })

  it('a 2xx send receipt that cannot be read is looked up in history: the message landed, so it is accepted', async () => {
    const session = await client.createSession()
    const runtime = createChatRuntime(
      {
        ...client,
        // The daemon creates the message; its receipt is garbled on the way.
        sendMessage: async (...args: Parameters<typeof client.sendMessage>) => {
          await client.sendMessage(...args)
          throw new MalformedPayloadError('POST /sessions/:sid/messages', 'message_id: expected string')
        },
      },
      undefined,
    )
    const entry = newEntry(runtime, session.id, 'landed')
    expect(await deliver(runtime, entry)).toMatchObject({ kind: 'accepted' })
    expect(daemon.state().messages.filter((m) => m.role === 'operator')).toHaveLength(1)
  })
})

describe('event streams that misbehave', () => {
  it('a daemon that answers every stream with stream_lagged is given up, backing off, not asked for ever', async () => {
    const { opened, outcome, frames } = await readAll(() => streamOf([encoder.encode(sse(3, 'error', { error: 'behind', code: 'stream_lagged' }))]))
    expect(outcome).toMatchObject({ error: expect.any(StreamFailure) })
    expect(opened).toBeLessThanOrEqual(10)
    expect(frames).toEqual([])
  })

  it('the same for stream_ended frames, and for lag frames that come after a new delta each time', async () => {
    const ended = await readAll(() => streamOf([encoder.encode(sse(1, 'error', { error: 'ended', code: 'stream_ended' }))]))
    expect(ended.outcome).toMatchObject({ error: expect.any(StreamFailure) })
    let n = 0
    const progressing = await readAll(() => {
      n += 1
      return streamOf([encoder.encode(sse(n, 'delta', { text: `${n} ` }) + sse(n, 'error', { error: 'behind', code: 'stream_lagged' }))])
    })
    expect(progressing.outcome).toMatchObject({ error: expect.any(StreamFailure) })
    expect(progressing.opened).toBeLessThanOrEqual(10)
  })

  it('waits between lagged reattachments (no reconnect with no delay)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      let opened = 0
      const waits: number[] = []
      const done = followRun({
        client: { openEvents: async () => (opened++, streamOf([encoder.encode(sse(1, 'error', { error: 'behind', code: 'stream_lagged' }))])) },
        sessionId: 's',
        runId: 'r',
        signal: new AbortController().signal,
        onFrame: () => {},
        backoffMs: (n) => (waits.push(n), 250 * n),
      }).catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(10_000)
      expect(await done).toBeInstanceOf(StreamFailure)
      expect(opened).toBeLessThan(12)
      expect(waits.every((n) => n >= 1)).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })

  it('event ids that go backwards never append the same text twice', async () => {
    let call = 0
    const { frames, outcome } = await readAll(() => {
      call += 1
      // The second connection replays from an older id than the one it was asked to resume after.
      if (call === 1) return streamOf([encoder.encode(sse(1, 'start', { message_id: 'm' }) + sse(2, 'delta', { text: 'a' }) + sse(3, 'delta', { text: 'b' }))])
      return streamOf([encoder.encode(sse(2, 'delta', { text: 'a' }) + sse(3, 'delta', { text: 'b' }) + sse(4, 'delta', { text: 'c' }) + sse(5, 'done', { message_id: 'm' }))])
    })
    expect(outcome).toMatchObject({ terminal: { type: 'done' } })
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 4, 5])
    expect(frames.flatMap((f) => (f.type === 'delta' ? [f.text] : [])).join('')).toBe('abc')
  })

  it('a 1 MiB frame arrives whole', async () => {
    const big = 'x'.repeat(1024 * 1024)
    const { frames } = await readAll(() => streamOf([encoder.encode(sse(1, 'delta', { text: big }) + sse(2, 'done', { message_id: 'm' }))]))
    expect(frames[0]).toMatchObject({ type: 'delta' })
    expect((frames[0] as { text: string }).text.length).toBe(big.length)
  })

  it('a stream split at every byte (multi-byte characters too) reads the same frames', async () => {
    const text = sse(1, 'start', { message_id: 'm' }) + sse(2, 'delta', { text: '你好，世界 🌍 <b>x</b>' }) + sse(3, 'done', { message_id: 'm' })
    const bytes = encoder.encode(text)
    const whole = await readAll(() => streamOf([bytes]))
    for (const step of [1, 2, 3, 7]) {
      const chunks: Uint8Array[] = []
      for (let i = 0; i < bytes.length; i += step) chunks.push(bytes.slice(i, i + step))
      const split = await readAll(() => streamOf(chunks))
      expect(split.frames).toEqual(whole.frames)
    }
    expect(whole.frames.map((f) => f.type)).toEqual(['start', 'delta', 'done'])
  })

  it('invalid UTF-8 reads as replacement characters, never as a failure', async () => {
    const head = encoder.encode('id: 1\nevent: delta\ndata: {"text":"a')
    const tail = encoder.encode('b"}\n\n' + sse(2, 'done', { message_id: 'm' }))
    const { frames, outcome } = await readAll(() => streamOf([head, new Uint8Array([0xff, 0xfe, 0xc3]), tail]))
    expect(outcome).toMatchObject({ terminal: { type: 'done' } })
    expect((frames[0] as { text: string }).text).toMatch(/^a\uFFFD+b$/)
  })

  it('absurd numbers in frames are skipped (ids, positions, retry_at), and the run still ends', async () => {
    const body =
      'id: not-a-number\nevent: delta\ndata: {"text":"skip me"}\n\n' +
      sse(1, 'queued', { position: 'first' }) +
      sse(2, 'retrying', { attempt: 2, max_attempts: 3, retry_at: 1e20, code: 'model_unavailable' }) +
      sse(3, 'retrying', { attempt: 1e308 * 10, max_attempts: 3, retry_at: 1, code: 'x' }) +
      sse(4, 'delta', { text: 'ok' }) +
      sse(5, 'done', { message_id: 'm' })
    const { frames } = await readAll(() => streamOf([encoder.encode(body)]))
    expect(frames.map((f) => f.type)).toEqual(['delta', 'done'])
  })
})

describe('HTML and script in every daemon string', () => {
  it.each(HOSTILE)('%s is carried as text everywhere: error messages, raw frames, content, titles', async (hostile) => {
    // An unknown code's sentence and a raw frame are shown as they came: as text (React escapes).
    expect(describeFailure(t, failureOfWireError({ code: 'not_a_known_code', message: hostile })).text).toBe(hostile)
    expect(describeFailure(t, failureOfWireError({ code: '', message: hostile })).text).toBe(hostile)
    // A known code never shows the daemon's sentence at all.
    expect(describeFailure(t, failureOfWireError({ code: 'model_unavailable', message: hostile })).text).toBe(t('errors.model_unavailable'))
    const live = createLiveRunStore({ store: createKeyedStore(undefined), schedule: (flush) => (queueMicrotask(flush), () => {}) })
    live.begin('s', 'r', '')
    live.frame('r', { type: 'delta', id: 1, text: hostile })
    live.frame('r', { type: 'error', id: 2, code: undefined, message: hostile })
    expect(live.get('r')).toMatchObject({ content: hostile, error: { message: hostile } })
    const session = await client.createSession(hostile.slice(0, 200))
    expect(session.title).toBe(hostile.slice(0, 200))
  })
})

describe('absurd numbers elsewhere', () => {
  it('the backoff takes any attempt number', () => {
    for (const attempt of [0, -1, Number.NaN, Infinity, 1e308, 2 ** 53]) expect(Number.isFinite(backoffMs(attempt))).toBe(true)
  })

  it('a Date header that is no date, or from another century, never moves the clock by it', () => {
    const clock = createDaemonClock()
    clock.observe('not a date', 0, 10)
    clock.observe(null, 0, 10)
    expect(clock.offsetMs()).toBe(0)
    clock.observe(new Date(1000).toUTCString(), 5000, 900_000)
    expect(clock.samples()).toBe(0)
    expect(clock.toLocal(Number.NaN)).toBeNaN()
  })
})
