/**
 * A tool waiting for approval in Chromium, two tabs of one browser on one session against the mock
 * daemon over real HTTP (`approval`: a `write_file` call the daemon asks about):
 * - approved in one tab, denied in the other: exactly one decision request per tool reaches the
 *   daemon, and the other tab shows the decision within a second;
 * - both tabs pressing at once (one Approve, one Deny): still one request, both tabs agree;
 * - a reload between the click and the answer: the recorded decision goes out again, once;
 * - a page on another origin cannot approve: its request is refused 403 and the tool still waits.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chromium, type BrowserContext, type Locator, type Page } from '@playwright/test'
import type { DaemonServer } from '../../mocks/server'
import type { ToolPart } from '../../src/wire/types'
import { agentReplies, daemonState, expect, plan, startWith, test } from './robust-setup'
import { CHROMIUM, CHROMIUM_ARGS } from '../setup/chromium'

const DECISION = /\/api\/v1\/sessions\/[^/]+\/runs\/[^/]+\/tools\/[^/]+\/decision$/

type Stack = { daemon: DaemonServer; appUrl: string }

/** The decisions the daemon received. */
const decisions = (stack: Stack) => daemonState(stack).requests.filter((r) => r.method === 'POST' && DECISION.test(r.path))

/** The daemon's `write_file` part of the session's reply. */
function writeTool(stack: Stack): ToolPart | undefined {
  const reply = daemonState(stack).messages.find((m) => m.role === 'agent' && !m.superseded)
  return reply?.parts?.find((p): p is ToolPart => p.type === 'tool' && p.name === 'write_file')
}

const approvalOf = (page: Page): Locator => page.getByRole('group', { name: 'Approval of write_file' })
const toolStep = (page: Page): Locator => agentReplies(page).last().locator('.step--tool[data-effect="write"]')

/** Two tabs on one session whose reply waits for approval, both showing it. */
async function twoTabsWaiting(context: BrowserContext, stack: Stack): Promise<[Page, Page]> {
  const a = await context.newPage()
  plan(stack, ['approval'])
  const url = await startWith(a, stack, 'Save a note about retries')
  await expect(approvalOf(a)).toBeVisible({ timeout: 30_000 })
  const b = await context.newPage()
  await b.goto(url)
  await expect(approvalOf(b)).toBeVisible({ timeout: 30_000 })
  return [a, b]
}

/**
 * The tab that did not press shows the decision within a second: the approval says it, or it has
 * already gone because that tab's stream showed the tool run (or end denied).
 */
async function toldWithinASecond(page: Page, words: string, statuses: string[]): Promise<void> {
  await expect
    .poll(
      async () => {
        if (await approvalOf(page).getByText(words).isVisible()) return true
        return statuses.includes((await toolStep(page).getAttribute('data-status')) ?? '')
      },
      { timeout: 1_000, intervals: [50] },
    )
    .toBe(true)
}

async function bothComplete(a: Page, b: Page): Promise<void> {
  await expect(agentReplies(a).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(agentReplies(b).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
}

test('approved in one tab: one decision reaches the daemon, the other tab shows it within a second, the tool runs once', async ({ context, stack }) => {
  const [a, b] = await twoTabsWaiting(context, stack)
  // The decision takes its time to reach the daemon: the other tab hears of it from this one first.
  let release!: () => void
  const arrived = new Promise<void>((resolve) => (release = resolve))
  await a.route(DECISION, async (route) => {
    await arrived
    await route.continue()
  })
  await approvalOf(a).getByRole('button', { name: 'Approve' }).click()
  await expect(approvalOf(b).getByText('Approving…')).toBeVisible({ timeout: 1_000 })
  await expect(approvalOf(b).getByRole('button')).toHaveCount(0)
  expect(decisions(stack)).toHaveLength(0)
  release()
  await toldWithinASecond(b, 'Approved — waiting for the agent', ['running', 'done'])
  await bothComplete(a, b)
  await expect(toolStep(a)).toHaveAttribute('data-status', 'done')
  await expect(toolStep(b)).toHaveAttribute('data-status', 'done')
  expect(decisions(stack)).toHaveLength(1)
  expect(writeTool(stack)).toMatchObject({ status: 'done' })
})

test('denied in the other tab: one decision, the first tab shows it within a second, the agent answers without the tool', async ({ context, stack }) => {
  const [a, b] = await twoTabsWaiting(context, stack)
  await approvalOf(b).getByRole('button', { name: 'Deny' }).click()
  await toldWithinASecond(a, 'Denied — waiting for the agent', ['denied'])
  await bothComplete(a, b)
  await expect(toolStep(a)).toHaveAttribute('data-status', 'denied')
  await expect(toolStep(b)).toHaveAttribute('data-status', 'denied')
  expect(decisions(stack)).toHaveLength(1)
  expect(writeTool(stack)).toMatchObject({ status: 'denied' })
})

test('both tabs pressing at once (Approve in one, Deny in the other) send one decision, and both tabs agree', async ({ context, stack }) => {
  const [a, b] = await twoTabsWaiting(context, stack)
  // Both buttons in hand first, then pressed together: each tab's press races the other's.
  const buttons = await Promise.all([approvalOf(a).getByRole('button', { name: 'Approve' }).elementHandle(), approvalOf(b).getByRole('button', { name: 'Deny' }).elementHandle()])
  await Promise.all(buttons.map((button) => button?.evaluate((element) => (element as HTMLElement).click())))
  await bothComplete(a, b)
  const standing = writeTool(stack)?.status
  expect(['done', 'denied']).toContain(standing)
  await expect(toolStep(a)).toHaveAttribute('data-status', standing!)
  await expect(toolStep(b)).toHaveAttribute('data-status', standing!)
  expect(decisions(stack)).toHaveLength(1)
})

test('a reload between the click and the answer sends the recorded decision again, once', async ({ context, stack }) => {
  const page = await context.newPage()
  plan(stack, ['approval'])
  await startWith(page, stack, 'Save a note about retries')
  await expect(approvalOf(page)).toBeVisible({ timeout: 30_000 })
  // The click's request gets no answer before the page goes away. (Chromium may still let it
  // reach the daemon as the page unloads: the answer, not the request, is what is lost.)
  let held = 0
  await page.route(DECISION, (route) => (held++ === 0 ? undefined : route.continue()))
  await approvalOf(page).getByRole('button', { name: 'Approve' }).click()
  await expect.poll(() => held).toBe(1)
  await expect(approvalOf(page).getByText('Approving…')).toBeVisible()
  expect(decisions(stack)).toHaveLength(0)
  // What the page sends from here on: the recorded decision, once.
  const sentAfter: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST' && DECISION.test(new URL(request.url()).pathname)) sentAfter.push(request.postData() ?? '')
  })
  await page.reload()
  await expect(agentReplies(page).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(toolStep(page)).toHaveAttribute('data-status', 'done')
  expect(sentAfter).toHaveLength(1)
  expect(JSON.parse(sentAfter[0]!)).toEqual({ decision: 'approve' })
  // The daemon took it (the same decision again is 200 and changes nothing), and the tool ran once.
  expect(decisions(stack).length).toBeGreaterThanOrEqual(1)
  expect(writeTool(stack)).toMatchObject({ status: 'done' })
  const reached = decisions(stack).length
  // Settled: another reload sends nothing more.
  await page.reload()
  await expect(agentReplies(page).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  expect(sentAfter).toHaveLength(1)
  expect(decisions(stack)).toHaveLength(reached)
})

test('a page on another origin cannot approve: its request is refused 403 and the tool still waits', async ({ context, stack }) => {
  const page = await context.newPage()
  plan(stack, ['approval'])
  await startWith(page, stack, 'Save a note about retries')
  await expect(approvalOf(page)).toBeVisible({ timeout: 30_000 })
  const reply = daemonState(stack).messages.find((m) => m.role === 'agent')!
  const tool = writeTool(stack)!
  expect(tool.status).toBe('awaiting_approval')
  const target = `${stack.daemon.url}/api/v1/sessions/${reply.session_id}/runs/${reply.run_id}/tools/${tool.tool_call_id}/decision`

  // A page somewhere else, whose script posts the decision the way a form would (no preflight).
  // Its name is made to resolve to this machine (as a DNS-rebinding page's would), so the browser
  // lets the request through to the daemon and the daemon alone refuses it, by its Origin.
  const site = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<!doctype html><title>Elsewhere</title><p>Hello</p>')
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  const elsewhere = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP elsewhere.test 127.0.0.1'],
  })
  try {
    const foreign = await elsewhere.newPage()
    await foreign.goto(`http://elsewhere.test:${(site.address() as AddressInfo).port}/`)
    const answered = foreign.waitForResponse((response) => response.url() === target)
    const outcome = await foreign.evaluate(async (url) => {
      try {
        const response = await fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ decision: 'approve' }) })
        return response.type
      } catch (error) {
        return String(error)
      }
    }, target)
    expect(outcome).toBe('opaque')
    expect((await answered).status()).toBe(403)
  } finally {
    await elsewhere.close()
    site.close()
  }

  // Nothing changed: the tool still waits, in the daemon and on the page.
  expect(writeTool(stack)).toMatchObject({ status: 'awaiting_approval' })
  expect(decisions(stack)).toHaveLength(0)
  await expect(approvalOf(page).getByRole('button', { name: 'Approve' })).toBeVisible()
  await approvalOf(page).getByRole('button', { name: 'Deny' }).click()
  await expect(agentReplies(page).last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  expect(decisions(stack)).toHaveLength(1)
})
