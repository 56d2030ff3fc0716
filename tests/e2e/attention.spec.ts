/**
 * Attention while the page is hidden, in two tabs of one browser on one session, against the mock
 * daemon over real HTTP: a reply finished, a reply failed for good, a retry paused until a time and
 * a tool awaiting approval each count once in both tab titles and make one system notification
 * across both tabs; a clicked approval notification leads to the approval; looking at the session
 * clears the count everywhere; a session no tab shows is caught through the session list.
 *
 * Headless tabs are all visible and focused, so each page gets a switch to hide it (visibility and
 * focus as the page reads them); the browser grants notifications, and `window.Notification` is
 * wrapped to record every notification the page makes.
 */
import type { Page } from '@playwright/test'
import { agentReplies, expect, messageBox, plan, startWith, test } from './robust-setup'

type Note = { title: string; body: string; tag: string }

declare global {
  interface Window {
    __notes: (Note & { onclick: (() => void) | null })[]
    __setHidden: (hidden: boolean) => void
  }
}

/** Runs in every page before the app: hiding on demand, and a record of the notifications made. */
function hideableAndCounted() {
  let hidden = false
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') })
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden })
  Document.prototype.hasFocus = () => !hidden
  window.__setHidden = (next) => {
    hidden = next
    document.dispatchEvent(new Event('visibilitychange'))
    window.dispatchEvent(new Event(next ? 'blur' : 'focus'))
  }
  const Real = window.Notification
  window.__notes = []
  class Recorded {
    static get permission() {
      return Real.permission
    }
    static requestPermission() {
      return Real.requestPermission()
    }
    title: string
    body: string
    tag: string
    onclick: (() => void) | null = null
    constructor(title: string, options?: NotificationOptions) {
      this.title = title
      this.body = options?.body ?? ''
      this.tag = options?.tag ?? ''
      window.__notes.push(this)
    }
    close() {}
  }
  Object.defineProperty(window, 'Notification', { configurable: true, writable: true, value: Recorded })
}

/** Every notification made, by any of the pages. */
async function notesOf(pages: Page[]): Promise<Note[]> {
  const lists = await Promise.all(pages.map((page) => page.evaluate(() => window.__notes.map(({ title, body, tag }) => ({ title, body, tag })))))
  return lists.flat()
}

async function send(page: Page, text: string): Promise<void> {
  await messageBox(page).fill(text)
  await messageBox(page).press('Enter')
}

test('each event counts once in both hidden tabs and is notified once across them; looking clears it', async ({ context, stack }) => {
  test.setTimeout(180_000)
  await context.grantPermissions(['notifications'], { origin: stack.appUrl })
  await context.addInitScript(hideableAndCounted)

  const a = await context.newPage()
  plan(stack, ['plain'])
  const url = await startWith(a, stack, 'Deploy checklist')
  await expect(agentReplies(a).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  // Switched on by the operator: the browser grants it (no question at load).
  const toggle = a.getByRole('button', { name: 'Notifications' })
  await expect(toggle).toHaveAttribute('aria-pressed', 'false')
  await toggle.click()
  await expect(toggle).toHaveAttribute('aria-pressed', 'true')

  const b = await context.newPage()
  await b.goto(url)
  await expect(agentReplies(b).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(b.getByRole('button', { name: 'Notifications' })).toHaveAttribute('aria-pressed', 'true')
  // What ended while the operator looked is no news.
  await expect(a).toHaveTitle('Rebound')
  await expect(b).toHaveTitle('Rebound')
  const pages = [a, b]
  for (const page of pages) await page.evaluate(() => window.__setHidden(true))

  const steps: { fault: string; text: string; body: RegExp; status?: string }[] = [
    { fault: 'plain', text: 'Summarise the deploy', body: /^The reply is ready\.$/, status: 'complete' },
    { fault: 'auth_failed', text: 'Try the other provider', body: /^The reply failed: /, status: 'failed' },
    // Thirty minutes on the real clock: past midnight the time carries its date ("Dec 5, 00:16"), and past New Year its year.
    { fault: 'quota:30', text: 'Try again later', body: /^The reply failed\. The retry waits until (?:[A-Z][a-z]{2} \d{1,2}(?:, \d{4})?, )?\d\d:\d\d\.$/ },
    { fault: 'approval', text: 'Write the release notes', body: /^write_file is waiting for your approval\.$/ },
  ]
  for (const [i, step] of steps.entries()) {
    plan(stack, [step.fault])
    await send(a, step.text)
    if (step.status) await expect(agentReplies(a).last()).toHaveAttribute('data-status', step.status, { timeout: 30_000 })
    await expect(a).toHaveTitle(`(${i + 1}) Rebound`, { timeout: 30_000 })
    await expect(b).toHaveTitle(`(${i + 1}) Rebound`, { timeout: 10_000 })
    await expect.poll(() => notesOf(pages), { timeout: 10_000 }).toHaveLength(i + 1)
    const notes = await notesOf(pages)
    expect(notes.at(-1)?.title).toBe('Deploy checklist')
    expect(notes.at(-1)?.body).toMatch(step.body)
  }
  // Both tabs saw every event: still one notification each, and no second wave.
  await a.waitForTimeout(2_000)
  const notes = await notesOf(pages)
  expect(notes.map((n) => n.tag.split(':')[0])).toEqual(['finished', 'failed', 'paused', 'approval'])
  expect(new Set(notes.map((n) => n.tag)).size).toBe(4)

  // The approval's notification, clicked, leads to the tool waiting for the decision.
  const approval = notes.find((n) => n.tag.startsWith('approval:'))!.tag
  const notifier = (await a.evaluate((tag) => window.__notes.some((n) => n.tag === tag), approval)) ? a : b
  // Wherever the operator had scrolled: the approval's row is out of the transcript's window.
  await messageBox(notifier).focus()
  await notifier.getByRole('log', { name: 'Conversation' }).evaluate((log) => log.scrollTo({ top: 0 }))
  await expect(notifier.locator('main [data-status="awaiting_approval"]')).toHaveCount(0)
  await notifier.evaluate((tag) => window.__notes.find((n) => n.tag === tag)?.onclick?.(), approval)
  await expect(notifier).toHaveURL(url)
  await expect.poll(() => notifier.evaluate(() => document.activeElement?.closest('[data-status="awaiting_approval"]') != null)).toBe(true)

  // The operator looks at the session in one tab: seen, in both.
  await b.evaluate(() => window.__setHidden(false))
  await expect(b).toHaveTitle('Rebound')
  await expect(a).toHaveTitle('Rebound')

  // A session no tab shows: its run ends, the session list tells, one notification follows.
  const created = stack.daemon.daemon.createSession({ title: 'Nightly report' })
  if (!created.ok) throw new Error('the daemon refused a session')
  plan(stack, ['plain'])
  stack.daemon.daemon.send(created.value.id, { content: 'Write the nightly report', client_message_id: crypto.randomUUID() })
  await expect.poll(() => notesOf(pages), { timeout: 45_000 }).toHaveLength(5)
  expect((await notesOf(pages)).at(-1)).toEqual(expect.objectContaining({ title: 'Nightly report', body: 'The reply is ready.' }))
  await expect(a).toHaveTitle('(1) Rebound')
  await expect(b).toHaveTitle('(1) Rebound')
})
