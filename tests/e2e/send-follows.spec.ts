/**
 * A send brings the view to the end: an operator who scrolled up to read and then sends sees
 * their message and the reply being written, as a chat shows them, and the view follows the
 * reply from there, with no "Jump to latest" on the way; a Stop pressed while it follows leaves it
 * at the end. In en and zh.
 */
import { agentReplies, daemonState, expect, newSession, openApp, operatorMessages, sendMessage, test, word, WORDS, type Lang } from './fixtures'

for (const lang of ['en', 'zh'] as Lang[]) {
  test(`a send while scrolled up brings the view to the end and follows the reply (${lang})`, async ({ page }) => {
    await openApp(page, { lang })
    await newSession(page, lang)
    const long = lang === 'zh' ? '一条很长的消息，'.repeat(12) : 'A long message that wraps over several lines. '.repeat(6)
    for (let i = 1; i <= 3; i += 1) {
      await sendMessage(page, `${i}. ${long}`, lang)
      await expect.poll(async () => (await daemonState(page)).runs.filter((r) => r.status === 'completed').length).toBe(i)
    }
    const log = page.getByRole('log')
    const fromEnd = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)
    expect(await log.evaluate((el) => el.scrollHeight > el.clientHeight * 1.5), 'the transcript is taller than its view').toBe(true)
    // Up to read the first exchange: the end is out of view.
    await log.evaluate((el) => el.scrollTo({ top: 0 }))
    await expect(operatorMessages(page, lang).first()).toContainText(`1. ${long.slice(0, 16)}`)
    await expect.poll(fromEnd).toBeGreaterThan(200)

    await sendMessage(page, '4. And one more thing.', lang)
    // The message and its reply are in view, and the view stays at the end as the reply grows.
    await expect(operatorMessages(page, lang).last()).toContainText('4. And one more thing.')
    await expect(operatorMessages(page, lang).last()).toBeInViewport()
    await expect.poll(async () => (await daemonState(page)).runs.filter((r) => r.status === 'completed').length).toBe(4)
    await expect(agentReplies(page, lang).last()).toHaveAttribute('data-status', 'complete')
    await expect.poll(fromEnd).toBeLessThanOrEqual(2)
    await expect(page.getByRole('button', { name: word(lang, 'chat.jumpToLatest') })).toHaveCount(0)
  })
}

for (const lang of ['en', 'zh'] as Lang[]) {
  test(`a send in a long session follows its reply with no "Jump to latest" on the way, and Stop leaves the view at the end (${lang})`, async ({ page }) => {
    // A view shorter than the reply with its steps: the reply's top is above it while it follows.
    await page.setViewportSize({ width: 1100, height: 480 })
    await page.goto(`/?lang=${lang}&long=300&faults=long_tool:20`)
    await page.waitForFunction(() => window.__mockDaemon !== undefined)
    await expect(page).toHaveURL(/\/sessions\//)
    const log = page.getByRole('log')
    await expect(log.locator('.transcript__row--last')).toBeInViewport()
    const jumpWord = word(lang, 'chat.jumpToLatest')
    // Every time "Jump to latest" is put on the page, from the send on.
    await page.evaluate((name) => {
      const seen = { count: 0 }
      ;(window as unknown as { __jumps: typeof seen }).__jumps = seen
      new MutationObserver(() => {
        if ([...document.querySelectorAll('button')].some((b) => b.textContent?.includes(name))) seen.count += 1
      }).observe(document.body, { subtree: true, childList: true })
    }, jumpWord)
    await sendMessage(page, lang === 'zh' ? '检查一下服务' : 'Check the services', lang)
    // The reply is running its tools, its top above the view.
    const reply = agentReplies(page, lang).last()
    await expect(reply.locator('.step--tool[data-status="running"]')).not.toHaveCount(0)
    const fromEnd = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)
    await expect.poll(fromEnd).toBeLessThanOrEqual(2)
    expect(await reply.evaluate((el) => el.getBoundingClientRect().top < (el.closest('[role="log"]') as HTMLElement).getBoundingClientRect().top), 'the reply starts above the view').toBe(true)
    // Stop from the keyboard: the focus holds on the reply until its Regenerate takes it.
    await reply.getByRole('button', { name: WORDS[lang].stop }).focus()
    await page.keyboard.press('Enter')
    await expect(reply).toHaveAttribute('data-status', 'cancelled')
    await expect(reply.getByRole('button', { name: WORDS[lang].regenerate })).toBeFocused()
    await page.waitForTimeout(500)
    expect(await fromEnd(), 'the view left at the end after Stop').toBeLessThanOrEqual(2)
    expect(await page.evaluate(() => (window as unknown as { __jumps: { count: number } }).__jumps.count), '"Jump to latest" shown on the way').toBe(0)
  })
}
