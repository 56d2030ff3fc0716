/**
 * Tier 1's `retry_at` is on the daemon's clock ("Times on the wire are the daemon's clock",
 * daemon-wire.md) and is placed on the browser's by the offset measured from `Date` headers:
 *
 * - a daemon 60 s ahead: a 1 s wait reads 1 s, not 61 s;
 * - a daemon 5 s behind: the 1 s wait counts down and is announced, instead of reading as over
 *   (and taken for a replay) from its first frame.
 */
import { screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startSkewedDaemonForFile } from '../setup/mock-daemon'
import { advance, advanceUntil, installFakeClock, renderChat } from './harness'
import { user, wordsOf } from './session-helpers'

/** How far the daemon's clock is from the browser's, per test. */
const { daemon, skew } = startSkewedDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

describe('tier 1 against a daemon whose clock is off', () => {
  const t = wordsOf('en')
  const tier1Line = () => screen.queryAllByRole('article', { name: 'Agent' }).at(-1)?.querySelector('[data-tier1]') ?? null
  const liveRegion = () => screen.getAllByRole('status').find((el) => el.getAttribute('aria-live') === 'polite')!
  const waiting1s = t('tier1.waiting', { cause: t('tier1.cause.model_unavailable'), attempt: 2, max: 3, seconds: 1 })

  async function sendUnderTier1(): Promise<void> {
    daemon.plan(['tier1:2'])
    const made = daemon.createSession({ title: 'Skewed' })
    if (!made.ok) throw new Error(made.refusal.body.code)
    renderChat(made.value.id)
    await advance(10)
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'hi{Enter}')
    await advanceUntil(() => tier1Line() !== null, 'the tier 1 wait')
  }

  it('a daemon 60 s ahead: the 1 s wait reads 1 s, not 61 s', async () => {
    skew.ms = 60_000
    await sendUnderTier1()
    expect(tier1Line()).toHaveTextContent(waiting1s)
  })

  it('a daemon 5 s behind: the 1 s wait counts down and is announced', async () => {
    skew.ms = -5_000
    await sendUnderTier1()
    expect(tier1Line()).toHaveTextContent(waiting1s)
    expect(liveRegion()).toHaveTextContent(t('tier1.announce', { cause: t('tier1.cause.model_unavailable'), attempt: 2, max: 3 }))
  })
})
