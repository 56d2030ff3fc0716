import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, fn } from 'storybook/test'
import { failureForCode } from '../mocks/faults'
import { AgentReply } from '../src/chat/reply/agent-reply'
import { RetryStatus } from '../src/chat/reply/retry-status'
import { Tier1Status } from '../src/chat/reply/tier1-status'
import type { Tier1Wait } from '../src/live/live-runs'
import { agentReply, FIXED_NOW, wordsFor } from './fixtures'

/**
 * Tier 1, the daemon's own retry inside a run, as the reply shows it against the fixed clock
 * (`now` = 14:05:00): waiting before attempt 2 or 3 with its cause and countdown, the moment the
 * attempt starts, and the hand-off to the client's countdown (tier 2) once tier 1 gives up. Stop
 * is offered while tier 1 waits; the reply has no text yet.
 */
const meta = {
  title: 'Retry/Tier 1',
  component: AgentReply,
  args: { message: agentReply({ content: '', status: 'streaming' }), onStop: fn(), onRegenerate: fn() },
} satisfies Meta<typeof AgentReply>

export default meta
type Story = StoryObj<typeof meta>

const waitFor = (attempt: number, inMs: number, code = 'model_unavailable'): Tier1Wait => ({ attempt, maxAttempts: 3, retryAt: FIXED_NOW + inMs, code })

/** The provider answered 503; tier 1 waits 1 s before its second attempt. */
export const WaitingAttempt2: Story = {
  name: 'Waiting, attempt 2 of 3 (1 s)',
  args: { tier1: <Tier1Status wait={waitFor(2, 1_000)} now={FIXED_NOW} /> },
  play: async ({ canvas, canvasElement, globals, args }) => {
    const t = wordsFor(globals.locale)
    const line = canvasElement.querySelector('[data-tier1]')
    await expect(line).toHaveAttribute('data-tier1', '2')
    await expect(line).toHaveTextContent(t('tier1.waiting', { cause: t('tier1.cause.model_unavailable'), attempt: 2, max: 3, seconds: 1 }))
    // Still the run's time: Stop ends it, and nothing offers a regenerate.
    await expect(canvas.getByRole('button', { name: t('actions.stop') })).toBeEnabled()
    await expect(canvas.queryByRole('button', { name: t('actions.regenerate') })).toBeNull()
    await expect(canvasElement.querySelector('[data-retry]')).toBeNull()
    await expect(args.onStop).not.toHaveBeenCalled()
  },
}

/** The provider asked for 20 s (429 with Retry-After), within tier 1's window: the last attempt waits it out. */
export const WaitingAttempt3RateLimited: Story = {
  name: 'Waiting, attempt 3 of 3 (rate limited, 20 s)',
  args: { tier1: <Tier1Status wait={waitFor(3, 20_000, 'model_rate_limited')} now={FIXED_NOW} /> },
  play: async ({ canvasElement, globals }) => {
    const t = wordsFor(globals.locale)
    await expect(canvasElement.querySelector('[data-tier1]')).toHaveTextContent(
      t('tier1.waiting', { cause: t('tier1.cause.model_rate_limited'), attempt: 3, max: 3, seconds: 20 }),
    )
  },
}

/** The wait is over and the attempt is on its way: no countdown, the attempt named. */
export const Starting: Story = {
  name: 'Starting attempt 2 of 3',
  args: { tier1: <Tier1Status wait={waitFor(2, 0)} now={FIXED_NOW} /> },
  play: async ({ canvasElement, globals }) => {
    const t = wordsFor(globals.locale)
    await expect(canvasElement.querySelector('[data-tier1]')).toHaveTextContent(t('tier1.starting', { cause: t('tier1.cause.model_unavailable'), attempt: 2, max: 3 }))
  },
}

/** A failure tier 1 has no short cause for is still named as the provider's failure. */
export const WaitingOtherCause: Story = {
  name: 'Waiting, another cause',
  args: { tier1: <Tier1Status wait={waitFor(2, 1_000, 'flux_capacitor_depleted')} now={FIXED_NOW} /> },
  play: async ({ canvasElement, globals }) => {
    const t = wordsFor(globals.locale)
    await expect(canvasElement.querySelector('[data-tier1]')).toHaveTextContent(t('tier1.waiting', { cause: t('tier1.cause.other'), attempt: 2, max: 3, seconds: 1 }))
  },
}

const unavailable = failureForCode('model_unavailable')

/**
 * Tier 1 gave up after its third attempt: the reply failed `model_unavailable`, and the client's
 * countdown (tier 2) took over, saying so in one line.
 */
export const HandOffToTier2: Story = {
  name: 'Hand-off to tier 2',
  args: {
    message: agentReply({ content: '', status: 'failed', error: { code: unavailable.code, message: unavailable.message }, retry: unavailable.retry }),
    // While the scheduler owns the reply, its own buttons are the way to act (as ReplyRow does).
    onRegenerate: undefined,
    retry: <RetryStatus view={{ status: 'armed', attempt: 1, deadline: FIXED_NOW + 2_000 }} now={FIXED_NOW} daemonAttempts={3} onRetryNow={fn()} onCancel={fn()} />,
  },
  play: async ({ canvas, canvasElement, globals }) => {
    const t = wordsFor(globals.locale)
    const box = canvasElement.querySelector('[data-retry]')
    await expect(box).toHaveAttribute('data-retry', 'armed')
    await expect(box?.querySelector('.retry__line')?.textContent).toBe(`${t('tier1.handoff', { count: 3 })}${t('retry.attempt', { attempt: 1 })}${t('retry.countdown', { seconds: 2 })}`)
    await expect(canvas.getByText(t('errors.model_unavailable'))).toBeInTheDocument()
    await expect(canvas.getByRole('button', { name: t('actions.retryNow') })).toBeInTheDocument()
    await expect(canvas.getByRole('button', { name: t('actions.cancelRetry') })).toBeInTheDocument()
    // The run has ended: no Stop, and no tier 1 line.
    await expect(canvas.queryByRole('button', { name: t('actions.stop') })).toBeNull()
    await expect(canvasElement.querySelector('[data-tier1]')).toBeNull()
  },
}
