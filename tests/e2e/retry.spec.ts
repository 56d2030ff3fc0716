/**
 * Tier 2, as issue 3's "Done when" puts it: transient failures retry on their own with a visible,
 * cancellable countdown, and a long provider wait reads "Retry after HH:MM".
 *
 * The page's clock is Playwright's (`page.clock.install`), flowing in real time from a fixed
 * wall-clock time, so the mock daemon's pacing and MSW keep working; the tests jump over waits
 * with `runFor` (every timer in between fires) and `fastForward` (a jump: due timers fire once).
 */
import { agentReplies, daemonState, expect, FIXED_NOW, newSession, openApp, planFaults, requestLog, seenStatuses, sendMessage, test } from './fixtures'

const REGENERATE = /^POST \/api\/v1\/sessions\/[^/]+\/messages\/[^/]+\/regenerate$/

/**
 * HH:MM of FIXED_NOW + 50 minutes in UTC (the config's time zone): "09:50". The run fails a few
 * real seconds after FIXED_NOW, which cannot move the minute.
 */
const QUOTA_50_AT = new Date(FIXED_NOW.getTime() + 50 * 60_000).toISOString().slice(11, 16)

test('rate_limited, overloaded, ok: two countdowns run and the reply arrives with no click', async ({ page }) => {
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page, { faults: ['rate_limited', 'overloaded', 'ok'] })
  await newSession(page)
  await sendMessage(page, 'Please summarise the logs')

  const reply = agentReplies(page)
  const retry = reply.locator('[data-retry]')
  // First failure: attempt 1, 2 s.
  await expect(reply).toHaveAttribute('data-status', 'failed')
  await expect(reply.locator('.failure__text')).toHaveText(
    'Too many requests, so the model provider is rate limiting for now. It can be tried again once the limit lifts.',
  )
  await expect(retry).toHaveAttribute('data-retry', 'armed')
  await expect(retry).toContainText('Retry 1')
  await expect(retry).toContainText('Retrying in 2 s')
  await expect(reply.getByRole('button', { name: 'Retry now' })).toBeVisible()
  await expect(reply.getByRole('button', { name: 'Cancel retry' })).toBeVisible()
  // While the scheduler owns the reply, Regenerate is not offered next to it.
  await expect(reply.getByRole('button', { name: 'Regenerate' })).toHaveCount(0)
  // The announcement is polite and made once, not per tick.
  await expect(
    page.getByRole('status').filter({
      hasText: 'Reply failed: Too many requests, so the model provider is rate limiting for now. It can be tried again once the limit lifts. Retry 1 in 2 seconds.',
    }),
  ).toHaveCount(1)

  await page.clock.runFor(2_000)

  // Second failure (overloaded): attempt 2, doubled to 4 s.
  await expect(retry).toContainText('Retry 2')
  await expect(retry).toContainText('Retrying in 4 s')
  await expect(reply.locator('.failure__text')).toHaveText('The model provider is overloaded or down. This is usually temporary; try again shortly.')
  await expect(reply.getByRole('button', { name: '1 earlier version' })).toBeVisible()

  await page.clock.runFor(4_000)

  await expect(reply).toHaveAttribute('data-status', 'complete')
  await expect(reply.locator('[data-retry]')).toHaveCount(0)
  await expect(reply.getByRole('button', { name: 'Regenerate' })).toBeVisible()
  const earlier = reply.getByRole('button', { name: '2 earlier versions' })
  await expect(earlier).toBeVisible()
  await earlier.click()
  await expect(reply.locator('.earlier__item')).toHaveCount(2)
  await expect(reply.locator('.earlier__item[data-status="failed"]')).toHaveCount(2)

  const state = await daemonState(page)
  expect(state.runs.map((r) => r.status)).toEqual(['failed', 'failed', 'completed'])
  expect(state.messages.filter((m) => m.role === 'operator')).toHaveLength(1)
  expect(await requestLog(page, REGENERATE)).toHaveLength(2)
  expect(await seenStatuses(page)).toEqual(expect.arrayContaining(['failed', 'streaming', 'complete']))
})

test('Retry now skips the countdown; Cancel retry stops it and offers Regenerate', async ({ page }) => {
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page, { faults: ['unreachable', 'unreachable'] })
  await newSession(page)
  await sendMessage(page, 'Check the provider status')

  const reply = agentReplies(page)
  await expect(reply.locator('[data-retry]')).toContainText('Retry 1')
  await reply.getByRole('button', { name: 'Retry now' }).click()
  await expect(reply.locator('[data-retry]')).toContainText('Retry 2')
  expect(await requestLog(page, REGENERATE)).toHaveLength(1)

  await reply.getByRole('button', { name: 'Cancel retry' }).click()
  await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'cancelled')
  await expect(reply.locator('[data-retry]')).toHaveText('Automatic retry cancelled. You can regenerate by hand.')
  await expect(reply.getByRole('button', { name: 'Regenerate' })).toBeVisible()
  await page.clock.runFor(10_000)
  expect(await requestLog(page, REGENERATE)).toHaveLength(1)
  await expect(reply).toHaveAttribute('data-status', 'failed')
})

test('quota:50 reads "Retry after 09:50", and Cancel retry means no regenerate even after the time', async ({ page }) => {
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page, { faults: ['quota:50'] })
  await newSession(page)
  await sendMessage(page, 'Draft the weekly summary')

  const reply = agentReplies(page)
  const retry = reply.locator('[data-retry]')
  await expect(reply).toHaveAttribute('data-status', 'failed')
  await expect(retry).toHaveAttribute('data-retry', 'paused')
  // The run failed a few (real) seconds after 09:00 UTC; the provider said "not for 50 minutes".
  const { messages } = await daemonState(page)
  const until = messages.find((m) => m.role === 'agent')?.retry?.retry_after_until ?? 0
  expect(until - FIXED_NOW.getTime()).toBeGreaterThanOrEqual(50 * 60_000)
  expect(until - FIXED_NOW.getTime()).toBeLessThan(51 * 60_000)
  await expect(retry).toContainText('Retry 1')
  expect(QUOTA_50_AT).toBe('09:50')
  await expect(retry).toContainText(`Retry after ${QUOTA_50_AT}`)
  await expect(retry).not.toContainText('Retrying in')

  await reply.getByRole('button', { name: 'Cancel retry' }).click()
  await expect(retry).toHaveAttribute('data-retry', 'cancelled')

  await page.clock.fastForward('51:00')
  // Let the page run on past the deadline (a wake-up re-reads the clock) before counting.
  await page.clock.runFor(3_000)
  await expect(reply).toHaveAttribute('data-status', 'failed')
  expect(await requestLog(page, REGENERATE)).toEqual([])
  expect((await daemonState(page)).runs).toHaveLength(1)
})

test('a cancelled retry stays cancelled when the operator comes back to the session', async ({ page }) => {
  // ADR-0052: on "no quota for 50 minutes" the operator "must be able to cancel and come back
  // rather than have the system hammer the endpoint".
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page, { faults: ['quota:50'] })
  const sessionId = await newSession(page)
  await sendMessage(page, 'Draft the weekly summary')
  const reply = agentReplies(page)
  const waiting = reply.locator('[data-retry="paused"], [data-retry="armed"]')
  await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'paused')
  await reply.getByRole('button', { name: 'Cancel retry' }).click()
  await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'cancelled')

  // Away to another session and back through the sidebar.
  await newSession(page)
  await page.getByRole('navigation', { name: 'Sessions' }).locator(`a[href="/sessions/${sessionId}"]`).click()
  await expect(reply).toHaveAttribute('data-status', 'failed')
  // Soft, so the test goes on to the consequence that matters: the request count at the end.
  await expect.soft(waiting, 'countdown re-armed after switching sessions').toHaveCount(0, { timeout: 2_000 })

  // And a reload.
  await page.reload()
  await expect(reply).toHaveAttribute('data-status', 'failed')
  await expect.soft(waiting, 'countdown re-armed after a reload').toHaveCount(0, { timeout: 2_000 })

  await page.clock.fastForward('51:00')
  await page.clock.runFor(3_000)
  expect(await requestLog(page, REGENERATE), 'regenerate requests after Cancel retry').toEqual([])
})

test('quota:50 left alone fires by itself once 09:50 has passed', async ({ page }) => {
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page, { faults: ['quota:50'] })
  await newSession(page)
  await sendMessage(page, 'Draft the weekly summary')

  const reply = agentReplies(page)
  await expect(reply.locator('[data-retry]')).toContainText(`Retry after ${QUOTA_50_AT}`)
  await page.clock.fastForward('51:00')
  await page.clock.runFor(3_000)

  await expect(reply).toHaveAttribute('data-status', 'complete')
  await expect(reply.getByRole('button', { name: '1 earlier version' })).toBeVisible()
  expect(await requestLog(page, REGENERATE)).toHaveLength(1)
})

test.describe('"retry after" in the operator\'s own time zone', () => {
  test.use({ timezoneId: 'Asia/Shanghai' })

  test('09:00 UTC + 50 min reads 17:50 in Shanghai; past midnight there it names the day', async ({ page }) => {
    await page.clock.setFixedTime(FIXED_NOW)
    await openApp(page, { faults: ['quota:50'] })
    await newSession(page)
    await sendMessage(page, 'Morning report')
    const replies = agentReplies(page)
    await expect(replies.locator('.retry__text')).toHaveText('Retry after 17:50')

    // 15:30 UTC is 23:30 in Shanghai: 50 minutes on is tomorrow there.
    await page.clock.setFixedTime(new Date('2030-03-04T15:30:00Z'))
    await planFaults(page, ['quota:50'])
    await sendMessage(page, 'Late-night report')
    await expect(replies).toHaveCount(2)
    await expect(replies.nth(1).locator('.retry__text')).toHaveText('Retry after Mar 5, 00:20')
    await page.getByRole('button', { name: '简体中文' }).click()
    await expect(agentReplies(page, 'zh').nth(1).locator('.retry__text')).toHaveText('将于 3月5日 00:20 开始')
  })
})
