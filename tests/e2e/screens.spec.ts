/**
 * Screenshots of the key screens, in English and then, after a click on 简体中文, in Chinese.
 * The page's `Date` is fixed at 09:00 UTC (`page.clock.setFixedTime`; timers still run, so
 * streaming works): session titles read "Mar 4, 09:00", a countdown stays at its first second,
 * and "retry after" reads 09:50. Baselines are in tests/e2e/__screenshots__/; regenerate them
 * with `npx playwright test screens --update-snapshots` and look at them before committing.
 */
import type { Page } from '@playwright/test'
import { accessibilityViolations, agentReplies, expect, FIXED_NOW, newSession, openApp, sendMessage, test, statusBadge } from './fixtures'

const PROMPT = 'Summarise the incident report / 总结事故报告'

/**
 * The screen in English, then the same screen in Chinese (the switch re-words everything in
 * place); each one also checked with axe-core for WCAG 2.1 A/AA violations.
 */
async function bothLanguages(page: Page, name: string, zhCheck: () => Promise<void>): Promise<void> {
  await expect(page).toHaveScreenshot(`${name}-en.png`)
  expect.soft(await accessibilityViolations(page), `axe, ${name} (en)`).toEqual([])
  await page.getByRole('button', { name: '简体中文' }).click()
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-Hans')
  await zhCheck()
  await expect(page).toHaveScreenshot(`${name}-zh.png`)
  expect.soft(await accessibilityViolations(page), `axe, ${name} (zh)`).toEqual([])
}

test.beforeEach(async ({ page }) => {
  await page.clock.setFixedTime(FIXED_NOW)
})

test('empty state', async ({ page }) => {
  await openApp(page)
  await expect(page.getByText('No sessions yet. Start one to talk to the agent.')).toBeVisible()
  await bothLanguages(page, 'empty', () => expect(page.getByText('还没有会话。新建一个会话，开始和智能体对话。')).toBeVisible())
})

test('completed conversation', async ({ page }) => {
  await openApp(page)
  await newSession(page)
  await sendMessage(page, PROMPT)
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await expect(page.locator('.sessions__item .badge')).toHaveCount(0)
  await bothLanguages(page, 'completed', () => expect(statusBadge(agentReplies(page, 'zh'))).toHaveText('已完成'))
})

test('reply with its steps', async ({ page }) => {
  await openApp(page, { faults: ['tools:3'] })
  await newSession(page)
  await sendMessage(page, PROMPT)
  const reply = agentReplies(page)
  await expect(reply).toHaveAttribute('data-status', 'complete')
  // Reasoning folded, three tools done; the first opened to its JSON input (highlighted) and its output.
  // With the page's Date fixed, each tool reads "0 s" and the thought "1 s", the same every run.
  await expect(reply.locator('.step--reasoning .step__toggle')).toHaveAttribute('aria-expanded', 'false')
  await expect(reply.locator('.step--tool[data-status="done"]')).toHaveCount(3)
  const tool = reply.locator('.step--tool').first()
  await tool.locator('.step__toggle').click()
  await expect(tool.locator('.step-code').first()).toHaveAttribute('data-highlighted', 'true')
  await expect(reply.locator('.usage')).toBeVisible()
  await bothLanguages(page, 'steps', () => expect(agentReplies(page, 'zh').locator('.step--tool').first().locator('.step__status')).toHaveText('已完成'))
})

test('failed reply with an armed countdown', async ({ page }) => {
  await openApp(page, { faults: ['rate_limited'] })
  await newSession(page)
  await sendMessage(page, PROMPT)
  const reply = agentReplies(page)
  await expect(reply).toHaveAttribute('data-status', 'failed')
  await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'armed')
  await expect(reply.locator('.retry__text')).toHaveText('Retrying in 2 s')
  await bothLanguages(page, 'countdown', () => expect(agentReplies(page, 'zh').locator('.retry__text')).toHaveText('2 秒后开始'))
})

test('paused "retry after" state', async ({ page }) => {
  await openApp(page, { faults: ['quota:50'] })
  await newSession(page)
  await sendMessage(page, PROMPT)
  const reply = agentReplies(page)
  await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'paused')
  await expect(reply.locator('.retry__text')).toHaveText('Retry after 09:50')
  await bothLanguages(page, 'retry-after', () => expect(agentReplies(page, 'zh').locator('.retry__text')).toHaveText('将于 09:50 开始'))
})
