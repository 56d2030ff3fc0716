/**
 * Tier 2 in the chat view, against the mock daemon's fault plans: automatic regenerates, the
 * visible countdown and its deadline, the paused "retry after", re-arming, Retry now, and what
 * never arms. Cancelling in each state is in retry-cancel.test.tsx; bad input, the live region,
 * languages and wake-ups are in retry-edges.test.tsx.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { formatClockTime } from '../../src/i18n/format'
import { advance, createSession, installFakeClock, renderChat, renderedReplyText, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })
const MINUTE = 60_000

function lastAgentReply(): HTMLElement {
  const replies = screen.getAllByRole('article', { name: 'Agent' })
  return replies[replies.length - 1]!
}

/** The scheduler's block on the current reply, or null when it shows nothing. */
function retryBlock(): HTMLElement | null {
  return lastAgentReply().querySelector<HTMLElement>('[data-retry]')
}

const requests = (suffix: string) => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith(suffix))
const regenerates = () => requests('/regenerate')

/** Types a message into the composer and sends it with Enter. */
async function send(text: string): Promise<void> {
  await user().type(screen.getByRole('textbox', { name: 'Message' }), `${text}{Enter}`)
}

/** A session whose first reply has already failed in the daemon before the chat is rendered. */
async function sessionWithFailedReply(plan: string[]): Promise<string> {
  daemon.plan(plan)
  const sid = createSession(daemon)
  const sent = daemon.send(sid, { content: 'Summarise the logs', client_message_id: 'cmid-1' })
  if (!sent.ok) throw new Error(sent.refusal.body.code)
  await advance(50)
  expect(daemon.state().messages.find((m) => m.role === 'agent')?.status).toBe('failed')
  return sid
}

describe('automatic regenerate', () => {
  it('rate_limited, rate_limited, ok ends in one complete reply after two automatic regenerates', async () => {
    daemon.plan(['rate_limited', 'rate_limited', 'ok'])
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await send('hi')
    await advance(50)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
    expect(retryBlock()).toHaveAttribute('data-retry', 'armed')

    await advance(2_000)
    expect(regenerates()).toHaveLength(1)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
    expect(within(lastAgentReply()).getByText('Retry 2')).toBeInTheDocument()

    await advance(4_000)
    expect(regenerates()).toHaveLength(2)
    await advance(1_000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    expect(retryBlock()).toBeNull()

    const state = daemon.state()
    const agents = state.messages.filter((m) => m.role === 'agent')
    const current = agents.filter((m) => !m.superseded)
    expect(current).toHaveLength(1)
    expect(current[0]!.status).toBe('complete')
    expect(lastAgentReply().querySelector('.message__body')?.textContent).toBe(renderedReplyText(current[0]!.content))
    const superseded = agents.filter((m) => m.superseded)
    expect(superseded).toHaveLength(2)
    expect(superseded.every((m) => m.status === 'failed')).toBe(true)
    expect(screen.getAllByRole('article', { name: 'Agent' })).toHaveLength(1)
    expect(within(lastAgentReply()).getByRole('button', { name: '2 earlier versions' })).toBeInTheDocument()

    // Settled: nothing more is sent however long the page stays open.
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(2)
  })

  it('shows the attempt and counts down whole seconds: 2 s, then 1 s a second later', async () => {
    daemon.plan(['rate_limited'])
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await send('hi')
    await advance(20)
    const block = retryBlock()!
    expect(within(block).getByText('Retry 1')).toBeInTheDocument()
    expect(within(block).getByText('Retrying in 2 s')).toBeInTheDocument()
    await advance(1_000)
    expect(within(retryBlock()!).getByText('Retrying in 1 s')).toBeInTheDocument()
    expect(regenerates()).toHaveLength(0)
  })

  it('does not fire 1 ms before the deadline and fires at it', async () => {
    const sid = await sessionWithFailedReply(['rate_limited', 'hang'])
    const armedAt = Date.now()
    renderChat(sid)
    await advance(0)
    expect(Date.now()).toBe(armedAt)
    expect(retryBlock()).toHaveAttribute('data-retry', 'armed')
    expect(within(retryBlock()!).getByText('Retrying in 2 s')).toBeInTheDocument()

    await advance(1_999)
    expect(regenerates()).toHaveLength(0)
    expect(within(retryBlock()!).getByText('Retrying in 1 s')).toBeInTheDocument()

    await advance(1)
    expect(regenerates()).toHaveLength(1)
    expect(regenerates()[0]!.at).toBe(armedAt + 2_000)
  })

  it('quota:50 shows "Retry after HH:MM" without ticking, and still fires at that time', async () => {
    const sid = await sessionWithFailedReply(['quota:50'])
    const failed = daemon.state().messages.find((m) => m.role === 'agent')!
    const until = failed.retry!.retry_after_until!
    expect(until - Date.now()).toBeGreaterThan(49 * MINUTE)
    renderChat(sid)
    await advance(0)
    const expected = `Retry after ${formatClockTime(until, Date.now(), 'en')}`
    expect(expected).toBe('Retry after 14:50')
    expect(retryBlock()).toHaveAttribute('data-retry', 'paused')
    expect(within(retryBlock()!).getByText('Retry 1')).toBeInTheDocument()
    const line = retryBlock()!.querySelector('.retry__line')!.textContent
    expect(line).toBe(`Retry 1${expected}`)

    await advance(5_000)
    expect(retryBlock()!.querySelector('.retry__line')!.textContent).toBe(line)
    expect(screen.queryByText(/Retrying in/)).toBeNull()

    await advance(until - 1 - Date.now())
    expect(regenerates()).toHaveLength(0)
    expect(retryBlock()).toHaveAttribute('data-retry', 'paused')
    await advance(1)
    expect(regenerates()).toHaveLength(1)
    expect(regenerates()[0]!.at).toBe(until)
    // The regenerated `ok` reply streams its steps (reasoning, a tool) before its answer.
    await advance(1_000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
  })

  it('re-arms with a longer wait after each failed attempt: 2 s, 4 s, 8 s', async () => {
    daemon.plan(['rate_limited', 'rate_limited', 'rate_limited', 'ok'])
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await send('hi')
    await advance(20)
    const seen: string[] = []
    const read = () => seen.push(retryBlock()!.querySelector('.retry__line')!.textContent ?? '')
    read()
    await advance(2_000 + 20)
    read()
    await advance(4_000 + 20)
    read()
    expect(seen).toEqual(['Retry 1Retrying in 2 s', 'Retry 2Retrying in 4 s', 'Retry 3Retrying in 8 s'])
    expect(regenerates()).toHaveLength(2)

    await advance(7_900)
    expect(regenerates()).toHaveLength(2)
    await advance(200)
    expect(regenerates()).toHaveLength(3)
    await advance(200)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    expect(within(lastAgentReply()).getByRole('button', { name: '3 earlier versions' })).toBeInTheDocument()
  })

  it('Retry now skips the wait: the regenerate goes out at once', async () => {
    daemon.plan(['rate_limited', 'ok'])
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await send('hi')
    await advance(20)
    expect(regenerates()).toHaveLength(0)
    const pressedAt = Date.now()
    await user().click(within(lastAgentReply()).getByRole('button', { name: 'Retry now' }))
    await advance(0)
    expect(regenerates()).toHaveLength(1)
    expect(regenerates()[0]!.at).toBe(pressedAt)
    await advance(1_000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(1)
  })
})

describe('what never arms', () => {
  it.each(['auth_failed', 'context_overflow', 'spend_limit'])('%s: no countdown, no buttons, nothing sent', async (outcome) => {
    daemon.plan([outcome])
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await send('hi')
    await advance(50)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
    expect(retryBlock()).toBeNull()
    expect(screen.queryByRole('button', { name: 'Retry now' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Cancel retry' })).toBeNull()
    expect(within(lastAgentReply()).getByRole('button', { name: 'Regenerate' })).toBeInTheDocument()
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(0)
    expect(retryBlock()).toBeNull()
  })

  it('a run the operator stopped (hang + Stop) never arms', async () => {
    daemon.plan(['hang'])
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await send('hi')
    await advance(50)
    await user().click(within(lastAgentReply()).getByRole('button', { name: 'Stop' }))
    await advance(50)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'cancelled')
    expect(screen.queryByRole('button', { name: 'Retry now' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Cancel retry' })).toBeNull()
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(0)
    expect(requests('/cancel')).toHaveLength(1)
  })
})
