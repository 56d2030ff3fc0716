/**
 * Shared set-up for the end-to-end specs: a `test` that fails on page errors and unexpected
 * console errors, records every status an agent reply shows, and helpers that act as an operator
 * would (roles and names, not CSS) or read the in-browser mock daemon (`window.__mockDaemon`).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { test as base, expect, type Locator, type Page } from '@playwright/test'
import type { DaemonState } from '../../mocks/model'

export { expect }

/** A fixed wall clock for tests that install `page.clock`: 09:00 UTC, so titles and "retry after" read the same every run. */
export const FIXED_NOW = new Date('2030-03-04T09:00:00Z')

export type Lang = 'en' | 'zh'

/** The interface words the specs look for, in both languages (from the word tables, so a wording change shows here). */
export const WORDS = {
  en: {
    newSession: 'New session',
    message: 'Message',
    send: 'Send',
    stop: 'Stop',
    regenerate: 'Regenerate',
    retryNow: 'Retry now',
    cancelRetry: 'Cancel retry',
    agent: 'Agent',
    operator: 'You',
    stopped: 'Stopped',
    failed: 'Failed',
    complete: 'Complete',
    sessionsToggle: 'Sessions',
    keep: 'Keep them',
    replace: 'Replace',
  },
  zh: {
    newSession: '新建会话',
    message: '消息',
    send: '发送',
    stop: '停止',
    regenerate: '重新生成',
    retryNow: '立即重试',
    cancelRetry: '取消',
    agent: '智能体',
    operator: '你',
    stopped: '已停止',
    failed: '失败',
    complete: '已完成',
    sessionsToggle: '会话列表',
    keep: '保留原消息',
    replace: '替换',
  },
} as const satisfies Record<Lang, Record<string, string>>

type ErrorTable = { errors: Record<string, string> }

/** The `errors.<code>` words of a language, read from the same JSON the app bundles. */
export function errorWords(lang: Lang): Record<string, string> {
  const url = new URL(`../../locales/${lang}/errors.json`, import.meta.url)
  return (JSON.parse(readFileSync(url, 'utf8')) as ErrorTable).errors
}

/** Console errors the browser itself prints for a request that failed on purpose (a fault plan). */
const EXPECTED_CONSOLE = [/^Failed to load resource: net::ERR_/, /^Failed to load resource: the server responded with a status of/]

export const test = base.extend<{ consoleProblems: string[] }>({
  consoleProblems: [
    async ({ page }, use, testInfo) => {
      // The dev server's hot-update socket is answered here and never reaches Vite: a source file
      // saved while a test runs must not hot-swap components under it (React then reports a change
      // in hook order). The app itself opens no WebSocket; its stream is fetch-based SSE.
      await page.routeWebSocket(/.*/, () => {})
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
      page.on('console', (message) => {
        if (message.type() !== 'error') return
        const text = message.text()
        if (!EXPECTED_CONSOLE.some((pattern) => pattern.test(text))) problems.push(`console.error: ${text}`)
      })
      // Every status change of every agent reply, in order, so a spec can say "it streamed" or
      // "it never read Failed" even when a state lasted one frame; and the most operator messages
      // and replies shown at once, so "exactly one copy" holds at every moment, not only at the end.
      await page.addInitScript(() => {
        const seen: string[] = []
        const peak = { operator: 0, agent: 0 }
        const last = new WeakMap<Element, string>()
        Object.defineProperty(window, '__seenStatuses', { value: seen })
        Object.defineProperty(window, '__peak', { value: peak })
        const collect = () => {
          const agents = document.querySelectorAll('article[data-status]')
          for (const article of agents) {
            const status = article.getAttribute('data-status')
            if (status && last.get(article) !== status) {
              last.set(article, status)
              seen.push(status)
            }
          }
          peak.agent = Math.max(peak.agent, agents.length)
          peak.operator = Math.max(peak.operator, document.querySelectorAll('article[data-delivery]').length)
        }
        new MutationObserver(collect).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status', 'data-delivery'] })
      })
      await use(problems)
      if (problems.length > 0) await testInfo.attach('console problems', { body: problems.join('\n') })
      expect(problems, 'page errors and unexpected console errors').toEqual([])
    },
    { auto: true },
  ],
})

/** Opens the app (optionally with `?lang=` and `?faults=`) and waits for the mock daemon and the shell. */
export async function openApp(page: Page, options: { faults?: string[]; lang?: Lang; path?: string } = {}): Promise<void> {
  // Written as an operator would type it (`?faults=rate_limited,ok`), commas and colons unescaped.
  const params: string[] = []
  if (options.lang) params.push(`lang=${options.lang}`)
  if (options.faults) params.push(`faults=${options.faults.join(',')}`)
  const search = params.length > 0 ? `?${params.join('&')}` : ''
  await page.goto(`${options.path ?? '/'}${search}`)
  await page.waitForFunction(() => window.__mockDaemon !== undefined)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  if (options.faults) {
    // Applied once and taken out of the address, so a reload does not plan them again; the rest stays.
    const url = new URL(page.url())
    expect(url.searchParams.has('faults'), `?faults= left in ${url.href}`).toBe(false)
    if (options.lang) expect(url.searchParams.get('lang')).toBe(options.lang)
    expect((await daemonState(page)).plan).toEqual(options.faults)
  }
}

/** Clicks "New session" and waits until the address carries `/sessions/<id>`; returns the id. */
export async function newSession(page: Page, lang: Lang = 'en'): Promise<string> {
  const before = new URL(page.url()).pathname
  await page.getByRole('button', { name: WORDS[lang].newSession }).click()
  // A new session, not the one already in view.
  await page.waitForURL((url) => /^\/sessions\/[^/]+$/.test(url.pathname) && url.pathname !== before)
  await expect(messageBox(page, lang)).toBeEditable()
  return sessionIdOf(page)
}

export function sessionIdOf(page: Page): string {
  const match = /\/sessions\/([^/?#]+)/.exec(new URL(page.url()).pathname)
  if (!match?.[1]) throw new Error(`no session in ${page.url()}`)
  return decodeURIComponent(match[1])
}

export function messageBox(page: Page, lang: Lang = 'en'): Locator {
  return page.getByRole('textbox', { name: WORDS[lang].message })
}

/** Types a message and presses Enter, as an operator does. */
export async function sendMessage(page: Page, text: string, lang: Lang = 'en'): Promise<void> {
  const box = messageBox(page, lang)
  await box.fill(text)
  await box.press('Enter')
}

export function agentReplies(page: Page, lang: Lang = 'en'): Locator {
  return page.getByRole('article', { name: WORDS[lang].agent, exact: true })
}

export function operatorMessages(page: Page, lang: Lang = 'en'): Locator {
  return page.getByRole('article', { name: WORDS[lang].operator, exact: true })
}

/** The status badge of a reply ("Writing…", "Complete", "Stopped", "Failed"…): the first badge in its header. */
export function statusBadge(reply: Locator): Locator {
  return reply.locator('.message__meta .badge').first()
}

/** The visible text of a reply (its body only, without the status badge and buttons). */
export function replyBody(reply: Locator): Locator {
  return reply.locator('.message__body').first()
}

/**
 * The Markdown source of a reply, as the operator gets it from its Copy button: the rendered body
 * is Markdown laid out, so the exact text (nothing lost, nothing doubled) is checked on the source.
 */
export async function replySource(page: Page, reply: Locator): Promise<string> {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  await reply.getByRole('button', { name: /^(Copy|复制)$/ }).first().click()
  return page.evaluate(() => navigator.clipboard.readText())
}

/** What the in-browser mock daemon holds right now. */
export async function daemonState(page: Page): Promise<DaemonState> {
  return page.evaluate(() => {
    const daemon = window.__mockDaemon
    if (!daemon) throw new Error('no mock daemon on this page')
    return daemon.state()
  })
}

/** Replaces the daemon's fault plan, like `?faults=` but mid-session. */
export async function planFaults(page: Page, faults: string[]): Promise<void> {
  await page.evaluate((f) => window.__mockDaemon?.plan(f), faults)
}

/** A regenerate request in `requestLog`: what tier 2 sends when its countdown fires. */
export const REGENERATE_REQUEST = /^POST \/api\/v1\/sessions\/[^/]+\/messages\/[^/]+\/regenerate$/

/** Requests the daemon received, as "METHOD /path", optionally filtered. */
export async function requestLog(page: Page, pattern?: RegExp): Promise<string[]> {
  const { requests } = await daemonState(page)
  return requests.map((r) => `${r.method} ${r.path}`).filter((line) => !pattern || pattern.test(line))
}

/** Every status an agent reply has shown since the page loaded (reset by a reload). */
export async function seenStatuses(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __seenStatuses: string[] }).__seenStatuses.slice())
}

/**
 * With the page's clock paused, runs it forward in small steps until `done` holds: the daemon's
 * pacing moves on, but no countdown can run past the point where the test looks at it.
 */
export async function runClockUntil(page: Page, done: () => Promise<boolean>, options: { stepMs?: number; maxMs?: number } = {}): Promise<void> {
  const { stepMs = 100, maxMs = 30_000 } = options
  for (let elapsed = 0; elapsed <= maxMs; elapsed += stepMs) {
    if (await done()) return
    await page.clock.runFor(stepMs)
    // Requests to the worker take real time, not page time: give them a moment between steps so a
    // loaded machine does not use up the page-time budget before history has answered.
    await page.waitForTimeout(15)
  }
  throw new Error(`runClockUntil: still not done after ${maxMs} ms of page time`)
}

/** The most operator messages and agent replies the page has shown at the same time since it loaded. */
export async function peakCounts(page: Page): Promise<{ operator: number; agent: number }> {
  return page.evaluate(() => ({ ...(window as unknown as { __peak: { operator: number; agent: number } }).__peak }))
}

const require = createRequire(import.meta.url)

/** axe-core's WCAG 2 A/AA violations on the page as it is, as "rule: selector" lines (empty when clean). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') })
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))
  })
}

type WordTable = { [key: string]: string | WordTable }

/** The interface words of a language (`locales/<lang>/app.json`), read from the same JSON the app bundles. */
function appTable(lang: Lang): WordTable {
  return JSON.parse(readFileSync(new URL(`../../locales/${lang}/app.json`, import.meta.url), 'utf8')) as WordTable
}

/**
 * One interface sentence of a language by its key (`tier1.waiting`), with its `{{placeholders}}`
 * filled in as i18next fills them; a `count` picks the `_one` / `_other` form.
 */
export function word(lang: Lang, key: string, values: Record<string, string | number> = {}): string {
  const table = appTable(lang)
  const path = key.split('.')
  const leaf = path.pop() ?? ''
  let node: string | WordTable | undefined = table
  for (const part of path) node = typeof node === 'object' ? node[part] : undefined
  const entries = typeof node === 'object' ? node : {}
  const plural = typeof values.count === 'number' ? entries[`${leaf}_${values.count === 1 ? 'one' : 'other'}`] : undefined
  const template = plural ?? entries[leaf]
  if (typeof template !== 'string') throw new Error(`no words for ${key} in ${lang}`)
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => String(values[name] ?? `{{${name}}}`))
}

/**
 * Records every text a tier 1 line (`[data-tier1]`) shows, in order, from the first page load on;
 * call before `openApp`. A wait that lasts one second is still seen, however the test polls.
 */
export async function recordTier1Lines(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = []
    Object.defineProperty(window, '__seenTier1', { value: seen })
    const collect = () => {
      for (const line of document.querySelectorAll('[data-tier1]')) {
        const text = line.textContent ?? ''
        if (text !== '' && seen.at(-1) !== text) seen.push(text)
      }
    }
    new MutationObserver(collect).observe(document, { subtree: true, childList: true, characterData: true })
  })
}

/** The texts the tier 1 lines have shown since the page loaded (see recordTier1Lines). */
export async function seenTier1Lines(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __seenTier1?: string[] }).__seenTier1?.slice() ?? [])
}
