/**
 * The session's polite live region in Chromium, as a screen reader hears it: every change of its
 * text during a full `rate_limited, overloaded, ok` cycle, recorded in the page by a
 * MutationObserver, compared with the exact list in English and Chinese. A countdown's tick, an
 * outcome said twice, or a failure and its countdown said back to back would all show here.
 */
import type { Page } from '@playwright/test'
import { agentReplies, expect, newSession, openApp, sendMessage, test, type Lang } from './fixtures'

const EXPECTED: Record<Lang, string[]> = {
  en: [
    'Reply failed: Too many requests, so the model provider is rate limiting for now. It can be tried again once the limit lifts. Retry 1 in 2 seconds.',
    'Reply failed: The model provider is overloaded or down. This is usually temporary; try again shortly. Retry 2 in 4 seconds.',
    'Reply complete.',
  ],
  zh: [
    '回复失败：请求过于频繁，模型服务商暂时限流。限流解除后即可重试。2 秒后进行第 1 次重试。',
    '回复失败：模型服务商繁忙或暂时不可用，通常很快就会恢复。请稍后重试。4 秒后进行第 2 次重试。',
    '回复已完成。',
  ],
}

const PROMPT: Record<Lang, string> = { en: 'Summarise the deploy logs', zh: '总结一下部署日志' }

declare global {
  interface Window {
    /** Every text the polite live region took, in order. */
    __liveRegion?: string[]
  }
}

/** Records each change of the polite live region's text, from the moment a region appears. */
async function recordLiveRegion(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const said: string[] = []
    Object.defineProperty(window, '__liveRegion', { value: said })
    const watched = new WeakSet<Element>()
    new MutationObserver(() => {
      for (const region of document.querySelectorAll('[role="status"][aria-live="polite"]')) {
        if (watched.has(region)) continue
        watched.add(region)
        new MutationObserver(() => said.push(region.textContent ?? '')).observe(region, { childList: true, characterData: true, subtree: true })
      }
    }).observe(document, { childList: true, subtree: true })
  })
}

for (const lang of ['en', 'zh'] as Lang[]) {
  test(`${lang}: a full rate_limited, overloaded, ok cycle is heard as exactly three announcements`, async ({ page }) => {
    await recordLiveRegion(page)
    await openApp(page, { lang, faults: ['rate_limited', 'overloaded', 'ok'] })
    await newSession(page, lang)
    await sendMessage(page, PROMPT[lang], lang)
    const reply = agentReplies(page, lang)
    await expect(reply.locator('[data-retry]')).toHaveAttribute('data-retry', 'armed')
    // Both countdowns run out on their own (2 s, then 4 s), and the reply streams in.
    await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 20_000 })
    // Past the end, nothing more is said (no late tick, no second "complete").
    await page.waitForTimeout(2_000)
    expect(await page.evaluate(() => window.__liveRegion?.slice())).toEqual(EXPECTED[lang])
    const region = page.locator('[role="status"][aria-live="polite"]')
    await expect(region).toHaveCount(1)
    await expect(region).toHaveText(EXPECTED[lang][2]!)
  })
}
