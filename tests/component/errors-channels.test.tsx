/**
 * One wording for a failure, whichever way it reaches the operator: an `error` frame on a new
 * stream or on a reattached one, a failed reply read back from history after a reload, a refused
 * send or regenerate. An unknown code keeps the daemon's sentence, a plain-text frame shows as it
 * came, and a stream of garbage is skipped rather than crashing the view.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { failureForCode, parseOutcome, RAW_ERROR_TEXT, UNKNOWN_CODE } from '../../mocks/faults'
import { describeFailure } from '../../src/i18n/describe-failure'
import { createI18n, resources } from '../../src/i18n/bundled'
import { type Language } from '../../src/i18n/resources'
import { advance, advanceUntil, createSession, installFakeClock, reloadRuntime, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const LANGUAGES = ['en', 'zh'] as const
const words = (lng: Language) => resources[lng].translation
const user = () => userEvent.setup({ delay: null })

/** The sentence the mock daemon sends with `unknown_code` (a code no table knows). */
const UNKNOWN_SENTENCE = (() => {
  const outcome = parseOutcome('unknown_code')
  if (outcome?.kind !== 'fail_after_deltas') throw new Error('unknown_code is not a failing outcome')
  return outcome.failure(0).message
})()

/** A failure as each channel delivers it: the fault that makes it, and the `error` frame's data. */
const CASES = [
  { name: 'a coded error', fault: 'code:model_out_of_credit', frameData: JSON.stringify({ error: failureForCode('model_out_of_credit').message, code: 'model_out_of_credit' }) },
  { name: 'an unknown code', fault: 'unknown_code', frameData: JSON.stringify({ error: UNKNOWN_SENTENCE, code: UNKNOWN_CODE }) },
  { name: 'a plain-text frame', fault: 'raw', frameData: RAW_ERROR_TEXT },
] as const

/** What each case must read like, in each language. */
function expected(name: (typeof CASES)[number]['name'], lng: Language): { text: string; codeLine: string | undefined } {
  const codeLine = (code: string) => (lng === 'zh' ? `错误码：${code}` : `Code: ${code}`)
  switch (name) {
    case 'a coded error':
      return { text: words(lng).errors.model_out_of_credit, codeLine: codeLine('model_out_of_credit') }
    case 'an unknown code':
      // No words for it in any table: the daemon's sentence is the best there is, in every language.
      return { text: UNKNOWN_SENTENCE, codeLine: codeLine(UNKNOWN_CODE) }
    case 'a plain-text frame':
      return { text: RAW_ERROR_TEXT, codeLine: undefined }
  }
}

function agentReplies(lng: Language): HTMLElement[] {
  return screen.queryAllByRole('article', { name: words(lng).transcript.agent })
}

function lastAgentReply(lng: Language): HTMLElement {
  const last = agentReplies(lng).at(-1)
  if (!last) throw new Error('no agent reply on screen')
  return last
}

const lastReplyIs = (lng: Language, status: string) => () => agentReplies(lng).at(-1)?.getAttribute('data-status') === status

/** The failure notice of a reply as shown. */
function failureOf(reply: HTMLElement): { text: string | undefined; codeLine: string | undefined } {
  const notice = reply.querySelector(':scope > .failure')
  if (!notice) throw new Error(`the reply shows no failure notice (status ${reply.getAttribute('data-status')})`)
  return {
    text: notice.querySelector('.failure__text')?.textContent ?? undefined,
    codeLine: notice.querySelector('.failure__code')?.textContent ?? undefined,
  }
}

function composerBox(lng: Language): HTMLElement {
  return screen.getByRole('textbox', { name: words(lng).composer.label })
}

async function send(lng: Language, text = lng === 'zh' ? '请回答' : 'please answer'): Promise<void> {
  await user().type(composerBox(lng), `${text}{Enter}`)
}

/** Renders a fresh session whose first run ends with `fault`, sends, and waits for the failure to settle. */
async function failLive(fault: string, lng: Language) {
  daemon.plan([fault])
  const sid = createSession(daemon, lng === 'zh' ? '失败' : 'Failure')
  const view = renderChat(sid, { lng })
  await advance(10)
  await send(lng)
  await advanceUntil(lastReplyIs(lng, 'failed'), `the reply to fail (${fault})`)
  // The history read that follows the terminal frame lands too.
  await advance(50)
  return { sid, view, shown: failureOf(lastAgentReply(lng)) }
}

type SseEvent = { id?: string | number; event?: string; data: string }

function sse(events: SseEvent[]): string {
  return events
    .map(({ id, event, data }) => {
      const lines = [id === undefined ? undefined : `id: ${id}`, event === undefined ? undefined : `event: ${event}`, ...data.split('\n').map((l) => `data: ${l}`)]
      return `${lines.filter((l) => l !== undefined).join('\n')}\n\n`
    })
    .join('')
}

const sseResponse = (body: string) => new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } })

/**
 * Replaces the event stream: the first connection sends `start` and two deltas and closes without
 * a terminal event; a reconnection (with Last-Event-ID) gets `terminal` after the last event seen.
 * Returns the Last-Event-ID of each connection (null for none).
 */
function scriptReattachment(terminal: { event: string; data: string }): Array<string | null> {
  const connections: Array<string | null> = []
  server.use(
    http.get('*/api/v1/sessions/:sid/runs/:rid/events', ({ request }) => {
      const last = request.headers.get('last-event-id')
      connections.push(last)
      if (last === null) {
        return sseResponse(
          sse([
            { id: 1, event: 'start', data: JSON.stringify({ message_id: 'reply' }) },
            { id: 2, event: 'delta', data: JSON.stringify({ text: 'Half ' }) },
            { id: 3, event: 'delta', data: JSON.stringify({ text: 'an answer' }) },
          ]),
        )
      }
      return sseResponse(sse([{ id: Number(last) + 1, ...terminal }]))
    }),
  )
  return connections
}

describe.each(LANGUAGES)('in %s', (lng) => {
  describe.each(CASES)('$name', ({ name, fault, frameData }) => {
    it('reads the same on a new stream and after a reload from history', async () => {
      const { sid, view, shown } = await failLive(fault, lng)
      expect(shown).toEqual(expected(name, lng))

      view.unmount()
      renderChat(sid, { lng, runtime: reloadRuntime() })
      await advanceUntil(lastReplyIs(lng, 'failed'), 'history to show the failed reply')
      expect(failureOf(lastAgentReply(lng))).toEqual(shown)
    })

    it('reads the same when the error frame comes on a reattached stream', async () => {
      // The daemon's run never ends on its own; what the reply shows comes from the scripted stream alone.
      daemon.plan(['hang'])
      const connections = scriptReattachment({ event: 'error', data: frameData })
      renderChat(createSession(daemon), { lng })
      await advance(10)
      await send(lng)
      await advanceUntil(lastReplyIs(lng, 'failed'), 'the reattached stream to deliver the error')
      await advance(50)

      expect(connections).toEqual([null, '3'])
      const reply = lastAgentReply(lng)
      // Exactly what the same failure shows on a new stream (the test above pins that to `expected`).
      expect(failureOf(reply)).toEqual(expected(name, lng))
      expect(reply.querySelector('.message__body')).toHaveTextContent(/^Half an answer$/)
    })
  })
})

describe('refusals', () => {
  it.each(LANGUAGES)('a refused send (%s) is worded by describeFailure and the draft stays in the box', async (lng) => {
    const { t } = createI18n({ lng })
    server.use(
      http.post('*/api/v1/sessions/:sid/messages', () =>
        HttpResponse.json({ error: 'The message is longer than 32000 characters.', code: 'content_too_long' }, { status: 422 }),
      ),
    )
    renderChat(createSession(daemon), { lng })
    await advance(10)
    const draft = lng === 'zh' ? '一条被拒绝的消息' : 'a message the daemon refuses'
    await send(lng, draft)
    await advance(50)

    const reason = describeFailure(t, { kind: 'coded', code: 'content_too_long' }).text
    expect(reason).toBe(words(lng).errors.content_too_long)
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent(reason)
    expect(alert).toHaveTextContent(t('composer.refused', { reason }))
    expect(alert).not.toHaveTextContent('32000 characters')
    expect(composerBox(lng)).toHaveValue(draft)
    // A refused send leaves nothing behind: no operator message, on screen or in the daemon.
    expect(screen.queryAllByRole('article', { name: words(lng).transcript.operator })).toHaveLength(0)
    expect(daemon.state().messages).toHaveLength(0)
  })

  it.each(LANGUAGES)('a refused regenerate (%s) is worded by describeFailure', async (lng) => {
    const { t } = createI18n({ lng })
    renderChat(createSession(daemon), { lng })
    await advance(10)
    await send(lng)
    await advanceUntil(lastReplyIs(lng, 'complete'), 'the reply to complete')
    server.use(
      http.post('*/api/v1/sessions/:sid/messages/:mid/regenerate', () =>
        HttpResponse.json({ error: 'The message does not exist in this session.', code: 'message_not_found' }, { status: 404 }),
      ),
    )
    await user().click(within(lastAgentReply(lng)).getByRole('button', { name: words(lng).actions.regenerate }))
    await advance(50)

    const reason = describeFailure(t, { kind: 'coded', code: 'message_not_found' }).text
    expect(reason).toBe(words(lng).errors.message_not_found)
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent(t('regenerate.refused', { reason }))
    expect(alert).not.toHaveTextContent('does not exist in this session')
    // Nothing was replaced: the reply is still the one there was.
    expect(agentReplies(lng)).toHaveLength(1)
    expect(lastAgentReply(lng)).toHaveAttribute('data-status', 'complete')
  })
})

describe('malformed stream data', () => {
  it('skips garbage events and unreadable data, and still shows the reply', async () => {
    daemon.plan(['hang'])
    const connections: Array<string | null> = []
    server.use(
      http.get('*/api/v1/sessions/:sid/runs/:rid/events', ({ request }) => {
        connections.push(request.headers.get('last-event-id'))
        return sseResponse(
          [
            sse([
              { id: 1, event: 'start', data: JSON.stringify({ message_id: 'reply' }) },
              { id: 2, event: 'flux', data: '{"text":"from an event nobody knows"}' },
              { id: 3, event: 'delta', data: 'this is not json' },
              { id: 4, event: 'delta', data: '{"text": 42}' },
              { id: 5, event: 'delta', data: '{"text": "Hello' },
              { id: 'seven', event: 'delta', data: '{"text":"with an id that is not a number"}' },
              { event: 'delta', data: '{"text":"with no id at all"}' },
              { id: 6, event: '<img src=x onerror=alert(1)>', data: '<b>bold</b>' },
              { id: 7, event: 'delta', data: JSON.stringify({ text: 'Hello' }) },
              { id: 8, event: 'queued', data: '{"position":"first"}' },
              { id: 9, event: 'done', data: 'null' },
            ]),
            ': a comment line\n\n',
            'retry: not-a-number\n\n',
            'id: 10\nevent: delta\nthis line has no colon\ndata: {"text":", world"}\n\n',
            sse([{ id: 11, event: 'done', data: JSON.stringify({ message_id: 'reply' }) }]),
          ].join(''),
        )
      }),
    )
    renderChat(createSession(daemon))
    await advance(10)
    await send('en')
    await advanceUntil(lastReplyIs('en', 'complete'), 'the reply to complete')

    const reply = lastAgentReply('en')
    expect(reply.querySelector('.message__body')).toHaveTextContent(/^Hello, world$/)
    expect(reply.querySelector('.failure')).toBeNull()
    // The done frame ended it: no reattachment was needed.
    expect(connections).toEqual([null])
  })

  it('shows an error frame with empty data as a generic failure, not a blank one', async () => {
    daemon.plan(['hang'])
    server.use(
      http.get('*/api/v1/sessions/:sid/runs/:rid/events', () =>
        sseResponse(
          sse([
            { id: 1, event: 'start', data: JSON.stringify({ message_id: 'reply' }) },
            { id: 2, event: 'error', data: '   ' },
          ]),
        ),
      ),
    )
    renderChat(createSession(daemon), { lng: 'zh' })
    await advance(10)
    await send('zh')
    await advanceUntil(lastReplyIs('zh', 'failed'), 'the reply to fail')
    expect(failureOf(lastAgentReply('zh'))).toEqual({ text: words('zh').failure.generic, codeLine: undefined })
  })
})
