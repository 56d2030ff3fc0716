/**
 * A lost connection is never a stopped run, in Chromium.
 *
 * (a) The in-browser mock daemon's `silent:60` sends nothing at all for 60 s in the middle of the
 *     answer: the reply says "Connection lost" within 50 s, stays "Writing…" with Stop, and
 *     completes from where it was once the daemon talks again.
 * (b) The HTTP mock daemon as a process of its own (`mocks/server.ts`), the client pointed at it
 *     with VITE_DAEMON_URL (streams read in the stream worker), frozen with SIGSTOP for 60 s in the
 *     middle of a reply and woken with SIGCONT: the reply completes once, and the daemon holds one
 *     run for that send.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer as createNetServer } from 'node:net'
import { test as base } from '@playwright/test'
import type { DaemonState } from '../../mocks/model'
import { agentReplies, daemonState, expect, newSession, openApp, replyBody, replySource, seenStatuses, sendMessage, statusBadge, test } from './fixtures'

const LOST = 'Connection lost — the run may still be going. Reconnecting…'

test('silent:60: "Connection lost" within 50 s, still writing with Stop, then the reply completes from where it was', async ({ page }) => {
  test.setTimeout(150_000)
  await openApp(page, { faults: ['silent:60'] })
  await newSession(page)
  await sendMessage(page, 'Tell me about the deploy')
  const reply = agentReplies(page).last()
  // The first words of the answer; the daemon goes quiet right after them.
  await expect(replyBody(reply)).not.toBeEmpty({ timeout: 15_000 })
  // As Markdown, not the plain text shown while the renderer's chunk loads (a cold dev server
  // serves it in seconds): the words held through the silence are then the same words.
  await expect(replyBody(reply).locator('.md-reply:not(.md-reply--plain)')).toBeVisible({ timeout: 15_000 })
  const quietFrom = Date.now()
  const before = (await replyBody(reply).textContent()) ?? ''

  const line = reply.locator('[data-connection]')
  await expect(line).toHaveText(LOST, { timeout: 50_000 })
  expect(Date.now() - quietFrom, 'ms from the last words to "Connection lost"').toBeLessThanOrEqual(50_000)
  await expect(statusBadge(reply)).toHaveText('Writing…')
  await expect(reply.getByRole('button', { name: 'Stop', exact: true })).toBeEnabled()
  expect(await replyBody(reply).textContent()).toBe(before)

  // The daemon talks again at 60 s: the reply carries on and completes.
  await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 40_000 })
  await expect(line).toHaveCount(0)
  const state = await daemonState(page)
  const stored = state.messages.find((m) => m.role === 'agent')
  expect(await replySource(page, reply)).toBe(stored?.content)
  expect((await replyBody(reply).textContent()) ?? '').toContain(before.trim())
  expect(state.runs).toHaveLength(1)
  expect(state.runs[0]?.status).toBe('completed')
  expect(state.requests.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(0)
  expect(state.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/events')).length).toBeGreaterThanOrEqual(2)
  // It never read stopped or failed, not even for a frame.
  const statuses = await seenStatuses(page)
  expect(statuses.filter((s) => s === 'failed' || s === 'cancelled')).toEqual([])
  expect(statuses.at(-1)).toBe('complete')
})

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** The mock daemon in a process of its own (one process: `node --import tsx`, no wrapper), in a process group of its own. */
async function startDaemonProcess(): Promise<{ url: string; child: ChildProcess; signal: (name: NodeJS.Signals) => void; stop: () => Promise<void> }> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'mocks/server.ts', '--port', String(port)], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('listening')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`the mock daemon exited (${code}) before listening: ${out}`)))
  })
  const pid = child.pid!
  const signal = (name: NodeJS.Signals) => process.kill(-pid, name)
  const stop = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    signal('SIGCONT')
    signal('SIGTERM')
    await exited
  }
  return { url: `http://127.0.0.1:${port}`, child, signal, stop }
}

type Stack = { daemonUrl: string; appUrl: string; signal: (name: NodeJS.Signals) => void }

/** The daemon process and a dev server of the client pointed at it, once for this file. */
const real = base.extend<{ problems: string[] }, { stack: Stack }>({
  stack: [
    async ({ browser }, use) => {
      const daemon = await startDaemonProcess()
      const previous = process.env.VITE_DAEMON_URL
      process.env.VITE_DAEMON_URL = daemon.url
      const { createServer } = await import('vite')
      const port = await freePort()
      // A dependency cache of its own, as in robust-setup.ts: two dev servers must not re-optimise one.
      const vite = await createServer({
        configFile: 'vite.config.ts',
        cacheDir: 'node_modules/.vite-liveness-e2e',
        logLevel: 'error',
        server: { port, strictPort: true, hmr: false },
      })
      await vite.listen()
      if (previous === undefined) delete process.env.VITE_DAEMON_URL
      else process.env.VITE_DAEMON_URL = previous
      const appUrl = `http://localhost:${port}`
      // Warm up: the first load optimises the dependencies, and the first reply loads the renderer.
      const warm = await browser.newPage()
      await warm.goto(appUrl)
      await expect(warm.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 90_000 })
      await warm.getByRole('textbox', { name: 'Message' }).fill('Warm up with `code`')
      await warm.getByRole('textbox', { name: 'Message' }).press('Enter')
      await expect(warm.getByRole('article', { name: 'Agent', exact: true }).last()).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
      await warm.close()
      await fetch(`${daemon.url}/__mock/reset`, { method: 'POST' })
      await use({ daemonUrl: daemon.url, appUrl, signal: daemon.signal })
      await vite.close()
      await daemon.stop()
    },
    { scope: 'worker', timeout: 240_000 },
  ],
  problems: [
    async ({ page }, use) => {
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
      page.on('console', (message) => {
        // Requests the frozen daemon never answered are cut by the client on purpose.
        if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) problems.push(`console.error: ${message.text()}`)
      })
      await use(problems)
      expect(problems, 'page errors and unexpected console errors').toEqual([])
    },
    { auto: true },
  ],
})

async function daemonStateOver(stack: Stack): Promise<DaemonState> {
  const response = await fetch(`${stack.daemonUrl}/__mock/state`)
  return (await response.json()) as DaemonState
}

real('the HTTP daemon frozen for 60 s mid-reply (SIGSTOP, then SIGCONT): the reply completes once, from one run', async ({ page, stack }) => {
  real.setTimeout(240_000)
  await fetch(`${stack.daemonUrl}/__mock/plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ faults: ['slow'] }) })
  await page.goto(stack.appUrl)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 60_000 })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('Walk me through the deploy')
  await box.press('Enter')
  await page.waitForURL(/\/sessions\/[^/]+$/)
  const reply = page.getByRole('article', { name: 'Agent', exact: true }).last()
  await expect(reply.locator('.message__body').first()).not.toBeEmpty({ timeout: 30_000 })
  await expect(reply).toHaveAttribute('data-status', 'streaming')

  stack.signal('SIGSTOP')
  const frozenAt = Date.now()
  const shownAtFreeze = (await reply.locator('.message__body').first().textContent()) ?? ''
  let woken = false
  try {
    const line = reply.locator('[data-connection]')
    await expect(line).toHaveText(LOST, { timeout: 55_000 })
    expect(Date.now() - frozenAt).toBeLessThanOrEqual(55_000)
    await expect(reply).toHaveAttribute('data-status', 'streaming')
    await expect(reply.getByRole('button', { name: 'Stop', exact: true })).toBeEnabled()
    await page.waitForTimeout(Math.max(0, 60_000 - (Date.now() - frozenAt)))
    stack.signal('SIGCONT')
    woken = true

    await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
    await expect(line).toHaveCount(0)
  } finally {
    if (!woken) stack.signal('SIGCONT')
  }

  await page.waitForTimeout(2_000)
  await expect(page.getByRole('article', { name: 'Agent', exact: true })).toHaveCount(1)
  const state = await daemonStateOver(stack)
  const sends = state.requests.filter((r) => r.method === 'POST' && /\/sessions\/[^/]+\/messages$/.test(r.path))
  expect(sends).toHaveLength(1)
  expect(state.runs).toHaveLength(1)
  expect(state.runs[0]?.status).toBe('completed')
  const agents = state.messages.filter((m) => m.role === 'agent')
  expect(agents).toHaveLength(1)
  expect(agents[0]?.status).toBe('complete')
  expect(state.requests.filter((r) => r.path.endsWith('/cancel') || r.path.endsWith('/regenerate'))).toHaveLength(0)
  // It was frozen in the middle: the stream was picked up again and brought the rest.
  expect(agents[0]!.content.length).toBeGreaterThan(shownAtFreeze.length + 20)
  expect(state.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/events')).length).toBeGreaterThanOrEqual(2)
  // The reply as shown is the daemon's, whole.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  await reply.getByRole('button', { name: 'Copy', exact: true }).first().click()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(agents[0]?.content)
})
