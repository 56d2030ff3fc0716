/**
 * The first history read of a session is still on its way when the send it races is accepted
 * (the first screen's Enter opens the session and sends at once): the read that follows the
 * accept must start after it, or the message just sent does not show (and its failure never
 * arms the retry) until something else reads history.
 */
import { screen } from '@testing-library/react'
import { delay, http, HttpResponse } from 'msw'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { createChatRuntime } from '../../src/thread/runtime'
import { createDaemonClient } from '../../src/wire/http'
import { advance, advanceUntil, createSession, DAEMON_ORIGIN, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

it('a send accepted while the first history read is in flight shows, and its failure arms the retry', async () => {
  const sid = createSession(daemon)
  daemon.plan(['rate_limited:40'])
  // The first read is answered from the daemon as it was when the read arrived, 300 ms late.
  server.use(
    http.get(
      '*/api/v1/sessions/:sid/messages',
      async ({ request }) => {
        // The newest page, as the client reads a session it opens.
        const limit = new URL(request.url).searchParams.get('limit') ?? undefined
        const before = daemon.pageMessages(sid, { limit })
        await delay(300)
        return HttpResponse.json(before.ok ? before.value : { messages: [], has_more: false })
      },
      { once: true },
    ),
  )
  // As after the first screen's Enter: the entry is filed "sending", and the view sends it as it opens.
  const runtime = createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.sessionStorage)
  runtime.outbox.put({ clientMessageId: 'c-race', sessionId: sid, content: 'sent at once', state: 'sending', createdAt: Date.now() })
  renderChat(sid, { runtime })
  await advance(10)
  expect(daemon.state().messages.some((m) => m.client_message_id === 'c-race')).toBe(true)
  await advanceUntil(() => screen.queryAllByRole('article', { name: 'You' }).length === 1 && document.querySelector('[data-retry]') !== null, 'the message and its retry', 3000)
  expect(screen.getByRole('article', { name: 'You' })).toHaveTextContent('sent at once')
})
