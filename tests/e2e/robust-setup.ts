/**
 * The stack the "beyond one tab" specs run on: the mock daemon as a real HTTP server on loopback
 * (one daemon for every tab, in memory), and a Vite dev server of the client pointed at it with
 * VITE_DAEMON_URL (no MSW in the page; the dev server proxies /api and /__mock to the daemon).
 * Both start once per worker on free ports, so they never clash with `npm start` on REBOUND_PORT.
 * Pages of one browser context share localStorage and BroadcastChannel: two pages are two tabs.
 */
import { writeFileSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { test as base, expect, type Locator, type Page } from '@playwright/test'
import type { DaemonState } from '../../mocks/model'
import { startDaemonServer, type DaemonServer } from '../../mocks/server'

export { expect }

type Stack = { daemon: DaemonServer; appUrl: string }

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

/** Console lines a browser prints for requests that fail on purpose (offline, fault plans). */
const EXPECTED_CONSOLE = [/^Failed to load resource/, /net::ERR_INTERNET_DISCONNECTED/]

export const test = base.extend<{ problems: string[] }, { stack: Stack }>({
  stack: [
    async ({ browser }, use) => {
      const daemon = await startDaemonServer({ port: 0 })
      const previous = process.env.VITE_DAEMON_URL
      process.env.VITE_DAEMON_URL = daemon.url
      const { createServer } = await import('vite')
      const port = await freePort()
      // Its own dependency cache: `npm start` (the suite's web server, in mock mode) optimises a
      // different set into the default one, and two servers re-optimising one cache reload pages.
      const vite = await createServer({
        configFile: 'vite.config.ts',
        cacheDir: 'node_modules/.vite-robust-e2e',
        logLevel: 'error',
        server: { port, strictPort: true, hmr: false },
      })
      await vite.listen()
      if (previous === undefined) delete process.env.VITE_DAEMON_URL
      else process.env.VITE_DAEMON_URL = previous
      const appUrl = `http://localhost:${port}`
      // Warm up: a cold dependency cache is optimised on the first load and again when a reply
      // first loads the Markdown renderer, and with no hot-update socket a page caught in between
      // fails its imports. One conversation here, before any test, leaves the cache settled.
      const warm = await browser.newPage()
      await warm.goto(appUrl)
      await expect(warm.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 90_000 })
      await warm.getByRole('textbox', { name: 'Message' }).fill('Warm up with `code`')
      await warm.getByRole('textbox', { name: 'Message' }).press('Enter')
      await expect(warm.getByRole('article', { name: 'Agent', exact: true }).last()).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
      await warm.reload()
      await expect(warm.getByRole('article', { name: 'Agent', exact: true }).last()).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
      await warm.close()
      daemon.daemon.reset()
      await use({ daemon, appUrl })
      await vite.close()
      await daemon.close()
    },
    { scope: 'worker', timeout: 240_000 },
  ],
  /** Page errors and unexpected console errors on every page of the context fail the test. */
  problems: [
    async ({ context, stack }, use, testInfo) => {
      stack.daemon.daemon.reset()
      const problems: string[] = []
      const watch = (page: Page) => {
        page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
        page.on('console', (message) => {
          if (message.type() === 'error' && !EXPECTED_CONSOLE.some((p) => p.test(message.text()))) problems.push(`console.error: ${message.text()}`)
        })
      }
      context.pages().forEach(watch)
      context.on('page', watch)
      const seen: string[] = []
      const log = (page: Page) =>
        page.on('request', (r) => {
          if (new URL(r.url()).pathname.startsWith('/api/v1/')) seen.push(`${new Date().toISOString().slice(17, 23)} ${r.method()} ${new URL(r.url()).pathname}`)
        })
      context.pages().forEach(log)
      context.on('page', log)
      await use(problems)
      // What the daemon and the pages saw, for a failure on a loaded machine.
      if (testInfo.status !== testInfo.expectedStatus) {
        const { requests, messages } = stack.daemon.daemon.state()
        const body = [...seen, '--- daemon', ...requests.map((r) => `${new Date(r.at).toISOString().slice(17, 23)} ${r.method} ${r.path}`), '--- messages', ...messages.map((m) => `${m.role} ${m.status ?? ''} ${m.superseded}`)].join('\n')
        writeFileSync(testInfo.outputPath('requests.txt'), body)
        await testInfo.attach('requests', { body })
      }
      expect(problems, 'page errors and unexpected console errors').toEqual([])
    },
    { auto: true },
  ],
})

/** The daemon's state: sessions, messages, runs and every request it received. */
export function daemonState(stack: Stack): DaemonState {
  return stack.daemon.daemon.state()
}

export function plan(stack: Stack, faults: string[]): void {
  stack.daemon.daemon.plan(faults)
}

const REGENERATE = /^\/api\/v1\/sessions\/[^/]+\/messages\/[^/]+\/regenerate$/

/** How many regenerates the daemon received. */
export function regenerates(stack: Stack): number {
  return daemonState(stack).requests.filter((r) => r.method === 'POST' && REGENERATE.test(r.path)).length
}

export function messageBox(page: Page): Locator {
  return page.getByRole('textbox', { name: 'Message' })
}

export function agentReplies(page: Page): Locator {
  return page.getByRole('article', { name: 'Agent', exact: true })
}

/** The first screen: the first Enter makes a session and sends into it; returns the session's address. */
export async function startWith(page: Page, stack: Stack, text: string): Promise<string> {
  await page.goto(stack.appUrl)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 60_000 })
  const box = messageBox(page)
  await box.fill(text)
  await box.press('Enter')
  await page.waitForURL(/\/sessions\/[^/]+$/)
  return page.url()
}

/** The retry box of the latest reply. */
export function retryBox(page: Page): Locator {
  return agentReplies(page).last().locator('[data-retry]')
}

/** Seconds a "Retrying in N s" line shows. */
export async function countdownSeconds(page: Page): Promise<number> {
  const text = (await retryBox(page).textContent()) ?? ''
  const match = /Retrying in (\d+) s/.exec(text)
  if (!match) throw new Error(`no countdown in ${JSON.stringify(text)}`)
  return Number(match[1])
}
