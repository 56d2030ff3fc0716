/**
 * A lost connection is never a stopped run, in the view: the mock daemon's `silent:60` sends
 * nothing at all (not even a ping) for 60 s after the first words of the answer. Within 50 s the
 * reply says the connection is lost, still "Writing…" with Stop offered, never stopped or failed;
 * the stream reattaches and, once the daemon talks again, the reply carries on from where it was
 * and completes, once, from one run. The live region says the loss and the return once each.
 */
import { act, screen, within } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createI18n } from '../../src/i18n/bundled'
import type { Language } from '../../src/i18n/resources'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, renderedReplyText, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const EVENTS = /^\/api\/v1\/sessions\/[^/]+\/runs\/[^/]+\/events$/

describe.each(['en', 'zh'] as const)('silent:60 (%s)', (lng: Language) => {
  const { t } = createI18n({ lng })

  it('says "Connection lost" within 50 s, keeps the reply writing with Stop, and completes it after from where it was', async () => {
    daemon.plan(['silent:60'])
    const sid = createSession(daemon)
    const sent = daemon.send(sid, { content: 'Tell me about the deploy', client_message_id: 'c1' })
    if (!sent.ok) throw new Error(sent.refusal.body.code)
    renderChat(sid, { lng })
    const reply = () => screen.getAllByRole('article', { name: t('transcript.agent') }).at(-1)!
    const answer = () => [...reply().querySelectorAll('.message__body')].map((body) => body.textContent).join('')
    const said: string[] = []
    await advance(10)
    const region = screen.getAllByRole('status').find((el) => el.getAttribute('aria-live') === 'polite')!
    new MutationObserver(() => said.push(region.textContent ?? '')).observe(region, { childList: true, characterData: true, subtree: true })

    // The first words of the answer arrive; then the daemon goes quiet.
    await advanceUntil(() => screen.queryAllByRole('article', { name: t('transcript.agent') }).length > 0 && answer() !== '', 'the first words')
    const quietFrom = Date.now()
    await advance(1_000)
    const before = answer()
    expect(before).not.toBe('')
    const line = () => reply().querySelector('[data-connection]')
    for (let step = 0; step < 50 && !line(); step++) await advance(1_000)
    expect(line(), 'the connection line').not.toBeNull()
    expect(Date.now() - quietFrom).toBeLessThanOrEqual(50_000)
    expect(line()).toHaveTextContent(t('connection.lost'))
    expect(line()).toHaveAttribute('data-connection', 'lost')

    // Still writing: the badge, the text so far, and Stop. Never stopped, never failed.
    expect(reply()).toHaveAttribute('data-status', 'streaming')
    expect(within(reply()).getByText(t('status.streaming'))).toBeInTheDocument()
    expect(within(reply()).queryByText(t('status.cancelled'))).toBeNull()
    expect(within(reply()).queryByText(t('status.failed'))).toBeNull()
    expect(within(reply()).getByRole('button', { name: t('actions.stop') })).toBeEnabled()
    expect(answer()).toBe(before)
    await advance(100)
    expect(said).toContain(t('announce.connectionLost'))

    // The daemon talks again at 60 s: the reply carries on and completes.
    await advanceUntil(() => reply().getAttribute('data-status') === 'complete', 'the reply to complete', 30_000)
    expect(line()).toBeNull()
    const stored = daemon.state().messages.find((m) => m.role === 'agent')!
    expect(answer()).toBe(renderedReplyText(stored.content))
    expect(answer().startsWith(before)).toBe(true)
    await advance(3_000)

    // One run, never cancelled, read on after a reattachment that said where it had got to.
    const state = daemon.state()
    expect(state.runs).toHaveLength(1)
    expect(state.runs[0]!.status).toBe('completed')
    expect(state.requests.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(0)
    expect(state.requests.filter((r) => r.method === 'GET' && EVENTS.test(r.path)).length).toBeGreaterThanOrEqual(2)
    expect(said.filter((s) => s.includes(t('announce.connectionLost')))).toHaveLength(1)
    expect(said.filter((s) => s.includes(t('announce.reconnected')))).toHaveLength(1)
    expect(said.at(-1)).toContain(t('announce.complete'))
  })
})

describe('the daemon cannot be reached for long', () => {
  it('says so and keeps trying; a Stop pressed meanwhile is kept, and sent once when the daemon answers again', async () => {
    const { t } = createI18n({ lng: 'en' })
    daemon.plan(['silent:600'])
    const sid = createSession(daemon)
    const sent = daemon.send(sid, { content: 'Tell me about the deploy', client_message_id: 'c1' })
    if (!sent.ok) throw new Error(sent.refusal.body.code)
    renderChat(sid)
    const reply = () => screen.getAllByRole('article', { name: t('transcript.agent') }).at(-1)!
    const line = () => reply().querySelector('[data-connection]')
    await advanceUntil(() => screen.queryAllByRole('article', { name: t('transcript.agent') }).length > 0, 'the reply')
    await advanceUntil(() => line() !== null, 'the connection lost', 60_000)
    expect(line()).toHaveTextContent(t('connection.lost'))

    // The daemon stops answering altogether.
    server.use(http.all('*/api/v1/*', () => HttpResponse.error()))
    await advanceUntil(() => line()?.getAttribute('data-connection') === 'unreachable', 'unreachable', 60_000)
    expect(line()).toHaveTextContent(t('connection.unreachable'))
    expect(reply()).toHaveAttribute('data-status', 'streaming')
    const cancels = () => daemon.state().requests.filter((r) => r.path.endsWith('/cancel'))

    await act(async () => within(reply()).getByRole('button', { name: t('actions.stop') }).click())
    await advanceUntil(() => line()?.textContent?.includes(t('connection.stopKept')) === true, 'the stop kept', 30_000)
    expect(reply()).toHaveAttribute('data-status', 'streaming')
    expect(within(reply()).getByRole('button', { name: t('actions.stop') })).toBeEnabled()
    // Minutes of a daemon that is down: the reply still says it keeps trying.
    await advance(5 * 60_000)
    expect(line()).toHaveAttribute('data-connection', 'unreachable')
    expect(cancels()).toHaveLength(0)

    // The daemon is back: the kept Stop goes, once, and the run ends stopped.
    server.resetHandlers()
    await advanceUntil(() => reply().getAttribute('data-status') === 'cancelled', 'the run stopped', 60_000)
    await advance(120_000)
    expect(cancels()).toHaveLength(1)
    expect(daemon.state().runs[0]!.status).toBe('cancelled')
  })
})
