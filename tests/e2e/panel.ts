/**
 * The sessions panel at any width: on a narrow screen it sits behind the "Sessions" button in the
 * header, on a wide one it is always shown. Helpers that work at both, as an operator would.
 */
import type { Locator, Page } from '@playwright/test'
import { expect, messageBox, sessionIdOf, WORDS, type Lang } from './fixtures'

export function sessionsToggle(page: Page, lang: Lang = 'en'): Locator {
  return page.getByRole('button', { name: WORDS[lang].sessionsToggle, exact: true })
}

/** The sessions navigation landmark (named by its heading). */
export function sessionsNav(page: Page, lang: Lang = 'en'): Locator {
  return page.getByRole('navigation', { name: lang === 'zh' ? '会话' : 'Sessions' })
}

/** Opens the panel if it is folded away (narrow screens); a no-op where it is always shown. */
async function showSessions(page: Page, lang: Lang = 'en'): Promise<void> {
  const toggle = sessionsToggle(page, lang)
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
  await expect(sessionsNav(page, lang)).toBeVisible()
}

/** "New session" at any width; waits for the new session's message box. Returns its id. */
export async function newSessionAnyWidth(page: Page, lang: Lang = 'en'): Promise<string> {
  const before = new URL(page.url()).pathname
  await showSessions(page, lang)
  await page.getByRole('button', { name: WORDS[lang].newSession }).click()
  await page.waitForURL((url) => /^\/sessions\/[^/]+$/.test(url.pathname) && url.pathname !== before)
  await expect(messageBox(page, lang)).toBeEditable()
  return sessionIdOf(page)
}

/** Whether the page itself (not a box inside it) can scroll, either way. */
export async function pageScrolls(page: Page): Promise<{ vertical: number; horizontal: number }> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement
    return { vertical: root.scrollHeight - window.innerHeight, horizontal: root.scrollWidth - window.innerWidth }
  })
}

/** Asserts the box lies wholly inside the viewport. */
export async function expectInsideViewport(page: Page, locator: Locator, what: string): Promise<void> {
  const box = await locator.boundingBox()
  const viewport = page.viewportSize()
  expect(box, `${what} has no box`).not.toBeNull()
  if (!box || !viewport) return
  expect(box.x, `${what} left edge`).toBeGreaterThanOrEqual(0)
  expect(box.y, `${what} top edge`).toBeGreaterThanOrEqual(0)
  expect(box.x + box.width, `${what} right edge`).toBeLessThanOrEqual(viewport.width)
  expect(box.y + box.height, `${what} bottom edge`).toBeLessThanOrEqual(viewport.height)
}
