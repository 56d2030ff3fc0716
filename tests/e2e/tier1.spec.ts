/**
 * Tier 1, the daemon's own retry inside a run, in a real browser against the in-browser mock
 * daemon's fault plans: two retrying notices then the reply with no regenerate (`tier1:2`), the
 * hand-off to tier 2 (`tier1:3`), Stop during a provider's Retry-After wait ending the run
 * Stopped with nothing armed (`rate_limited:20`), and a provider wait beyond tier 1's window
 * going straight to tier 2 (`rate_limited:90`, `rate_limited:400`). In English and Chinese.
 *
 * Where a test reads a countdown or jumps over a wait, the page's clock is Playwright's
 * (`page.clock.install`): the mock daemon runs in the page, so its tier 1 waits run on that clock too.
 */
import type { Page } from '@playwright/test'
import { agentReplies, daemonState, errorWords, expect, FIXED_NOW, openApp, recordTier1Lines, requestLog, seenStatuses, seenTier1Lines, sendMessage, statusBadge, test, word, type Lang } from './fixtures'

const REGENERATE = /^POST \/api\/v1\/sessions\/[^/]+\/messages\/[^/]+\/regenerate$/
const CANCEL = /^POST \/api\/v1\/sessions\/[^/]+\/runs\/[^/]+\/cancel$/
const LANGS = ['en', 'zh'] as const
type Cause = 'model_unavailable' | 'model_rate_limited'

const waiting = (lang: Lang, code: Cause, attempt: number, seconds: number) =>
  word(lang, 'tier1.waiting', { cause: word(lang, `tier1.cause.${code}`), attempt, max: 3, seconds })
const announced = (lang: Lang, code: Cause, attempt: number) => word(lang, 'tier1.announce', { cause: word(lang, `tier1.cause.${code}`), attempt, max: 3 })

/** Any one of the given texts, exactly: a countdown read while it may tick. */
function oneOf(texts: string[]): RegExp {
  return new RegExp(`^(${texts.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`)
}

/** The polite live region of the session view (the reply badges are not live regions). */
function liveRegion(page: Page) {
  return page.locator('[role="status"][aria-live="polite"]')
}

for (const lang of LANGS) {
  test(`tier1:2 (${lang}): two retrying notices, then the reply, with no regenerate`, async ({ page }) => {
    await recordTier1Lines(page)
    await openApp(page, { lang, faults: ['tier1:2'] })
    await sendMessage(page, 'Summarise the deploy log', lang)
    const reply = agentReplies(page, lang)
    const line = reply.locator('[data-tier1]')
    await expect(line).toHaveText(waiting(lang, 'model_unavailable', 2, 1))
    await expect(reply.getByRole('button', { name: word(lang, 'actions.stop') })).toBeVisible()
    await expect(statusBadge(reply)).toHaveText(word(lang, 'status.streaming'))
    await expect(liveRegion(page)).toHaveText(announced(lang, 'model_unavailable', 2))
    await expect(line).toHaveText(waiting(lang, 'model_unavailable', 3, 2))
    await expect(liveRegion(page)).toHaveText(announced(lang, 'model_unavailable', 3))

    await expect(reply).toHaveAttribute('data-status', 'complete')
    await expect(line).toHaveCount(0)
    await expect(reply.locator('[data-retry]')).toHaveCount(0)
    const seen = await seenTier1Lines(page)
    // Both waits were shown, in order, each counting down (attempt 3's from 2 s to 1 s).
    expect(seen.filter((text) => text.includes(waiting(lang, 'model_unavailable', 2, 1)))).toHaveLength(1)
    expect(seen.indexOf(waiting(lang, 'model_unavailable', 3, 2))).toBeGreaterThan(seen.indexOf(waiting(lang, 'model_unavailable', 2, 1)))
    expect(seen).toContain(waiting(lang, 'model_unavailable', 3, 1))

    const state = await daemonState(page)
    expect(state.requests.filter((r) => REGENERATE.test(`${r.method} ${r.path}`))).toEqual([])
    expect(state.runs.map((r) => `${r.outcome}:${r.status}`)).toEqual(['tier1:2:completed'])
    expect(state.messages.filter((m) => m.role === 'agent')).toHaveLength(1)
    expect(await seenStatuses(page)).not.toContain('failed')
  })
}

for (const lang of LANGS) {
  test(`tier1:3 (${lang}) hands off to tier 2: "The daemon tried 3 times." beside attempt 1, after a reload too, then the retry completes`, async ({ page }) => {
    await page.clock.install({ time: FIXED_NOW })
    await recordTier1Lines(page)
    await openApp(page, { lang, faults: ['tier1:3'] })
    await sendMessage(page, 'Summarise the deploy log', lang)
    const reply = agentReplies(page, lang)
    const retry = reply.locator('[data-retry]')
    await expect(retry).toHaveAttribute('data-retry', 'armed')
    await expect(reply).toHaveAttribute('data-status', 'failed')
    await expect(reply.locator('.failure__text')).toHaveText(errorWords(lang).model_unavailable ?? '')
    await expect(retry.locator('.retry__handoff')).toHaveText(word(lang, 'tier1.handoff', { count: 3 }))
    await expect(retry.locator('.retry__attempt')).toHaveText(word(lang, 'retry.attempt', { attempt: 1 }))
    await expect(retry.locator('.retry__text')).toHaveText(oneOf([2, 1].map((seconds) => word(lang, 'retry.countdown', { seconds }))))
    await expect(reply.locator('[data-tier1]')).toHaveCount(0)
    expect(await seenTier1Lines(page)).toEqual(expect.arrayContaining([waiting(lang, 'model_unavailable', 2, 1), waiting(lang, 'model_unavailable', 3, 2)]))
    const failed = (await daemonState(page)).runs[0]
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' }, retry: { retryable: true, retry_class: 'overloaded' } })

    // A reload keeps what tier 1 did beside the countdown that follows it. The clock holds still
    // while the page reloads, so the 2 s countdown is not spent on however long loading takes.
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 20))
    await page.reload()
    await page.clock.resume()
    await expect(retry).toHaveAttribute('data-retry', 'armed')
    await expect(retry.locator('.retry__handoff')).toHaveText(word(lang, 'tier1.handoff', { count: 3 }))

    await page.clock.runFor(2_000)
    await expect(reply).toHaveAttribute('data-status', 'complete')
    await expect(reply.locator('[data-retry]')).toHaveCount(0)
    expect(await requestLog(page, REGENERATE)).toHaveLength(1)
    expect((await daemonState(page)).runs.map((r) => r.status)).toEqual(['failed', 'completed'])
  })
}

for (const lang of LANGS) {
  test(`rate_limited:20 (${lang}): Stop during the provider's wait ends the run Stopped, not failed, and nothing arms`, async ({ page }) => {
    await page.clock.install({ time: FIXED_NOW })
    await openApp(page, { lang, faults: ['rate_limited:20'] })
    await sendMessage(page, 'Summarise the deploy log', lang)
    const reply = agentReplies(page, lang)
    const line = reply.locator('[data-tier1]')
    await expect(line).toHaveText(oneOf([20, 19].map((s) => waiting(lang, 'model_rate_limited', 2, s))))
    await page.clock.runFor(5_000)
    await expect(line).toHaveText(oneOf([15, 14].map((s) => waiting(lang, 'model_rate_limited', 2, s))))

    await reply.getByRole('button', { name: word(lang, 'actions.stop') }).click()
    await expect(reply).toHaveAttribute('data-status', 'cancelled')
    await expect(statusBadge(reply)).toHaveText(word(lang, 'status.cancelled'))
    await expect(line).toHaveCount(0)
    await expect(reply.locator('.failure')).toHaveCount(0)
    await expect(reply.locator('[data-retry]')).toHaveCount(0)
    await expect(reply.getByRole('button', { name: word(lang, 'actions.regenerate') })).toBeVisible()

    // Past both of tier 1's waits and well past tier 2's first: nothing more is sent.
    await page.clock.runFor(90_000)
    await expect(reply).toHaveAttribute('data-status', 'cancelled')
    await expect(reply.locator('[data-retry]')).toHaveCount(0)
    expect(await requestLog(page, REGENERATE)).toEqual([])
    expect(await requestLog(page, CANCEL)).toHaveLength(1)
    const run = (await daemonState(page)).runs[0]
    expect(run?.status).toBe('cancelled')
    expect(run?.error).toBeUndefined()
    expect(run?.retry).toBeUndefined()
    expect(await seenStatuses(page)).not.toContain('failed')

    // History agrees after a reload.
    await page.reload()
    await expect(agentReplies(page, lang)).toHaveAttribute('data-status', 'cancelled')
    await expect(agentReplies(page, lang).locator('[data-retry]')).toHaveCount(0)
  })
}

test('rate_limited:90: beyond tier 1’s 30 s window the reply fails at once, and tier 2 waits for the provider’s time', async ({ page }) => {
  await page.clock.install({ time: FIXED_NOW })
  await recordTier1Lines(page)
  await openApp(page, { faults: ['rate_limited:90'] })
  await sendMessage(page, 'Summarise the deploy log')
  const reply = agentReplies(page)
  const retry = reply.locator('[data-retry]')
  await expect(retry).toHaveAttribute('data-retry', 'armed')
  await expect(reply.locator('.failure__text')).toHaveText(errorWords('en').model_rate_limited ?? '')
  // No tier 1 wait, so no hand-off line: the provider's 90 s go to tier 2 as they are.
  expect(await seenTier1Lines(page)).toEqual([])
  await expect(retry.locator('.retry__handoff')).toHaveCount(0)
  await expect(retry.locator('.retry__text')).toHaveText(/^Retrying in (90|89|88) s$/)
  const until = (await daemonState(page)).messages.find((m) => m.role === 'agent')?.retry?.retry_after_until ?? 0
  expect(until - FIXED_NOW.getTime()).toBeGreaterThanOrEqual(90_000)

  await page.clock.runFor(60_000)
  expect(await requestLog(page, REGENERATE)).toEqual([])
  await page.clock.runFor(32_000)
  await expect(reply).toHaveAttribute('data-status', 'complete')
  const regenerates = (await daemonState(page)).requests.filter((r) => REGENERATE.test(`${r.method} ${r.path}`))
  expect(regenerates).toHaveLength(1)
  expect(regenerates[0]!.at).toBeGreaterThanOrEqual(until)
})

for (const lang of LANGS) {
  test(`rate_limited:400 (${lang}): past tier 2's cap as well, the retry box reads "retry after HH:MM"`, async ({ page }) => {
    await page.clock.install({ time: FIXED_NOW })
    await openApp(page, { lang, faults: ['rate_limited:400'] })
    await sendMessage(page, 'Summarise the deploy log', lang)
    const retry = agentReplies(page, lang).locator('[data-retry]')
    await expect(retry).toHaveAttribute('data-retry', 'paused')
    // FIXED_NOW is 09:00 UTC (the config's zone); the provider said 400 s: 09:06.
    await expect(retry.locator('.retry__text')).toHaveText(word(lang, 'retry.after', { time: '09:06' }))
    await expect(retry.locator('.retry__attempt')).toHaveText(word(lang, 'retry.attempt', { attempt: 1 }))
    await expect(retry.locator('.retry__handoff')).toHaveCount(0)
  })
}
