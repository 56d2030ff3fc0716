/**
 * Tier 2 at its edges: what the live region says (and does not say), wire values the schedule
 * must not trust, a regenerate the daemon refuses, the controls' names in both languages, and a
 * deadline that passed while the laptop slept.
 */
import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { formatClockTime } from '../../src/i18n/format'
import { createChatRuntime } from '../../src/thread/runtime'
import { createDaemonClient } from '../../src/wire/http'
import type { Message, RetryClassification } from '../../src/wire/types'
import { advance, createSession, DAEMON_ORIGIN, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })
const MINUTE = 60_000
const YEAR = 365 * 24 * 60 * MINUTE

/** The last agent reply, whatever the language of its label. */
function lastAgentReply(): HTMLElement {
  const replies = screen.getAllByRole('article').filter((el) => el.classList.contains('message--agent'))
  return replies[replies.length - 1]!
}

function retryBlock(): HTMLElement | null {
  return lastAgentReply().querySelector<HTMLElement>('[data-retry]')
}

function retryLine(): string {
  return retryBlock()?.querySelector('.retry__line')?.textContent ?? ''
}

/** The scheduler's polite live region (the reply badges are status elements too, without aria-live). */
function liveRegion(): HTMLElement {
  const regions = screen.getAllByRole('status').filter((el) => el.getAttribute('aria-live') === 'polite')
  expect(regions).toHaveLength(1)
  return regions[0]!
}

/** How the live region words a rate-limited failure before its countdown. */
const RATE_LIMITED = 'Reply failed: Too many requests, so the model provider is rate limiting for now. It can be tried again once the limit lifts.'

const regenerates = () => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/regenerate'))

async function send(text: string): Promise<void> {
  await user().type(screen.getByRole('textbox', { name: /Message|消息/ }), `${text}{Enter}`)
}

/**
 * Serves history as the daemon holds it, but with the classification of the current failed
 * reply rewritten: how a daemon (or a proxy) with odd values would look to the client.
 */
function classifyFailuresAs(retry: (failed: Message) => RetryClassification): void {
  server.use(
    http.get<{ sid: string }>('*/api/v1/sessions/:sid/messages', ({ request, params }) => {
      daemon.record(request.method, request.url)
      // Whole, or a page (`?limit`, `?before`, `?after`), as the client asks.
      const query = new URL(request.url).searchParams
      const paged = ['limit', 'before', 'after'].some((name) => query.has(name))
      const result = paged
        ? daemon.pageMessages(params.sid, { limit: query.get('limit') ?? undefined, before: query.get('before') ?? undefined, after: query.get('after') ?? undefined })
        : daemon.listMessages(params.sid)
      if (!result.ok) return HttpResponse.json(result.refusal.body, { status: result.refusal.status })
      const messages = Array.isArray(result.value) ? result.value : result.value.messages
      for (const m of messages) if (m.role === 'agent' && m.status === 'failed' && !m.superseded) m.retry = retry(m)
      return HttpResponse.json(Array.isArray(result.value) ? { messages } : result.value)
    }),
  )
}

describe('the live region', () => {
  it('announces the arming and each failed attempt, but not the ticks', async () => {
    daemon.plan(['rate_limited', 'rate_limited', 'ok'])
    renderChat(createSession(daemon))
    await advance(10)
    expect(liveRegion()).toHaveTextContent(/^$/)
    await send('hi')
    await advance(20)
    expect(liveRegion()).toHaveTextContent(`${RATE_LIMITED} Retry 1 in 2 seconds.`)
    expect(retryLine()).toBe('Retry 1Retrying in 2 s')
    // The countdown can be read on demand (it is no live region, so its ticks are never spoken);
    // only the live region speaks, once per arming.
    expect(retryBlock()!.querySelector('.retry__text')).not.toHaveAttribute('aria-hidden')
    expect(retryBlock()!.closest('[aria-live="polite"], [aria-live="assertive"]')).toBeNull()

    await advance(1_000)
    expect(retryLine()).toBe('Retry 1Retrying in 1 s')
    expect(liveRegion()).toHaveTextContent(`${RATE_LIMITED} Retry 1 in 2 seconds.`)

    await advance(1_000 + 20)
    expect(retryLine()).toBe('Retry 2Retrying in 4 s')
    expect(liveRegion()).toHaveTextContent(`${RATE_LIMITED} Retry 2 in 4 seconds.`)
    await advance(2_000)
    expect(retryLine()).toBe('Retry 2Retrying in 2 s')
    expect(liveRegion()).toHaveTextContent(`${RATE_LIMITED} Retry 2 in 4 seconds.`)
  })

  it('announces the paused time', async () => {
    daemon.plan(['quota:50'])
    renderChat(createSession(daemon))
    await advance(10)
    await send('hi')
    await advance(20)
    const until = daemon.state().messages.find((m) => m.role === 'agent')!.retry!.retry_after_until!
    const time = formatClockTime(until, Date.now(), 'en')
    expect(liveRegion()).toHaveTextContent(`${RATE_LIMITED} Retry 1 after ${time}.`)
    expect(liveRegion()).toHaveTextContent(`${RATE_LIMITED} Retry 1 after 14:50.`)
  })

  it('speaks again when a later reply fails the same way', async () => {
    daemon.plan(['rate_limited', 'ok', 'rate_limited', 'ok'])
    renderChat(createSession(daemon))
    await advance(10)
    const region = liveRegion()
    const spoken: string[] = []
    // A screen reader speaks a polite region when its content changes: record every change.
    const observer = new MutationObserver(() => spoken.push(region.textContent ?? ''))
    observer.observe(region, { childList: true, characterData: true, subtree: true })
    await send('one')
    // Each step in its own act(): React commits what it rendered when an act() scope ends.
    await advance(20)
    expect(region).toHaveTextContent(`${RATE_LIMITED} Retry 1 in 2 seconds.`)
    // The 2 s wait, then the regenerated `ok` reply with its steps (reasoning, a tool) before its answer.
    await advance(3_000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    await send('two')
    await advance(20)
    expect(retryBlock()).toHaveAttribute('data-retry', 'armed')
    await act(async () => {})
    observer.disconnect()
    expect(spoken).toEqual([`${RATE_LIMITED} Retry 1 in 2 seconds.`, 'Reply complete.', `${RATE_LIMITED} Retry 1 in 2 seconds.`])
  })
})

describe('wire values the schedule must not trust', () => {
  it('retry_after_until in the past: the normal 2 s wait', async () => {
    classifyFailuresAs((m) => ({ retryable: true, retry_class: 'rate_limited', retry_after_until: m.created_at - 10 * MINUTE }))
    daemon.plan(['rate_limited'])
    renderChat(createSession(daemon))
    await advance(10)
    await send('hi')
    await advance(20)
    expect(retryLine()).toBe('Retry 1Retrying in 2 s')
    await advance(2_000)
    expect(regenerates()).toHaveLength(1)
  })

  it.each([
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
  ])('retry_after_until %s: ignored, the normal 2 s wait', async (_, value) => {
    // JSON cannot carry these, so the odd value is put in after the client read the wire; the
    // schedule must still treat it as absent rather than as "never" or "now".
    const sid = createSession(daemon)
    const client = createDaemonClient({ baseUrl: DAEMON_ORIGIN })
    const odd = (m: Message): Message => (m.retry ? { ...m, retry: { ...m.retry, retry_after_until: value } } : m)
    const listMessages: typeof client.listMessages = async (...args) => (await client.listMessages(...args)).map(odd)
    // History is read in pages: each page is read the same way.
    const listMessagesPage: typeof client.listMessagesPage = async (...args) => {
      const page = await client.listMessagesPage(...args)
      return { ...page, messages: page.messages.map(odd) }
    }
    daemon.plan(['rate_limited'])
    renderChat(sid, { runtime: createChatRuntime({ ...client, listMessages, listMessagesPage }, window.sessionStorage) })
    await advance(10)
    await send('hi')
    await advance(20)
    expect(retryBlock()).toHaveAttribute('data-retry', 'armed')
    expect(retryLine()).toBe('Retry 1Retrying in 2 s')
    await advance(2_000)
    expect(regenerates()).toHaveLength(1)
  })

  it('retry_after_until years away: paused, with the full date, and nothing sent meanwhile', async () => {
    classifyFailuresAs((m) => ({ retryable: true, retry_class: 'rate_limited', retry_after_until: m.created_at + 3 * YEAR }))
    daemon.plan(['rate_limited'])
    renderChat(createSession(daemon))
    await advance(10)
    await send('hi')
    await advance(20)
    const until = daemon.state().messages.find((m) => m.role === 'agent')!.created_at + 3 * YEAR
    expect(retryBlock()).toHaveAttribute('data-retry', 'paused')
    const time = formatClockTime(until, Date.now(), 'en')
    // The date is named in full, year included.
    expect(time).toBe('Nov 29, 2029, 14:00')
    expect(retryLine()).toBe(`Retry 1Retry after ${time}`)
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(0)
    expect(retryBlock()).toHaveAttribute('data-retry', 'paused')
  })

  it.each(['solar_flare', 'quota_exhausted', 'auth_failed'])('retry_class %s marked retryable: does not arm', async (retryClass) => {
    classifyFailuresAs(() => ({ retryable: true, retry_class: retryClass }))
    daemon.plan(['rate_limited'])
    renderChat(createSession(daemon))
    await advance(10)
    await send('hi')
    await advance(20)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
    expect(retryBlock()).toBeNull()
    expect(within(lastAgentReply()).getByRole('button', { name: 'Regenerate' })).toBeInTheDocument()
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(0)
  })

  it.each([
    [404, 'message_not_found', 'That message no longer exists, so it cannot be regenerated. Reload the conversation.'],
    [422, 'not_operator_message', 'Only a message you sent can be regenerated from. Choose one of your own messages.'],
  ])('a regenerate refused with %i %s: worded, and never sent again', async (status, code, words) => {
    server.use(
      http.post('*/api/v1/sessions/:sid/messages/:mid/regenerate', ({ request }) => {
        daemon.record(request.method, request.url)
        return HttpResponse.json({ error: 'Refused by the daemon.', code }, { status })
      }),
    )
    daemon.plan(['rate_limited'])
    renderChat(createSession(daemon))
    await advance(10)
    await send('hi')
    await advance(2_100)
    expect(regenerates()).toHaveLength(1)
    expect(retryBlock()).toHaveAttribute('data-retry', 'refused')
    expect(within(retryBlock()!).getByText(words)).toBeInTheDocument()
    expect(liveRegion()).toHaveTextContent(`Automatic retry stopped: ${words}`)
    expect(screen.queryByRole('button', { name: 'Cancel retry' })).toBeNull()
    expect(within(lastAgentReply()).getByRole('button', { name: 'Regenerate' })).toBeInTheDocument()
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(1)
  })
})

describe('accessible names', () => {
  it.each([
    ['en', { regenerate: 'Regenerate', stop: 'Stop', retryNow: 'Retry now', cancel: 'Cancel retry' }],
    ['zh', { regenerate: '重新生成', stop: '停止', retryNow: '立即重试', cancel: '取消' }],
  ] as const)('%s: Retry now, Cancel retry, Stop and Regenerate', async (lng, names) => {
    daemon.plan(['rate_limited', 'hang'])
    renderChat(createSession(daemon), { lng })
    await advance(10)
    await send('hi')
    await advance(20)
    const reply = lastAgentReply()
    expect(within(reply).getByRole('button', { name: names.cancel })).toBeInTheDocument()
    await user().click(within(reply).getByRole('button', { name: names.retryNow }))
    await advance(50)
    expect(within(lastAgentReply()).getByRole('button', { name: names.cancel })).toBeInTheDocument()
    await user().click(within(lastAgentReply()).getByRole('button', { name: names.stop }))
    await advance(50)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'cancelled')
    await user().click(within(lastAgentReply()).getByRole('button', { name: names.regenerate }))
    await advance(500)
    expect(regenerates()).toHaveLength(2)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
  })

  it('zh: the attempt and the countdown are worded in Chinese', async () => {
    daemon.plan(['rate_limited'])
    renderChat(createSession(daemon), { lng: 'zh' })
    await advance(10)
    await send('hi')
    await advance(20)
    expect(retryLine()).toBe('第 1 次重试2 秒后开始')
    expect(liveRegion()).toHaveTextContent('回复失败：请求过于频繁，模型服务商暂时限流。限流解除后即可重试。2 秒后进行第 1 次重试。')
  })
})

describe('deadlines are absolute', () => {
  it.each([
    ['visibilitychange', () => document.dispatchEvent(new Event('visibilitychange'))],
    ['focus', () => window.dispatchEvent(new FocusEvent('focus'))],
  ])('an attempt that fell due while the laptop slept fires on %s at once', async (_, wake) => {
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('visible')
    daemon.plan(['rate_limited'])
    renderChat(createSession(daemon))
    await advance(10)
    await send('hi')
    await advance(20)
    expect(retryBlock()).toHaveAttribute('data-retry', 'armed')
    // Asleep: the wall clock moves on, but no timer runs.
    vi.setSystemTime(Date.now() + 60_000)
    await act(async () => {})
    expect(regenerates()).toHaveLength(0)
    const wokeAt = Date.now()
    await act(async () => wake())
    await advance(0)
    expect(regenerates()).toHaveLength(1)
    expect(regenerates()[0]!.at).toBe(wokeAt)
  })
})
