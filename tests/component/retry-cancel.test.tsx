/**
 * Cancelling the tier 2 scheduler in each of its states: armed, paused, dispatching (before and
 * after the daemon accepted the regenerate) and watching. A cancel must send nothing more, and
 * must stop a run the scheduler already started.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })
const MINUTE = 60_000
const REGENERATE = '*/api/v1/sessions/:sid/messages/:mid/regenerate'

function lastAgentReply(): HTMLElement {
  const replies = screen.getAllByRole('article', { name: 'Agent' })
  return replies[replies.length - 1]!
}

function retryBlock(): HTMLElement | null {
  return lastAgentReply().querySelector<HTMLElement>('[data-retry]')
}

const posts = (suffix: string) => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith(suffix))
const regenerates = () => posts('/regenerate')
const cancels = () => posts('/cancel')

/** Renders a session and sends one message whose run meets the first outcome of `plan`. */
async function failFirstReply(plan: string[]): Promise<string> {
  daemon.plan(plan)
  const sid = createSession(daemon)
  renderChat(sid)
  await advance(10)
  await user().type(screen.getByRole('textbox', { name: 'Message' }), 'hi{Enter}')
  await advance(50)
  expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
  return sid
}

async function cancelRetry(): Promise<void> {
  await user().click(within(lastAgentReply()).getByRole('button', { name: 'Cancel retry' }))
  await advance(0)
}

/** After a cancel: the scheduler says so, leaves the reply to the operator, and stays quiet. */
async function expectCancelledAndQuiet(regenerateCount: number): Promise<void> {
  expect(retryBlock()).toHaveAttribute('data-retry', 'cancelled')
  expect(within(retryBlock()!).getByText('Automatic retry cancelled. You can regenerate by hand.')).toBeInTheDocument()
  expect(screen.queryByRole('button', { name: 'Cancel retry' })).toBeNull()
  expect(screen.queryByRole('button', { name: 'Retry now' })).toBeNull()
  await advance(10 * MINUTE)
  expect(regenerates()).toHaveLength(regenerateCount)
  expect(within(lastAgentReply()).getByRole('button', { name: 'Regenerate' })).toBeInTheDocument()
}

describe('Cancel retry', () => {
  it('while armed: nothing is sent, and the reply offers Regenerate', async () => {
    await failFirstReply(['rate_limited'])
    expect(retryBlock()).toHaveAttribute('data-retry', 'armed')
    expect(within(lastAgentReply()).queryByRole('button', { name: 'Regenerate' })).toBeNull()
    await cancelRetry()
    await expectCancelledAndQuiet(0)
    expect(cancels()).toHaveLength(0)
  })

  it('while paused: nothing is sent, not even at the provider’s time', async () => {
    await failFirstReply(['quota:50'])
    expect(retryBlock()).toHaveAttribute('data-retry', 'paused')
    await cancelRetry()
    await expectCancelledAndQuiet(0)
    await advance(50 * MINUTE)
    expect(regenerates()).toHaveLength(0)
    expect(cancels()).toHaveLength(0)
  })

  it('while dispatching, before the daemon accepted: the request is aborted and nothing runs', async () => {
    let signal: AbortSignal | undefined
    server.use(
      http.post<{ sid: string; mid: string }>(REGENERATE, async ({ request, params }) => {
        daemon.record(request.method, request.url)
        signal = request.signal
        await new Promise((resolve) => setTimeout(resolve, 5_000))
        // The client went away before the daemon got to it: a real daemon would not start a run.
        if (request.signal.aborted) return HttpResponse.error()
        const result = daemon.regenerate(params.sid, params.mid)
        return result.ok ? HttpResponse.json(result.value, { status: 202 }) : HttpResponse.json(result.refusal.body, { status: result.refusal.status })
      }),
    )
    await failFirstReply(['rate_limited', 'hang'])
    await advance(2_000)
    expect(regenerates()).toHaveLength(1)
    expect(retryBlock()).toHaveAttribute('data-retry', 'dispatching')
    expect(signal?.aborted).toBe(false)
    await cancelRetry()
    expect(signal?.aborted).toBe(true)
    await expectCancelledAndQuiet(1)
    expect(daemon.state().runs).toHaveLength(1)
    expect(cancels()).toHaveLength(0)
  })

  it('while dispatching, after the daemon accepted: the request is aborted and the new run cancelled at once', async () => {
    let signal: AbortSignal | undefined
    server.use(
      http.post<{ sid: string; mid: string }>(REGENERATE, async ({ request, params }) => {
        daemon.record(request.method, request.url)
        signal = request.signal
        // Accepted at once; only the answer is slow to come back.
        const result = daemon.regenerate(params.sid, params.mid)
        await new Promise((resolve) => setTimeout(resolve, 5_000))
        return result.ok ? HttpResponse.json(result.value, { status: 202 }) : HttpResponse.json(result.refusal.body, { status: result.refusal.status })
      }),
    )
    await failFirstReply(['rate_limited', 'hang'])
    await advance(2_000)
    expect(retryBlock()).toHaveAttribute('data-retry', 'dispatching')
    const accepted = daemon.state().runs[1]!
    expect(accepted.status).toBe('running')

    const cancelledAt = Date.now()
    await cancelRetry()
    expect(signal?.aborted).toBe(true)
    expect(cancels().map((r) => r.path)).toEqual([`/api/v1/sessions/${accepted.session_id}/runs/${accepted.id}/cancel`])
    expect(cancels()[0]!.at).toBe(cancelledAt)
    expect(daemon.state().runs.find((r) => r.id === accepted.id)?.status).toBe('cancelled')

    await expectCancelledAndQuiet(1)
    expect(cancels()).toHaveLength(1)
    expect(daemon.state().runs).toHaveLength(2)
    // The transcript shows what the daemon holds: the stopped reply, not the superseded failure.
    expect(lastAgentReply()).toHaveAttribute('data-status', 'cancelled')
  })

  it('while watching the new run: that run is cancelled at once, and nothing follows', async () => {
    const sid = await failFirstReply(['rate_limited', 'hang'])
    await advance(2_000)
    await advance(50)
    const watched = daemon.state().runs[1]!
    expect(watched.status).toBe('running')
    expect(lastAgentReply()).toHaveAttribute('data-status', 'streaming')
    expect(retryBlock()).toHaveAttribute('data-retry', 'watching')

    const cancelledAt = Date.now()
    await cancelRetry()
    expect(cancels().map((r) => [r.path, r.at])).toEqual([[`/api/v1/sessions/${sid}/runs/${watched.id}/cancel`, cancelledAt]])
    await advance(50)
    expect(daemon.state().runs.map((r) => r.status)).toEqual(['failed', 'cancelled'])
    expect(lastAgentReply()).toHaveAttribute('data-status', 'cancelled')

    await expectCancelledAndQuiet(1)
    expect(cancels()).toHaveLength(1)
  })
})
