/**
 * Tier 1, the daemon's own retry inside a run, in the chat view against the mock daemon's fault
 * plans (mocks/tier1.ts: waits of 1 s then 2 s, a provider's Retry-After up to 30 s honoured,
 * longer ones handed to tier 2 at once): what the reply says while tier 1 waits, that Stop ends
 * the run Stopped with nothing armed, the hand-off to tier 2 ("The daemon tried 3 times."), and
 * the polite live region speaking each wait once. In English and Chinese.
 */
import { screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { formatClockTime } from '../../src/i18n/format'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'
import { pressKey, requestLines, user, wordsOf } from './session-helpers'

const { daemon } = startMockDaemonForFile()

beforeEach(() => {
  installFakeClock()
  vi.spyOn(navigator, 'platform', 'get').mockReturnValue('Linux x86_64')
})
afterEach(() => vi.useRealTimers())

const REGENERATES = /^POST \/api\/v1\/sessions\/[^/]+\/messages\/[^/]+\/regenerate$/
const CANCELS = /^POST \/api\/v1\/sessions\/[^/]+\/runs\/[^/]+\/cancel$/

/** The failures tier 1 retries in these plans. */
type Cause = 'model_unavailable' | 'model_rate_limited'

/** Every text the polite live region has held, in order, recorded as it changes. */
function recordAnnouncements(): string[] {
  const regions = screen.getAllByRole('status').filter((el) => el.getAttribute('aria-live') === 'polite')
  expect(regions).toHaveLength(1)
  const region = regions[0]!
  const spoken: string[] = []
  const take = () => {
    const text = region.textContent ?? ''
    if (text !== '' && text !== spoken.at(-1)) spoken.push(text)
  }
  new MutationObserver(take).observe(region, { subtree: true, childList: true, characterData: true })
  return spoken
}

/** The `retrying` events the daemon sent in the session's first run. */
function retryingEvents(): { attempt: number; max_attempts: number; retry_at: number; code: string }[] {
  const run = daemon.state().runs[0]
  return (daemon.events(run?.id ?? '') ?? []).filter((e) => e.event === 'retrying').map((e) => JSON.parse(e.data) as never)
}

describe.each(['en', 'zh'] as const)('tier 1 (%s)', (lng) => {
  const t = wordsOf(lng)
  const lastReply = () => screen.queryAllByRole('article', { name: t('transcript.agent') }).at(-1)
  const reply = () => {
    const found = lastReply()
    if (!found) throw new Error('no agent reply yet')
    return found
  }
  const tier1Line = () => lastReply()?.querySelector<HTMLElement>('[data-tier1]') ?? null
  const retryBox = () => lastReply()?.querySelector<HTMLElement>('[data-retry]') ?? null
  const statusOf = () => lastReply()?.getAttribute('data-status')
  const waiting = (code: Cause, attempt: number, seconds: number) => t('tier1.waiting', { cause: t(`tier1.cause.${code}`), attempt, max: 3, seconds })
  const announced = (code: Cause, attempt: number) => t('tier1.announce', { cause: t(`tier1.cause.${code}`), attempt, max: 3 })

  async function openAndSend(plan: string[]): Promise<{ sid: string; spoken: string[] }> {
    daemon.plan(plan)
    const sid = createSession(daemon)
    renderChat(sid, { lng })
    await advance(10)
    const spoken = recordAnnouncements()
    await user().type(screen.getByRole('textbox', { name: t('composer.label') }), 'Check the deploy{Enter}')
    return { sid, spoken }
  }

  it('tier1:2 shows two waits (1 s, then 2 s) with Stop, then the reply; no regenerate is asked for', async () => {
    const { spoken } = await openAndSend(['tier1:2'])
    await advanceUntil(() => tier1Line() !== null, 'the first tier 1 wait')
    expect(tier1Line()).toHaveAttribute('data-tier1', '2')
    expect(tier1Line()).toHaveTextContent(waiting('model_unavailable', 2, 1))
    expect(reply()).toHaveAttribute('data-status', 'streaming')
    expect(within(reply()).getByRole('button', { name: t('actions.stop') })).toBeEnabled()
    expect(within(reply()).queryByRole('button', { name: t('actions.regenerate') })).toBeNull()
    expect(retryBox()).toBeNull()
    const [first] = retryingEvents()
    expect(first).toEqual({ attempt: 2, max_attempts: 3, retry_at: expect.any(Number) as number, code: 'model_unavailable' })

    // The wait's end, before the next attempt has answered: "retrying: attempt 2 of 3…".
    await advance(first!.retry_at - Date.now())
    expect(tier1Line()).toHaveTextContent(t('tier1.starting', { cause: t('tier1.cause.model_unavailable'), attempt: 2, max: 3 }))

    await advanceUntil(() => tier1Line()?.getAttribute('data-tier1') === '3', 'the second tier 1 wait')
    expect(tier1Line()).toHaveTextContent(waiting('model_unavailable', 3, 2))
    await advance(1_000)
    expect(tier1Line()).toHaveTextContent(waiting('model_unavailable', 3, 1))

    await advanceUntil(() => statusOf() === 'complete', 'the reply')
    expect(tier1Line()).toBeNull()
    expect(retryBox()).toBeNull()
    // The reply streamed in after the waits (rendered as Markdown, so compared by its opening words).
    expect(daemon.state().messages.find((m) => m.role === 'agent')!.content).toContain('Check the deploy')
    expect(reply().querySelector('.message__body')).toHaveTextContent('Check the deploy')
    expect(requestLines(daemon, REGENERATES)).toEqual([])
    expect(daemon.state().runs.map((r) => r.status)).toEqual(['completed'])
    expect(retryingEvents().map((e) => e.attempt)).toEqual([2, 3])

    // Each wait spoken once: not per tick; then the reply's end (once history has it), and nothing after it.
    await advance(100)
    expect(spoken).toEqual([announced('model_unavailable', 2), announced('model_unavailable', 3), t('announce.complete')])
    await advance(10_000)
    expect(spoken).toHaveLength(3)
  })

  it('tier1:1 shows one wait, then the reply', async () => {
    const { spoken } = await openAndSend(['tier1:1'])
    await advanceUntil(() => tier1Line() !== null, 'the tier 1 wait')
    expect(tier1Line()).toHaveTextContent(waiting('model_unavailable', 2, 1))
    await advanceUntil(() => statusOf() === 'complete', 'the reply')
    await advance(100)
    expect(spoken).toEqual([announced('model_unavailable', 2), t('announce.complete')])
    expect(requestLines(daemon, REGENERATES)).toEqual([])
  })

  it('tier1:3 hands off to tier 2: the retry box says the daemon tried 3 times beside attempt 1 in 2 s, and the retry then succeeds', async () => {
    const { spoken } = await openAndSend(['tier1:3'])
    await advanceUntil(() => tier1Line()?.getAttribute('data-tier1') === '3', 'the second tier 1 wait')
    await advanceUntil(() => retryBox() !== null, 'tier 2 armed')
    expect(reply()).toHaveAttribute('data-status', 'failed')
    expect(tier1Line()).toBeNull()
    expect(reply().querySelector('.failure__text')).toHaveTextContent(t('errors.model_unavailable'))
    expect(retryBox()).toHaveAttribute('data-retry', 'armed')
    const line = retryBox()!.querySelector('.retry__line')!
    expect(within(retryBox()!).getByText(t('tier1.handoff', { count: 3 }))).toHaveClass('retry__handoff')
    expect(line.textContent).toBe(`${t('tier1.handoff', { count: 3 })}${t('retry.attempt', { attempt: 1 })}${t('retry.countdown', { seconds: 2 })}`)
    expect(within(retryBox()!).getByRole('button', { name: t('actions.retryNow') })).toBeInTheDocument()
    expect(within(retryBox()!).getByRole('button', { name: t('actions.cancelRetry') })).toBeInTheDocument()
    const { runs, messages } = daemon.state()
    expect(runs[0]).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' }, retry: { retryable: true, retry_class: 'overloaded' } })
    expect(messages.find((m) => m.role === 'agent')?.retry).toEqual({ retryable: true, retry_class: 'overloaded' })
    expect(requestLines(daemon, REGENERATES)).toEqual([])

    // The failure and tier 2's arming are one sentence, after the two tier 1 waits.
    expect(spoken).toEqual([
      announced('model_unavailable', 2),
      announced('model_unavailable', 3),
      t('announce.failedArmed', { reason: t('errors.model_unavailable'), attempt: 1, seconds: 2 }),
    ])

    await advance(2_000)
    expect(requestLines(daemon, REGENERATES)).toHaveLength(1)
    await advanceUntil(() => statusOf() === 'complete', 'the retried reply')
    expect(retryBox()).toBeNull()
    expect(daemon.state().runs.map((r) => r.status)).toEqual(['failed', 'completed'])
  })

  it('rate_limited:20 waits the provider’s 20 s; Stop during the wait ends the run Stopped, not failed, and nothing arms', async () => {
    const { spoken } = await openAndSend(['rate_limited:20'])
    await advanceUntil(() => tier1Line() !== null, 'the first tier 1 wait')
    expect(tier1Line()).toHaveTextContent(waiting('model_rate_limited', 2, 20))
    await advance(5_000)
    expect(tier1Line()).toHaveTextContent(waiting('model_rate_limited', 2, 15))
    expect(spoken).toEqual([announced('model_rate_limited', 2)])

    await user().click(within(reply()).getByRole('button', { name: t('actions.stop') }))
    await advance(50)
    expect(requestLines(daemon, CANCELS)).toHaveLength(1)
    expect(reply()).toHaveAttribute('data-status', 'cancelled')
    expect(within(reply()).getByText(t('status.cancelled'))).toBeInTheDocument()
    expect(tier1Line()).toBeNull()
    expect(reply().querySelector('.failure')).toBeNull()
    expect(retryBox()).toBeNull()
    expect(within(reply()).getByRole('button', { name: t('actions.regenerate') })).toBeInTheDocument()

    // Long past both of tier 1's waits and tier 2's first: nothing more happens.
    await advance(120_000)
    expect(requestLines(daemon, REGENERATES)).toEqual([])
    expect(reply()).toHaveAttribute('data-status', 'cancelled')
    const run = daemon.state().runs[0]!
    expect(run.status).toBe('cancelled')
    expect(run.error).toBeUndefined()
    expect(run.retry).toBeUndefined()
    expect(retryingEvents()).toHaveLength(1)
    expect(spoken).toEqual([announced('model_rate_limited', 2), t('announce.stopped')])
  })

  it('rate_limited:20 stopped with Ctrl+Shift+Backspace in the second wait ends Stopped too', async () => {
    await openAndSend(['rate_limited:20'])
    await advanceUntil(() => tier1Line()?.getAttribute('data-tier1') === '3', 'the second tier 1 wait', 30_000)
    expect(tier1Line()).toHaveTextContent(waiting('model_rate_limited', 3, 20))
    pressKey({ key: 'Backspace', ctrlKey: true, shiftKey: true })
    await advance(50)
    expect(reply()).toHaveAttribute('data-status', 'cancelled')
    await advance(60_000)
    expect(retryBox()).toBeNull()
    expect(requestLines(daemon, REGENERATES)).toEqual([])
  })

  it('rate_limited:20 left alone fails after two 20 s waits, and tier 2 takes over', async () => {
    const { spoken } = await openAndSend(['rate_limited:20'])
    await advanceUntil(() => retryBox() !== null, 'tier 2 armed', 60_000)
    expect(reply()).toHaveAttribute('data-status', 'failed')
    expect(reply().querySelector('.failure__text')).toHaveTextContent(t('errors.model_rate_limited'))
    expect(retryBox()!.querySelector('.retry__line')!.textContent).toBe(
      `${t('tier1.handoff', { count: 3 })}${t('retry.attempt', { attempt: 1 })}${t('retry.countdown', { seconds: 2 })}`,
    )
    expect(spoken.slice(0, 2)).toEqual([announced('model_rate_limited', 2), announced('model_rate_limited', 3)])
  })

  it('rate_limited:90 fails at once with the provider’s time: no tier 1 wait, tier 2 counts down 90 s and fires at that time', async () => {
    await openAndSend(['rate_limited:90'])
    await advanceUntil(() => retryBox() !== null, 'tier 2 armed')
    expect(retryingEvents()).toEqual([])
    expect(tier1Line()).toBeNull()
    const until = daemon.state().messages.find((m) => m.role === 'agent')!.retry!.retry_after_until!
    expect(until - Date.now()).toBeGreaterThan(89_000)
    expect(retryBox()).toHaveAttribute('data-retry', 'armed')
    // Tier 1 made no attempt of its own: no hand-off line.
    expect(retryBox()!.querySelector('.retry__handoff')).toBeNull()
    expect(retryBox()!.querySelector('.retry__line')!.textContent).toBe(`${t('retry.attempt', { attempt: 1 })}${t('retry.countdown', { seconds: 90 })}`)
    await advance(until - 1 - Date.now())
    expect(requestLines(daemon, REGENERATES)).toEqual([])
    await advance(1)
    expect(daemon.state().requests.filter((r) => REGENERATES.test(`${r.method} ${r.path}`)).map((r) => r.at)).toEqual([until])
  })

  it('rate_limited:400 is past tier 2’s cap too: the retry box reads “retry after HH:MM”', async () => {
    await openAndSend(['rate_limited:400'])
    await advanceUntil(() => retryBox() !== null, 'tier 2 armed')
    const until = daemon.state().messages.find((m) => m.role === 'agent')!.retry!.retry_after_until!
    expect(retryBox()).toHaveAttribute('data-retry', 'paused')
    const time = formatClockTime(until, Date.now(), lng)
    expect(time).toBe('14:06')
    expect(retryBox()!.querySelector('.retry__line')!.textContent).toBe(`${t('retry.attempt', { attempt: 1 })}${t('retry.after', { time })}`)
  })
})
