/**
 * The watching window: from the moment a regenerate is accepted until its run settles, the reply
 * in flight shows the retry status with Cancel, and no other Regenerate is offered — also while
 * the history read that follows the receipt is still on its way (here: held for 3 s).
 */
import { screen, within } from '@testing-library/react'
import { delay, http } from 'msw'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const replies = () => screen.getAllByRole('article', { name: 'Agent' })

it('between the regenerate receipt and the next history read, the failed reply shows the retry with Cancel and no Regenerate', async () => {
  daemon.plan(['rate_limited', 'hang'])
  const sid = createSession(daemon)
  const sent = daemon.send(sid, { content: 'Summarise the logs', client_message_id: 'c1' })
  if (!sent.ok) throw new Error(sent.refusal.body.code)
  renderChat(sid)
  await advanceUntil(() => document.querySelector('[data-retry="armed"]') !== null, 'the countdown')
  // From now on every history read takes 3 s to come back.
  server.use(
    http.get('*/api/v1/sessions/:sid/messages', async () => {
      await delay(3000)
    }),
  )
  await advanceUntil(() => daemon.state().requests.some((r) => r.path.endsWith('/regenerate')), 'the regenerate', 3000)
  await advance(100)
  // The receipt is in; history has not answered yet: the failed reply is still the one shown.
  const shown = replies().at(-1)!
  expect(shown).toHaveAttribute('data-status', 'failed')
  const box = shown.querySelector('[data-retry]')
  expect(box?.getAttribute('data-retry')).toMatch(/^(dispatching|watching)$/)
  expect(within(shown).getByRole('button', { name: 'Cancel retry' })).toBeInTheDocument()
  expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull()
  for (let waited = 0; waited < 2500; waited += 500) {
    await advance(500)
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull()
  }
  // History answers: the new reply streams, with the watching status and Cancel on it.
  await advanceUntil(() => replies().at(-1)!.getAttribute('data-status') !== 'failed', 'the new reply', 8000)
  expect(replies().at(-1)!.getAttribute('data-status')).toMatch(/^(queued|streaming)$/)
  expect(replies().at(-1)!.querySelector('[data-retry]')?.getAttribute('data-retry')).toBe('watching')
  expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull()
})
