/**
 * A send brings the view to the end: an operator who scrolled up to read and then sends sees
 * their message and the reply being written, as a chat shows them, and the view follows the
 * reply from there. In en and zh.
 */
import { agentReplies, daemonState, expect, newSession, openApp, operatorMessages, sendMessage, test, word, type Lang } from './fixtures'

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
