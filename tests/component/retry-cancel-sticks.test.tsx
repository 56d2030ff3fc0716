/**
 * A cancelled retry stays cancelled: leaving the session or reloading the page must not bring
 * the countdown for the same failure back, while a new failure still arms.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { advance, createSession, installFakeClock, reloadRuntime, renderChat, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })
const MINUTE = 60_000
const regenerates = () => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/regenerate'))
const lastAgentReply = () => screen.getAllByRole('article', { name: 'Agent' }).at(-1)!

it('does not re-arm the cancelled failure after a reload, and still arms for the next one', async () => {
  daemon.plan(['quota:50', 'rate_limited'])
  const sid = createSession(daemon)
  const first = renderChat(sid)
  await advance(10)
  await user().type(screen.getByRole('textbox', { name: 'Message' }), 'hi{Enter}')
  await advance(50)
  await user().click(within(lastAgentReply()).getByRole('button', { name: 'Cancel retry' }))
  await advance(0)
  first.unmount()

  renderChat(sid, { runtime: reloadRuntime() })
  await advance(100)
  expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
  expect(screen.queryByRole('button', { name: 'Cancel retry' })).toBeNull()
  await advance(51 * MINUTE)
  expect(regenerates()).toHaveLength(0)

  // Regenerating by hand is a new attempt: its transient failure arms again.
  await user().click(within(lastAgentReply()).getByRole('button', { name: 'Regenerate' }))
  await advance(100)
  expect(regenerates()).toHaveLength(1)
  expect(within(lastAgentReply()).getByRole('button', { name: 'Cancel retry' })).toBeInTheDocument()
  await advance(2_000)
  expect(regenerates()).toHaveLength(2)
})
