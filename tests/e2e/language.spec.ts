import { agentReplies, expect, messageBox, newSession, openApp, sendMessage, test, WORDS, statusBadge } from './fixtures'

/**
 * `<html lang>` per language, as src/i18n/setup.ts's HTML_LANG has it (Chinese tagged with its
 * script, so the browser picks Simplified Han glyphs). Not imported: that module pulls in JSON
 * tables, which Node loads only with an import attribute.
 */
const HTML_LANG = { en: 'en', zh: 'zh-Hans' } as const

test('简体中文 switches the whole interface, survives a reload, and English switches back', async ({ page }) => {
  await openApp(page)
  await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.en)
  const english = page.getByRole('button', { name: 'English' })
  const chinese = page.getByRole('button', { name: '简体中文' })
  await expect(english).toHaveAttribute('aria-pressed', 'true')
  await expect(chinese).toHaveAttribute('aria-pressed', 'false')

  await newSession(page)
  await sendMessage(page, 'Hello there')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')

  await chinese.click()
  await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.zh)
  await expect(chinese).toHaveAttribute('aria-pressed', 'true')
  await expect(english).toHaveAttribute('aria-pressed', 'false')
  await expect(page.getByRole('button', { name: WORDS.zh.newSession })).toBeVisible()
  await expect(page.getByRole('button', { name: WORDS.zh.send })).toBeVisible()
  await expect(messageBox(page, 'zh')).toBeVisible()
  await expect(page.getByRole('heading', { name: '会话' })).toBeVisible()
  const reply = agentReplies(page, 'zh')
  await expect(statusBadge(reply)).toHaveText(WORDS.zh.complete)
  await expect(reply.getByRole('button', { name: WORDS.zh.regenerate })).toBeVisible()
  // No English left in the interface's own words (the conversation itself stays as written).
  await expect(page.getByRole('button', { name: 'New session' })).toHaveCount(0)
  await expect(page.getByText('Complete', { exact: true })).toHaveCount(0)

  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.zh)
  await expect(page.getByRole('button', { name: '简体中文' })).toHaveAttribute('aria-pressed', 'true')
  await expect(page.getByRole('button', { name: WORDS.zh.newSession })).toBeVisible()
  await expect(agentReplies(page, 'zh')).toHaveCount(1)

  await page.getByRole('button', { name: 'English' }).click()
  await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.en)
  await expect(page.getByRole('button', { name: 'English' })).toHaveAttribute('aria-pressed', 'true')
  await expect(page.getByRole('button', { name: 'New session' })).toBeVisible()
  await expect(messageBox(page, 'en')).toBeVisible()
  await expect(statusBadge(agentReplies(page, 'en'))).toHaveText('Complete')
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.en)
  await expect(page.getByRole('button', { name: 'New session' })).toBeVisible()
})

test('?lang=zh opens in Chinese and is remembered without the parameter', async ({ page }) => {
  await openApp(page, { lang: 'zh' })
  await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.zh)
  await expect(page.getByText('在下方输入第一条消息，按 Enter 发送，并为它新建会话。')).toBeVisible()
  await page.goto('/')
  await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.zh)
  await expect(page.getByRole('button', { name: WORDS.zh.newSession })).toBeVisible()
})
