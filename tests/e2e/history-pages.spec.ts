/**
 * A long session in the browser (`?long=400`, the in-browser mock daemon's long session): it
 * opens with its newest page; Home goes to its very first message, with it in sight once its
 * page has landed; End and "Jump to latest" come back to the latest at once, from however far
 * up; find reaches the first message's word from the newest page. In en and zh.
 */
import { daemonState, expect, requestLog, test, word, type Lang } from './fixtures'

const FIRST = 'Project Lodestar starts today'
const MESSAGE_READS = /^GET \/api\/v1\/sessions\/[^/]+\/messages\?/

for (const lang of ['en', 'zh'] as Lang[]) {
  test(`a long session: newest page first, Home to its first message, End and Jump to latest back, find to its start (${lang})`, async ({ page }) => {
    await page.goto(`/?lang=${lang}&long=400`)
    await page.waitForFunction(() => window.__mockDaemon !== undefined)
    // The session written, and opened: its address replaced the one asked for.
    await expect(page).toHaveURL(new RegExp(`/sessions/[^/?]+\\?lang=${lang}$`))
    expect((await daemonState(page)).messages).toHaveLength(400)
    const log = page.getByRole('log')
    // The latest row (the newest reply) is drawn, and in sight.
    const latest = log.locator('.transcript__row--last')
    await expect(latest).toBeInViewport()
    // Only the newest page was read to show it.
    expect((await requestLog(page, MESSAGE_READS)).every((r) => r.endsWith('?limit=100'))).toBe(true)

    const fromEnd = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)
    const jump = page.getByRole('button', { name: word(lang, 'chat.jumpToLatest') })
    await expect(jump).toHaveCount(0)

    // Home, after a click in the log: the top, and the first message in sight once its page is read.
    await log.click({ position: { x: 200, y: 200 } })
    await page.keyboard.press('Home')
    const first = log.getByText(FIRST).first()
    await expect(first).toBeInViewport()
    expect(await log.evaluate((el) => el.scrollTop)).toBe(0)
    expect(await requestLog(page, MESSAGE_READS)).toContainEqual(expect.stringContaining('before=101'))
    // Nothing new below, but the latest is far: the way back is offered.
    await expect(jump).toBeVisible()

    // End: the latest, at once, from the very top.
    await page.keyboard.press('End')
    await expect(latest).toBeInViewport()
    await expect.poll(fromEnd).toBeLessThanOrEqual(2)
    await expect(jump).toHaveCount(0)

    // Find the first message's word from the newest page: the view goes to it.
    await page.keyboard.press('Control+Shift+F')
    const find = page.getByRole('searchbox')
    await expect(find).toBeFocused()
    await find.fill('Lodestar')
    await find.press('Enter')
    await expect(first).toBeInViewport()
    // The row find went to is the first message's, the word marked in it.
    await expect(log.locator('.transcript__row--match')).toContainText(FIRST)
    await expect
      .poll(() => page.evaluate(() => [...(CSS.highlights.get('rebound-find') ?? [])].map((range) => range.toString().toLowerCase())))
      .toContain('lodestar')
    await find.press('Escape')

    // Jump to latest, from the first message: the end, pinned there.
    await jump.click()
    await expect(latest).toBeInViewport()
    await expect.poll(fromEnd).toBeLessThanOrEqual(2)
    await expect(jump).toHaveCount(0)
  })
}

for (const lang of ['en', 'zh'] as Lang[]) {
  test(`a message another client sends to the open session shows, with its reply, without a reload (${lang})`, async ({ page }) => {
    // Time flows as ever; the test moves it on past the list's next reading instead of waiting.
    await page.clock.install()
    await page.goto(`/?lang=${lang}&long=20`)
    await page.waitForFunction(() => window.__mockDaemon !== undefined)
    const log = page.getByRole('log')
    await expect(log.locator('.transcript__row--last')).toBeInViewport()
    const sid = new URL(page.url()).pathname.split('/').pop() ?? ''
    // A while after the tab last read the session (a change within the daemon clock's slack of
    // that read is taken as one this tab already knows).
    await page.clock.runFor(5_000)
    // Another client of the daemon (curl, another browser): the page's own code is not involved.
    const status = await page.evaluate(async (id) => {
      const response = await fetch(`/api/v1/sessions/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'Sent from another client: Zitherfall', client_message_id: 'elsewhere-1' }),
      })
      return response.status
    }, sid)
    expect(status).toBe(202)
    // The session list's next reading (every 15 s) says the session moved on.
    await page.clock.runFor(16_000)
    await expect(log.getByText('Sent from another client: Zitherfall', { exact: true })).toBeVisible()
    await expect(log.locator('.transcript__row--last article')).toHaveAttribute('data-status', 'complete')
    await expect(log.locator('.transcript__row--last')).toContainText('Zitherfall')
  })
}

for (const lang of ['en', 'zh'] as Lang[]) {
  test(`a step opened stays open when its reply is scrolled far away and back, and Home, End and Jump to latest take the focus along (${lang})`, async ({ page }) => {
    await page.goto(`/?lang=${lang}&long=400`)
    await page.waitForFunction(() => window.__mockDaemon !== undefined)
    const log = page.getByRole('log')
    await expect(log.locator('.transcript__row--last')).toBeInViewport()
    const fromEnd = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)
    // The newest reply with a tool step, by its place from the end (nothing new comes meanwhile).
    await expect(log.locator('.transcript__row .step--tool').last()).toBeVisible()
    const fromLast = await log.evaluate((el) => {
      const rows = [...el.querySelectorAll('.transcript__row')]
      const last = Number(rows.at(-1)?.getAttribute('data-index'))
      const withTool = rows.filter((row) => row.querySelector('.step--tool')).at(-1)
      return last - Number(withTool?.getAttribute('data-index'))
    })
    const toolToggle = () =>
      log.evaluateHandle((el, back) => {
        const last = Number([...el.querySelectorAll('.transcript__row')].at(-1)?.getAttribute('data-index'))
        return el.querySelector(`.transcript__row[data-index="${last - back}"] .step--tool .step__toggle`)
      }, fromLast)
    const toggle = (await toolToggle()).asElement()
    if (!toggle) throw new Error('no tool step in the newest rows')
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')

    // Home from the step's toggle: the view at the first message, the focus on the log, not on
    // the toggle far below; Tab goes on from the rows in view, and the view stays at the top.
    await toggle.focus()
    await page.keyboard.press('Home')
    await expect(log.getByText(FIRST).first()).toBeInViewport()
    await expect(log).toBeFocused()
    await page.keyboard.press('Tab')
    await expect.poll(() => log.evaluate((el) => el.scrollTop)).toBe(0)
    expect(await page.evaluate(() => document.querySelector('[role="log"]')?.contains(document.activeElement) ?? false)).toBe(true)
    await expect(page.locator(':focus')).toBeInViewport()

    // Jump to latest from the keyboard: the end, and the focus on the log, not fallen to the page.
    const jump = page.getByRole('button', { name: word(lang, 'chat.jumpToLatest') })
    await jump.focus()
    await page.keyboard.press('Enter')
    await expect.poll(fromEnd).toBeLessThanOrEqual(2)
    await expect(jump).toHaveCount(0)
    await expect(log).toBeFocused()
    // The reply's row was let go at the top and drawn afresh: the step is as the operator left it.
    const again = (await toolToggle()).asElement()
    expect(await again?.getAttribute('aria-expanded')).toBe('true')
  })
}
