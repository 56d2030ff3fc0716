/**
 * Two tabs on one session, in one browser (shared localStorage and BroadcastChannel), against the
 * mock daemon over real HTTP: the same scheduler state in both, one regenerate per attempt, a
 * cancel in one tab is a cancel in both, and the draft is shared.
 */
import { agentReplies, daemonState, expect, messageBox, plan, regenerates, retryBox, startWith, test } from './robust-setup'

test('both tabs show the failure and the same countdown; the attempt is dispatched once; both show the reply', async ({ context, stack }) => {
  // The provider asks for 35 s: time for the second tab to open and count down beside the first.
  test.setTimeout(120_000)
  const a = await context.newPage()
  plan(stack, ['rate_limited:35', 'ok'])
  const url = await startWith(a, stack, 'Summarise the deploy logs')
  await expect(retryBox(a)).toHaveAttribute('data-retry', 'armed', { timeout: 20_000 })

  // The second tab did not send; it opens the same session and sees the same retry.
  const b = await context.newPage()
  await b.goto(url)
  await expect(retryBox(b)).toHaveAttribute('data-retry', 'armed', { timeout: 20_000 })
  await expect(retryBox(b)).toContainText('Retry 1')
  const deadlines = await Promise.all([a, b].map((page) => page.evaluate(() => document.querySelector('[data-retry]')?.textContent ?? '')))
  // Same deadline in both: the seconds shown differ by at most the second it takes to read them.
  const seconds = deadlines.map((text) => Number(/Retrying in (\d+) s/.exec(text)?.[1] ?? Number.NaN))
  expect(Math.abs(seconds[0]! - seconds[1]!)).toBeLessThanOrEqual(1)

  await expect(agentReplies(a).last()).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
  await expect(agentReplies(b).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  expect(regenerates(stack)).toBe(1)
  expect(daemonState(stack).runs).toHaveLength(2)
})

test('a cancel in one tab is a cancel in the other, and nothing is sent after it', async ({ context, stack }) => {
  const a = await context.newPage()
  plan(stack, ['quota:30'])
  const url = await startWith(a, stack, 'Try the quota path')
  await expect(retryBox(a)).toHaveAttribute('data-retry', 'paused', { timeout: 20_000 })
  const b = await context.newPage()
  await b.goto(url)
  await expect(retryBox(b)).toHaveAttribute('data-retry', 'paused', { timeout: 20_000 })
  const retryAfter = await retryBox(a).textContent()
  expect(await retryBox(b).textContent()).toBe(retryAfter)

  await b.getByRole('button', { name: 'Cancel retry' }).click()
  await expect(retryBox(b)).toHaveAttribute('data-retry', 'cancelled')
  await expect(retryBox(a)).toHaveAttribute('data-retry', 'cancelled', { timeout: 5_000 })
  // Reloading the tab that did not cancel keeps the cancel too.
  await a.reload()
  await expect(agentReplies(a).last()).toHaveAttribute('data-status', 'failed', { timeout: 20_000 })
  await expect(a.getByRole('button', { name: 'Regenerate' })).toBeVisible()
  expect(regenerates(stack)).toBe(0)
})

test('a draft typed in one tab is the draft in the other, and survives closing the tab', async ({ context, stack }) => {
  const a = await context.newPage()
  const url = await startWith(a, stack, 'First message')
  await expect(agentReplies(a).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  const b = await context.newPage()
  await b.goto(url)
  await expect(agentReplies(b).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await messageBox(a).fill('half a thought')
  await expect(messageBox(b)).toHaveValue('half a thought')
  await a.close()
  const c = await context.newPage()
  await c.goto(url)
  await expect(messageBox(c)).toHaveValue('half a thought', { timeout: 20_000 })
  await b.close()
})
