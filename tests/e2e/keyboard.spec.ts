/**
 * The whole retry cycle with the keyboard alone, in Chromium, in English and Chinese: a new
 * session, a send, a failure and its countdown, Retry now, Cancel retry, Regenerate and Stop.
 * After each step the spec says where focus is (the focused element's role and name), and a
 * watcher in the page fails the walk if focus was ever on <body> in between, even for one frame.
 */
import type { Locator, Page } from '@playwright/test'
import { agentReplies, expect, messageBox, openApp, test, WORDS, type Lang } from './fixtures'

const WALK = {
  en: { prompt: 'Summarise the deploy logs', attempt2: 'Retry 2', regenerate: 'Regenerate' },
  zh: { prompt: '总结一下部署日志', attempt2: '第 2 次重试', regenerate: '重新生成' },
} as const

declare global {
  interface Window {
    /** Every moment focus was found on <body> once the walk began, as "frame" or "focusout". */
    __bodyFocus?: string[]
    __watchFocus?: () => void
  }
}

/**
 * Watches focus from the moment `window.__watchFocus()` is called: each animation frame, and
 * right after every focusout (once the task that moved focus is over), <body> is a failure.
 */
async function installFocusWatch(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = []
    Object.defineProperty(window, '__bodyFocus', { value: seen })
    window.__watchFocus = () => {
      const onBody = () => document.activeElement === null || document.activeElement === document.body
      const frame = () => {
        if (onBody()) seen.push('frame')
        requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
      document.addEventListener('focusout', () => setTimeout(() => onBody() && seen.push('focusout'), 0), true)
    }
  })
}

async function bodyFocus(page: Page): Promise<string[]> {
  return page.evaluate(() => window.__bodyFocus?.slice() ?? [])
}

/** The focused element. */
const focused = (page: Page): Locator => page.locator(':focus')

/** Presses `key` until the focused element is `name`ed so (a button of the reply), at most `max` times. */
async function tabTo(page: Page, name: string, key: 'Tab' | 'Shift+Tab', max = 20): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key)
    const here = await page.evaluate(() => {
      const el = document.activeElement
      return el === document.body || el === null ? '<body>' : (el.getAttribute('aria-label') ?? el.textContent ?? '')
    })
    expect(here, `focus after ${key} ×${i + 1}`).not.toBe('<body>')
    if (here === name) return
  }
  throw new Error(`${name} not reached with ${key} in ${max} presses`)
}

for (const lang of ['en', 'zh'] as Lang[]) {
  test(`keyboard only, ${lang}: send, failure, countdown, Retry now, Cancel retry, Regenerate, Stop; focus never on <body>`, async ({ page }) => {
    const words = WORDS[lang]
    const walk = WALK[lang]
    await installFocusWatch(page)
    await openApp(page, { lang, faults: ['rate_limited', 'overloaded', 'slow'] })

    // New session (⌘/Ctrl+Shift+O): the message box has the focus, ready to type.
    await page.keyboard.press('Control+Shift+O')
    await page.waitForURL((url) => /^\/sessions\/[^/]+$/.test(url.pathname))
    await expect(focused(page)).toHaveRole('textbox')
    await expect(focused(page)).toHaveAccessibleName(words.message)
    await page.evaluate(() => window.__watchFocus?.())

    // Send: focus stays in the box.
    await page.keyboard.type(walk.prompt)
    await page.keyboard.press('Enter')
    const reply = agentReplies(page, lang)
    await expect(reply).toHaveAttribute('data-status', 'failed')
    await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'armed')
    await expect(messageBox(page, lang)).toBeFocused()

    // The countdown reads on demand; back from the box to the retry box's buttons.
    await tabTo(page, words.retryNow, 'Shift+Tab')
    await expect(focused(page)).toHaveRole('button')
    await expect(focused(page)).toHaveAccessibleName(words.retryNow)

    // Retry now: the retry line, which stays focused as the retry's own reply takes the box over
    // and fails again (overloaded) into attempt 2.
    await page.keyboard.press('Enter')
    await expect(focused(page)).toHaveRole('paragraph')
    await expect(focused(page)).toHaveClass(/retry__line/)
    await expect(reply.locator('[data-retry]')).toContainText(walk.attempt2)
    await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'armed')
    await expect(focused(page)).toHaveClass(/retry__line/)
    await expect(focused(page)).toContainText(walk.attempt2)

    // Cancel retry (two Tabs on: Retry now, Cancel retry): that reply's Regenerate.
    await tabTo(page, words.cancelRetry, 'Tab', 3)
    await page.keyboard.press('Enter')
    await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'cancelled')
    await expect(focused(page)).toHaveRole('button')
    await expect(focused(page)).toHaveAccessibleName(walk.regenerate)

    // Regenerate (the next run is slow): the reply that replaces it, once it is shown.
    await page.keyboard.press('Enter')
    await expect(reply).toHaveAttribute('data-status', 'streaming')
    await expect(focused(page)).toHaveRole('article')
    await expect(focused(page)).toHaveAccessibleName(words.agent)
    await expect(reply).toBeFocused()

    // Stop: focus waits on the reply while the run ends, then lands on its Regenerate.
    await tabTo(page, words.stop, 'Tab')
    await page.keyboard.press('Enter')
    await expect(reply).toHaveAttribute('data-status', 'cancelled')
    await expect(focused(page)).toHaveRole('button')
    await expect(focused(page)).toHaveAccessibleName(walk.regenerate)
    await expect(reply.getByRole('button', { name: walk.regenerate })).toBeFocused()

    expect(await bodyFocus(page), 'moments focus was on <body>').toEqual([])
  })
}
