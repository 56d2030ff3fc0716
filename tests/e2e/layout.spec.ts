/**
 * Narrow screens and zoom: a phone (375×740) and a 1200×800 window at 200% zoom (600×400 CSS
 * px). The transcript scrolls, never the page; the message box stays inside the window; the
 * sessions panel folds behind a button that works from the keyboard; every control can be
 * reached. In English and Chinese. And on a wide screen the panel stays where it was.
 */
import type { Page } from '@playwright/test'
import { agentReplies, daemonState, expect, messageBox, openApp, operatorMessages, sendMessage, test, WORDS, type Lang } from './fixtures'
import { expectInsideViewport, newSessionAnyWidth, pageScrolls, sessionsNav, sessionsToggle } from './panel'

const NARROW = [
  { name: 'phone', width: 375, height: 740 },
  { name: '200% zoom', width: 600, height: 400 },
] as const
const LANGS: Lang[] = ['en', 'zh']

async function expectPageStill(page: Page, when: string): Promise<void> {
  expect(await pageScrolls(page), `the page scrolls (${when})`).toEqual({ vertical: 0, horizontal: 0 })
}

for (const size of NARROW) {
  for (const lang of LANGS) {
    test.describe(`${size.name} ${size.width}×${size.height}, ${lang}`, () => {
      test.use({ viewport: { width: size.width, height: size.height } })

      test('the sessions panel folds behind a button that works from the keyboard', async ({ page }) => {
        await openApp(page, { lang })
        await expectPageStill(page, 'empty')
        const toggle = sessionsToggle(page, lang)
        const nav = sessionsNav(page, lang)
        await expect(toggle).toBeVisible()
        await expect(toggle).toHaveAttribute('aria-expanded', 'false')
        await expect(nav).toBeHidden()
        const controls = await toggle.getAttribute('aria-controls')
        expect(controls).toBeTruthy()
        await expectInsideViewport(page, toggle, 'the Sessions button')

        // Enter opens it and focus moves in; Escape closes it and focus is back on the button.
        await toggle.focus()
        await page.keyboard.press('Enter')
        await expect(toggle).toHaveAttribute('aria-expanded', 'true')
        await expect(nav).toBeVisible()
        await expect(page.locator(`[id="${controls}"]`)).toContainText(WORDS[lang].newSession)
        await expect(page.getByRole('button', { name: WORDS[lang].newSession })).toBeFocused()
        await expectInsideViewport(page, page.getByRole('button', { name: WORDS[lang].newSession }), 'New session')
        await page.keyboard.press('Escape')
        await expect(toggle).toHaveAttribute('aria-expanded', 'false')
        await expect(nav).toBeHidden()
        await expect(toggle).toBeFocused()

        // Space opens it; New session, pressed with Enter, opens the session and closes the panel,
        // and the new session is ready to type: focus is in its message box.
        await page.keyboard.press('Space')
        await expect(toggle).toHaveAttribute('aria-expanded', 'true')
        await expect(page.getByRole('button', { name: WORDS[lang].newSession })).toBeFocused()
        await page.keyboard.press('Enter')
        await page.waitForURL(/\/sessions\/[^/]+$/)
        await expect(toggle).toHaveAttribute('aria-expanded', 'false')
        await expect(nav).toBeHidden()
        await expect(messageBox(page, lang)).toBeFocused()
        const first = new URL(page.url()).pathname
        await expect(messageBox(page, lang)).toBeEditable()

        // New session again from this one, as new as one just made: no other empty session, this
        // one again, the panel closed and the focus in its message box.
        await toggle.press('Enter')
        await expect(nav.locator('[aria-current="page"]')).toBeFocused()
        await page.getByRole('button', { name: WORDS[lang].newSession }).focus()
        await page.keyboard.press('Enter')
        await expect(nav).toBeHidden()
        await expect(messageBox(page, lang)).toBeFocused()
        expect(new URL(page.url()).pathname).toBe(first)
        expect((await daemonState(page)).sessions).toHaveLength(1)

        // Something typed in it: a second session is made, then back to the first by picking it
        // from the list with the keyboard.
        await page.keyboard.type(lang === 'zh' ? '草稿' : 'a draft')
        await newSessionAnyWidth(page, lang)
        await toggle.press('Enter')
        const current = nav.locator('[aria-current="page"]')
        await expect(current).toBeFocused()
        const links = nav.getByRole('link')
        await expect(links).toHaveCount(2)
        // From a session's link, Tab reaches its actions button, then the next session.
        await page.keyboard.press('Tab')
        await page.keyboard.press('Tab')
        await expect(links.nth(1)).toBeFocused()
        await page.keyboard.press('Enter')
        await page.waitForURL((url) => url.pathname === first)
        await expect(toggle).toHaveAttribute('aria-expanded', 'false')
        await expect(toggle).toBeFocused()

        // The button itself closes it too, and a tap beside the panel does.
        await toggle.click()
        await expect(nav).toBeVisible()
        await toggle.click()
        await expect(nav).toBeHidden()
        await toggle.click()
        await page.mouse.click(size.width - 10, size.height / 2)
        await expect(nav).toBeHidden()
        await expectPageStill(page, 'after the panel')
      })

      test('the transcript scrolls, the page does not, and the message box stays in the window', async ({ page }) => {
        await openApp(page, { lang })
        await newSessionAnyWidth(page, lang)
        const box = messageBox(page, lang)
        await expectInsideViewport(page, box, 'the message box')
        const long = lang === 'zh' ? '一条很长的消息，'.repeat(12) : 'A long message that wraps over several lines. '.repeat(6)
        for (let i = 1; i <= 4; i += 1) {
          await sendMessage(page, `${i}. ${long}`, lang)
          // The transcript is windowed: earlier replies leave the DOM as the view follows the
          // newest, so the daemon says when this one has finished, and the screen shows it.
          await expect.poll(async () => (await daemonState(page)).runs.filter((r) => r.status === 'completed').length).toBe(i)
          await expect(agentReplies(page, lang).last()).toHaveAttribute('data-status', 'complete')
        }
        await expectPageStill(page, 'four long exchanges')
        const transcript = page.getByRole('log')
        const sizes = await transcript.evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight, width: el.scrollWidth - el.clientWidth }))
        expect(sizes.scroll, 'the transcript has more than it shows').toBeGreaterThan(sizes.client)
        expect(sizes.width, 'the transcript scrolls sideways').toBeLessThanOrEqual(0)
        // At the end, the newest reply ends 26 px above the log's edge here (its row's 14 px gap and
        // the log's 12 px end space); the space is the last row's alone, so the rows above keep 14 px.
        const end = await transcript.evaluate((el) => {
          el.scrollTop = el.scrollHeight
          const rows = Array.from(el.querySelectorAll<HTMLElement>('.transcript__row'))
          const last = rows.at(-1)!.querySelector('article')!.getBoundingClientRect().bottom
          return { gap: el.getBoundingClientRect().bottom - last, lastRows: rows.filter((r) => r.classList.contains('transcript__row--last')).length, pad: rows.map((r) => getComputedStyle(r).paddingBottom) }
        })
        expect(Math.abs(end.gap - 26), `space below the newest reply: ${end.gap} px`).toBeLessThanOrEqual(1)
        expect(end.lastRows, 'rows holding the space below').toBe(1)
        expect(end.pad.slice(0, -1).every((p) => p === '14px'), 'the gap between rows').toBe(true)
        await expectInsideViewport(page, box, 'the message box')
        await expectInsideViewport(page, page.getByRole('button', { name: WORDS[lang].send }), 'Send')

        // Every control can be reached: the first reply's Regenerate, scrolled into view inside the
        // transcript, lies inside the window and is not covered by anything. The transcript is
        // windowed, so the first reply is in the DOM only once the view is back at the top, as an
        // operator scrolling up would bring it; until then "the first in the DOM" is a later one.
        await transcript.evaluate((el) => el.scrollTo({ top: 0 }))
        const firstOperator = operatorMessages(page, lang).first()
        await expect(firstOperator, 'the first message, back at the top').toContainText(`1. ${long.slice(0, 16)}`)
        const regenerate = agentReplies(page, lang).first().getByRole('button', { name: WORDS[lang].regenerate })
        await regenerate.scrollIntoViewIfNeeded()
        await expectInsideViewport(page, regenerate, 'the first Regenerate')
        await expectPageStill(page, 'scrolled back')
        const hit = await regenerate.evaluate((el) => {
          const r = el.getBoundingClientRect()
          return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2))
        })
        expect(hit, 'the first Regenerate is covered').toBe(true)

        // Typed lines grow the box only so far: it stays in the window with its Send button.
        await box.fill(Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n'))
        await expectInsideViewport(page, box, 'the message box with forty lines')
        await expectInsideViewport(page, page.getByRole('button', { name: WORDS[lang].send }), 'Send with forty lines')
        await expectPageStill(page, 'forty lines typed')
      })
    })
  }
}

test.describe('wide 1200×800', () => {
  test('the panel is always there and needs no button', async ({ page }) => {
    await openApp(page)
    await expect(sessionsToggle(page)).toBeHidden()
    await expect(sessionsNav(page)).toBeVisible()
    const box = await sessionsNav(page).boundingBox()
    expect(box?.x).toBe(0)
    await newSessionAnyWidth(page)
    // Picking a session leaves it there.
    await expect(sessionsNav(page)).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(sessionsNav(page)).toBeVisible()
    await expectPageStill(page, 'wide')
    await expectInsideViewport(page, messageBox(page), 'the message box')
  })
})
