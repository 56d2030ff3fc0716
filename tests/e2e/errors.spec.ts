/**
 * Coded errors, as issue 4's "Done when" puts it: every code of the error table is worded from
 * the client's own table in the operator's language, never with the daemon's English sentence;
 * a code no table knows falls back to that sentence.
 */
import { ERROR_CODES, TRANSIENT_RETRY_CLASSES } from '../../src/wire/types'
import {
  agentReplies,
  daemonState,
  errorWords,
  expect,
  FIXED_NOW,
  newSession,
  openApp,
  planFaults,
  requestLog,
  runClockUntil,
  sendMessage,
  statusBadge,
  test,
  WORDS,
  type Lang,
} from './fixtures'

const CJK = /[\u4e00-\u9fff]/
/** Three or more Latin letters in a row: an English word, which a Chinese sentence must not contain… */
const LATIN_RUN = /[A-Za-z]{3,}/g
/** …except names that stay as they are in Chinese text: the product and "API". */
const NAMES = new Set(['Rebound', 'API'])

function latinWords(text: string): string[] {
  return (text.match(LATIN_RUN) ?? []).filter((word) => !NAMES.has(word))
}

test('?lang=zh&faults=code:answer_empty: the failure reads in Chinese, with no English sentence', async ({ page }) => {
  await openApp(page, { lang: 'zh', faults: ['code:answer_empty'] })
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-Hans')
  await newSession(page, 'zh')
  await sendMessage(page, '总结一下昨天的日志', 'zh')

  const reply = agentReplies(page, 'zh')
  await expect(reply).toHaveAttribute('data-status', 'failed')
  await expect(statusBadge(reply)).toHaveText(WORDS.zh.failed)
  const text = reply.locator('.failure__text')
  await expect(text).toHaveText(errorWords('zh').answer_empty ?? '')
  const shown = await text.innerText()
  expect(shown).toMatch(CJK)
  expect(shown.match(LATIN_RUN)).toBeNull()
  // The code stays visible for support, labelled in Chinese.
  await expect(reply.locator('.failure__code')).toHaveText('错误码：answer_empty')
  await expect(reply.getByRole('button', { name: WORDS.zh.regenerate })).toBeVisible()
  // An answer failure never arms the scheduler.
  await expect(reply.locator('[data-retry]')).toHaveCount(0)
})

for (const lang of ['zh', 'en'] as const satisfies readonly Lang[]) {
  test(`every code of the error table is worded from the ${lang} table`, async ({ page }) => {
    test.setTimeout(120_000)
    const words = errorWords(lang)
    await page.clock.install({ time: FIXED_NOW })
    await openApp(page, { lang })
    await newSession(page, lang)
    // From here the page's time only moves when the test moves it: a transient code arms a 2 s
    // countdown, and a slow machine must not let it fire before the test has read the failure.
    await page.clock.pauseAt(FIXED_NOW.getTime() + 10 * 60_000)
    const replies = agentReplies(page, lang)
    // The transcript is windowed, so the words are collected case by case as each is shown.
    const shownTexts: string[] = []

    for (const [index, code] of ERROR_CODES.entries()) {
      await test.step(code, async () => {
        await planFaults(page, [`code:${code}`])
        const prompt = `Case ${index + 1}: ${code}`
        await sendMessage(page, prompt, lang)
        // The transcript is windowed and pinned to its end: the newest reply is the last one shown.
        const reply = replies.last()
        const expected = words[code]
        expect(expected, `errors.${code} in the ${lang} table`).toBeTruthy()
        // Until the failure reads as expected: a run that failed with a client-side code
        // (stream_lagged) is first taken for a lagging connection and reattached, and only
        // history settles it, which takes page time too (the query cache notifies on a timer).
        await runClockUntil(page, () =>
          page.evaluate(
            ({ prompt, text }) => {
              const all = document.querySelectorAll('article[data-status]')
              const last = all[all.length - 1]
              const asked = [...document.querySelectorAll('article[data-delivery]')].some((m) => m.textContent?.includes(prompt))
              return asked && last?.getAttribute('data-status') === 'failed' && last.querySelector('.failure__text')?.textContent === text
            },
            { prompt, text: expected ?? '' },
          ),
        )
        const text = reply.locator('.failure__text')
        await expect(text).toHaveText(expected ?? '')
        await expect(reply.locator('.failure__code')).toContainText(code)
        shownTexts.push(await text.innerText())

        const { messages } = await daemonState(page)
        const anchor = messages.find((m) => m.role === 'operator' && m.content === prompt)
        const stored = messages.find((m) => m.role === 'agent' && m.reply_to === anchor?.id && !m.superseded)
        expect(stored?.error?.code).toBe(code)
        if (lang === 'zh') {
          // The daemon's English sentence is for logs: none of it reaches a Chinese screen.
          await expect(text).not.toContainText(stored?.error?.message ?? '')
          const shown = await text.innerText()
          expect(shown).toMatch(CJK)
          expect(latinWords(shown), `English words in the Chinese text of ${code}`).toEqual([])
        }

        // A transient class arms tier 2 once history has the classification; cancel it so the next
        // case starts from a quiet session. Every other class must not arm at all. Stepping 100 ms at
        // a time sees the countdown long before its 2 s are up, however long history takes.
        const retry = reply.locator('[data-retry]')
        const transient = (TRANSIENT_RETRY_CLASSES as readonly string[]).includes(stored?.retry?.retry_class ?? '')
        if (transient && stored?.retry?.retryable) {
          await runClockUntil(page, async () => (await retry.count()) > 0, { stepMs: 100, maxMs: 5_000 })
          await expect(retry).toHaveAttribute('data-retry', 'armed')
          await reply.getByRole('button', { name: WORDS[lang].cancelRetry }).click()
          await expect(retry).toHaveAttribute('data-retry', 'cancelled')
        } else {
          await page.clock.runFor(500)
          await expect(retry).toHaveCount(0)
        }
      })
    }
    // Each code had its own words, and nothing was regenerated behind the test's back.
    expect(new Set(shownTexts).size).toBe(ERROR_CODES.length)
    expect(await requestLog(page, /\/regenerate$/)).toEqual([])
  })
}

test("an unknown code and a plain-text frame show the daemon's own words, in either language", async ({ page }) => {
  const FLUX = 'The flux capacitor is depleted; the run cannot go on.'
  const RAW = 'upstream exploded: bad gateway'
  await openApp(page, { faults: ['unknown_code'] })
  await newSession(page)
  await sendMessage(page, 'Something new from a newer daemon')
  const replies = agentReplies(page)
  await expect(replies.first()).toHaveAttribute('data-status', 'failed')
  await expect(replies.first().locator('.failure__text')).toHaveText(FLUX)
  await expect(replies.first().locator('.failure__code')).toHaveText('Code: flux_capacitor_depleted')

  await planFaults(page, ['raw'])
  await sendMessage(page, 'And from an older one')
  await expect(replies).toHaveCount(2)
  await expect(replies.nth(1)).toHaveAttribute('data-status', 'failed')
  await expect(replies.nth(1).locator('.failure__text')).toHaveText(RAW)
  await expect(replies.nth(1).locator('.failure__code')).toHaveCount(0)

  // In Chinese the daemon's words are all there is: shown as they came, the labels around them in Chinese.
  await page.getByRole('button', { name: '简体中文' }).click()
  const zhReplies = agentReplies(page, 'zh')
  await expect(zhReplies.first().locator('.failure__text')).toHaveText(FLUX)
  await expect(zhReplies.first().locator('.failure__code', { hasText: 'flux_capacitor_depleted' })).toHaveText('错误码：flux_capacitor_depleted')
  await expect(zhReplies.nth(1).locator('.failure__text')).toHaveText(RAW)

  // History words them the same way the live stream did.
  await page.reload()
  await expect(zhReplies).toHaveCount(2)
  await expect(zhReplies.first().locator('.failure__text')).toHaveText(FLUX)
  await expect(zhReplies.nth(1).locator('.failure__text')).toHaveText(RAW)
})
