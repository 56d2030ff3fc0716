/**
 * Accessibility on the running app, in Chromium:
 * - axe-core (through @axe-core/playwright) finds no WCAG 2.1 A/AA violation on the main screens
 *   (empty, a completed reply, the regenerate question open, a rate-limited reply counting down,
 *   a quota failure waiting until a time), in English and Chinese, wide and on a phone;
 * - the regenerate question is modal in a real browser (showModal: the page behind cannot take
 *   focus, Tab stays inside, Escape keeps the messages and focus goes back to Regenerate);
 * - control borders reach 3:1 (WCAG 1.4.11) in the light and the dark scheme, measured on the page;
 * - forced colours (Windows high contrast): the retry box and the language switch, as screenshots.
 *
 * The page's Date is fixed (as in screens.spec.ts), so a countdown stays at its first second while
 * axe runs, and "retry after" reads 09:50.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { agentReplies, expect, FIXED_NOW, messageBox, openApp, sendMessage, test, WORDS, type Lang } from './fixtures'
import { newSessionAnyWidth } from './panel'

const VIEWPORTS = [
  { name: 'wide', width: 1200, height: 800 },
  { name: 'phone', width: 375, height: 740 },
] as const
const LANGS: Lang[] = ['en', 'zh']

/** axe's WCAG 2.0/2.1 A and AA violations, one line per element: "rule: selector (summary)". */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} (${n.failureSummary?.replace(/\s+/g, ' ') ?? ''})`))
}

async function sendAndComplete(page: Page, text: string, lang: Lang): Promise<void> {
  const before = await agentReplies(page, lang).count()
  await sendMessage(page, text, lang)
  await expect(agentReplies(page, lang)).toHaveCount(before + 1)
  await expect(agentReplies(page, lang).nth(before)).toHaveAttribute('data-status', 'complete')
}

test.beforeEach(async ({ page }) => {
  await page.clock.setFixedTime(FIXED_NOW)
})

for (const viewport of VIEWPORTS) {
  for (const lang of LANGS) {
    test.describe(`${viewport.name} ${viewport.width}×${viewport.height}, ${lang}`, () => {
      test.use({ viewport: { width: viewport.width, height: viewport.height } })

      test('empty, completed, and the regenerate question: no violations; the question is modal', async ({ page }) => {
        await openApp(page, { lang })
        expect(await violations(page), 'empty').toEqual([])

        await newSessionAnyWidth(page, lang)
        await sendAndComplete(page, lang === 'zh' ? '第一个问题：磁盘' : 'First question about disks', lang)
        await sendAndComplete(page, lang === 'zh' ? '第二个问题：内存' : 'Second question about memory', lang)
        expect(await violations(page), 'completed').toEqual([])

        const regenerate = agentReplies(page, lang).first().getByRole('button', { name: WORDS[lang].regenerate })
        await regenerate.click()
        const dialog = page.getByRole('alertdialog')
        await expect(dialog).toBeVisible()
        const keep = dialog.getByRole('button', { name: WORDS[lang].keep })
        const replace = dialog.getByRole('button', { name: WORDS[lang].replace })
        await expect(keep).toBeFocused()
        expect(await violations(page), 'the regenerate question').toEqual([])

        // Modal: showModal() made the page behind inert, so the message box cannot take focus.
        expect(await dialog.evaluate((el) => el instanceof HTMLDialogElement && el.matches(':modal'))).toBe(true)
        await messageBox(page, lang).evaluate((el: HTMLElement) => el.focus())
        await expect(keep).toBeFocused()
        // Tab and Shift+Tab go round the two choices and never leave (not even to the browser's UI).
        for (const [key, expected] of [['Tab', replace], ['Tab', keep], ['Shift+Tab', replace], ['Shift+Tab', keep], ['Tab', replace]] as const) {
          await page.keyboard.press(key)
          await expect(expected).toBeFocused()
        }
        await page.keyboard.press('Escape')
        await expect(dialog).toHaveCount(0)
        await expect(regenerate).toBeFocused()
        await expect(agentReplies(page, lang)).toHaveCount(2)
      })

      test('a rate-limited reply counting down: no violations', async ({ page }) => {
        await openApp(page, { lang, faults: ['rate_limited'] })
        await newSessionAnyWidth(page, lang)
        await sendMessage(page, lang === 'zh' ? '请总结日志' : 'Summarise the log', lang)
        const reply = agentReplies(page, lang)
        await expect(reply).toHaveAttribute('data-status', 'failed')
        await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'armed')
        await reply.locator('[data-retry]').scrollIntoViewIfNeeded()
        expect(await violations(page), 'countdown').toEqual([])
      })

      test('a quota failure waiting until 09:50: no violations', async ({ page }) => {
        await openApp(page, { lang, faults: ['quota:50'] })
        await newSessionAnyWidth(page, lang)
        await sendMessage(page, lang === 'zh' ? '请总结日志' : 'Summarise the log', lang)
        const reply = agentReplies(page, lang)
        await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'paused')
        await expect(reply.locator('.retry__text')).toContainText('09:50')
        expect(await violations(page), 'retry after').toEqual([])
      })
    })
  }
}

/** WCAG contrast ratio of two computed `rgb()` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, bl] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number).map((v) => v / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (bl ?? 0)
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05)
}

for (const scheme of ['light', 'dark'] as const) {
  test(`control borders reach 3:1 against both sides (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme })
    await openApp(page, { faults: ['rate_limited'] })
    await newSessionAnyWidth(page)
    await sendMessage(page, 'Summarise the log')
    const reply = agentReplies(page)
    await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'armed')
    // Border, the control's own background, and the background of the box around it.
    const measure = (selector: string) =>
      page.locator(selector).first().evaluate((el) => {
        const outside = (node: Element | null): string => {
          for (let n = node; n; n = n.parentElement) {
            const bg = getComputedStyle(n).backgroundColor
            if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg
          }
          return 'rgb(255, 255, 255)'
        }
        const style = getComputedStyle(el)
        return { border: style.borderTopColor, inside: style.backgroundColor, outside: outside(el.parentElement) }
      })
    const controls = {
      'the message box': '#composer-input',
      'a secondary button (English)': '.language-switch .button[aria-pressed="false"]',
      'Cancel retry in the retry box': '.retry .button:not(.button--primary)',
    }
    for (const [what, selector] of Object.entries(controls)) {
      const { border, inside, outside } = await measure(selector)
      expect.soft(contrast(border, inside), `${what}: border ${border} on its own ${inside}`).toBeGreaterThanOrEqual(3)
      expect.soft(contrast(border, outside), `${what}: border ${border} on the surrounding ${outside}`).toBeGreaterThanOrEqual(3)
    }
    expect(await violations(page), `axe, ${scheme}`).toEqual([])
  })
}

test.describe('forced colours', () => {
  for (const lang of LANGS) {
    test(`the retry box and the language switch keep their states visible (${lang})`, async ({ page }) => {
      await page.emulateMedia({ forcedColors: 'active' })
      await openApp(page, { lang, faults: ['rate_limited'] })
      expect(await page.evaluate(() => matchMedia('(forced-colors: active)').matches)).toBe(true)
      await expect(page.locator('.language-switch')).toHaveScreenshot(`forced-colors-language-switch-${lang}.png`)
      await newSessionAnyWidth(page, lang)
      await sendMessage(page, lang === 'zh' ? '请总结日志' : 'Summarise the log', lang)
      const reply = agentReplies(page, lang)
      await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'armed')
      // The whole reply: its failure panel, the retry box with Retry now (primary) and Cancel.
      await expect(reply).toHaveScreenshot(`forced-colors-retry-${lang}.png`)
      // The pressed language differs from the other in more than its text.
      const [pressed, other] = await Promise.all(
        ['true', 'false'].map((value) =>
          page.locator(`.language-switch .button[aria-pressed="${value}"]`).evaluate((el) => {
            const s = getComputedStyle(el)
            return `${s.backgroundColor} ${s.borderTopWidth} ${s.borderTopColor}`
          }),
        ),
      )
      expect(pressed).not.toBe(other)
    })
  }

  test('the streaming caret stays visible', async ({ page }) => {
    await page.emulateMedia({ forcedColors: 'active' })
    await openApp(page, { faults: ['slow'] })
    await newSessionAnyWidth(page)
    await sendMessage(page, 'A long answer, please')
    const reply = agentReplies(page)
    await expect(reply).toHaveAttribute('data-status', 'streaming')
    const colours = await reply.locator('.caret').evaluate((el) => ({
      caret: getComputedStyle(el).backgroundColor,
      behind: getComputedStyle(el.closest('article') ?? document.body).backgroundColor,
    }))
    expect(colours.caret).not.toBe(colours.behind)
    expect(contrast(colours.caret, colours.behind)).toBeGreaterThanOrEqual(3)
    await reply.getByRole('button', { name: WORDS.en.stop }).click()
  })

  test('Replace and Keep differ in the regenerate question', async ({ page }) => {
    await page.emulateMedia({ forcedColors: 'active' })
    await openApp(page)
    await newSessionAnyWidth(page)
    await sendAndComplete(page, 'First question', 'en')
    await sendAndComplete(page, 'Second question', 'en')
    await agentReplies(page).first().getByRole('button', { name: WORDS.en.regenerate }).click()
    const dialog = page.getByRole('alertdialog')
    const look = (name: string) =>
      dialog.getByRole('button', { name }).evaluate((el) => {
        const s = getComputedStyle(el)
        return `${s.borderTopStyle} ${s.borderTopWidth} ${s.fontWeight}`
      })
    expect(await look(WORDS.en.replace)).not.toBe(await look(WORDS.en.keep))
    await expect(dialog).toHaveScreenshot('forced-colors-confirm-en.png')
  })
})
