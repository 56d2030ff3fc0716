/**
 * Offline, reloads and a skewed browser clock, against the mock daemon over real HTTP:
 * - offline, an armed retry burns no attempt and sends nothing; back online an overdue attempt
 *   fires at once;
 * - a reload keeps the attempt number and the deadline of an armed retry, and a paused
 *   "Retry after HH:MM";
 * - a browser clock 10 minutes fast or slow neither fires a provider's wait early nor waits the
 *   skew too long (the offset is measured from `Date` headers).
 */
import { agentReplies, countdownSeconds, expect, plan, regenerates, retryBox, startWith, test } from './robust-setup'

test('offline: the countdown runs out and nothing is sent; back online the attempt fires at once', async ({ context, stack }) => {
  const page = await context.newPage()
  plan(stack, ['rate_limited:35', 'ok'])
  await startWith(page, stack, 'Offline for a while')
  await expect(retryBox(page)).toHaveAttribute('data-retry', 'armed', { timeout: 20_000 })
  // Skip most of the provider's wait by hand: Retry now is refused by the network, not burned.
  await context.setOffline(true)
  await page.getByRole('button', { name: 'Retry now' }).click()
  await page.waitForTimeout(3_000)
  expect(regenerates(stack)).toBe(0)
  await expect(retryBox(page)).toHaveAttribute('data-retry', 'armed')
  await expect(retryBox(page)).toContainText('Retry 1')
  await context.setOffline(false)
  // Overdue: it fires the moment the browser is back online, not after another wait.
  await expect.poll(() => regenerates(stack), { timeout: 5_000 }).toBe(1)
  await expect(agentReplies(page).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
})

test('offline past the deadline: no attempt burned, and it fires when the network is back', async ({ context, stack }) => {
  const page = await context.newPage()
  plan(stack, ['rate_limited', 'ok'])
  await startWith(page, stack, 'Drop the network')
  await expect(retryBox(page)).toHaveAttribute('data-retry', 'armed', { timeout: 20_000 })
  await context.setOffline(true)
  await page.waitForTimeout(4_000)
  expect(regenerates(stack)).toBe(0)
  await expect(retryBox(page)).toContainText('Retry 1')
  await context.setOffline(false)
  await expect.poll(() => regenerates(stack), { timeout: 5_000 }).toBe(1)
  await expect(agentReplies(page).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
})

test('a reload keeps the attempt number and the deadline of an armed retry', async ({ context, stack }) => {
  const page = await context.newPage()
  plan(stack, ['rate_limited', 'rate_limited:35', 'ok'])
  await startWith(page, stack, 'Reload me')
  await expect(retryBox(page)).toContainText('Retry 2', { timeout: 30_000 })
  const before = await countdownSeconds(page)
  await page.reload()
  await expect(retryBox(page)).toContainText('Retry 2', { timeout: 20_000 })
  const after = await countdownSeconds(page)
  // The same deadline: the countdown goes on from where it was, never starting again.
  expect(after).toBeLessThanOrEqual(before)
  expect(before - after).toBeLessThan(15)
  expect(regenerates(stack)).toBe(1)
})

test('a reload keeps a paused "Retry after HH:MM"', async ({ context, stack }) => {
  const page = await context.newPage()
  plan(stack, ['quota:50'])
  await startWith(page, stack, 'Quota me')
  await expect(retryBox(page)).toHaveAttribute('data-retry', 'paused', { timeout: 20_000 })
  const line = await retryBox(page).textContent()
  await page.reload()
  await expect(retryBox(page)).toHaveAttribute('data-retry', 'paused', { timeout: 20_000 })
  expect(await retryBox(page).textContent()).toBe(line)
})

for (const [name, skewMs] of [
  ['10 minutes fast', 10 * 60_000],
  ['10 minutes slow', -10 * 60_000],
] as const) {
  test(`a browser clock ${name}: the provider's 40 s wait reads 40 s`, async ({ context, stack }) => {
    // Every Date in the page (now, new Date()) is `skewMs` off the machine's clock, which the
    // daemon uses; timers and performance.now are not.
    await context.addInitScript((skew) => {
      const RealDate = Date
      class SkewedDate extends RealDate {
        constructor(...args: unknown[]) {
          if (args.length === 0) super(RealDate.now() + skew)
          else super(...(args as [number]))
        }
        static override now() {
          return RealDate.now() + skew
        }
      }
      globalThis.Date = SkewedDate as DateConstructor
    }, skewMs)
    const page = await context.newPage()
    expect(Math.round(((await page.evaluate(() => Date.now())) - Date.now()) / 60_000)).toBe(skewMs / 60_000)
    plan(stack, ['rate_limited:40', 'ok'])
    await startWith(page, stack, 'What time is it')
    // Uncorrected, a fast clock would see the time long past (2 s, then fire), and a slow one
    // would show "Retry after" ten minutes out.
    await expect(retryBox(page)).toHaveAttribute('data-retry', 'armed', { timeout: 20_000 })
    const seconds = await countdownSeconds(page)
    expect(seconds).toBeGreaterThan(30)
    expect(seconds).toBeLessThanOrEqual(41)
    await page.waitForTimeout(5_000)
    expect(regenerates(stack)).toBe(0)
  })
}
