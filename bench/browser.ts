/**
 * The browser side of the benchmark: Debian's Chromium through Playwright, one fresh context per
 * run (fresh storage, fresh cache), the page probe installed before the app's first script, and
 * Chrome DevTools Protocol metrics (main-thread task time, JS heap) from outside the page.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from '@playwright/test'
import { CHROMIUM, CHROMIUM_ARGS } from '../tests/setup/chromium'
import { installProbe, probeClock, probeRearm, probeWindow, type MarkerSighting } from './page-probe'

/**
 * Launches headless Chromium, or throws an error that says how to get it. `jsFlags` go to V8 as
 * they are (`--js-flags`): a diagnosis of the engine's share of a figure, never the product's figures.
 */
export async function launchBrowser(jsFlags?: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing. The benchmark drives Debian's Chromium (Playwright's own browser download is not reachable): ` +
        'install it with `apt-get update && apt-get install -y --no-install-recommends chromium`.',
    )
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      // performance.memory and the heap figures without the 20-minute quantisation.
      '--enable-precise-memory-info',
      // A run must not be throttled because another page or window looks more important.
      '--disable-renderer-backgrounding',
      '--disable-background-timer-throttling',
      '--disable-backgrounding-occluded-windows',
      ...(jsFlags ? [`--js-flags=${jsFlags}`] : []),
    ],
  })
}

/** Rejects after `ms` with a message naming what was awaited. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
    }),
  ])
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

type Metrics = Record<string, number>

export type BenchPage = {
  context: BrowserContext
  page: Page
  cdp: CDPSession
  /** Resolves when the marker has been painted (the probe's sighting), or rejects after `timeoutMs` or when the page crashes. */
  painted(marker: string, timeoutMs: number): Promise<MarkerSighting>
  /** Forgets the marker's sighting: `painted` waits for it to show again. */
  forget(marker: string): Promise<void>
  /** Set when the page's renderer crashed (out of memory, most likely). */
  crashed: boolean
  metrics(): Promise<Metrics>
  /** The probe's page clock (performance.now()). */
  now(): Promise<number>
  window(from: number, to: number): Promise<ReturnType<typeof probeWindow>>
  /** Waits until no long task has ended for `quietMs` (at most `maxMs`); true when it got quiet. */
  quiet(quietMs: number, maxMs: number): Promise<boolean>
  /** Samples JSHeapUsedSize every `everyMs` until stopped; returns the samples in bytes. */
  sampleHeap(everyMs: number): { stop(): Promise<number[]> }
  errors: string[]
  close(): Promise<void>
}

/** A fresh context and page with the probe watching for `markers`; not navigated yet. */
export async function openPage(browser: Browser, markers: string[]): Promise<BenchPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', timezoneId: 'UTC', colorScheme: 'light' })
  context.setDefaultTimeout(30_000)
  const sightings = new Map<string, MarkerSighting>()
  const waiters = new Map<string, Array<(s: MarkerSighting | undefined) => void>>()
  await context.exposeFunction('__benchReport', (marker: string, sighting: MarkerSighting) => {
    sightings.set(marker, sighting)
    for (const resolve of waiters.get(marker) ?? []) resolve(sighting)
    waiters.delete(marker)
  })
  // tsx keeps function names with a helper the page does not have; give the page a no-op one.
  await context.addInitScript({ content: 'globalThis.__name = globalThis.__name || ((f) => f);' })
  await context.addInitScript(installProbe, { markers })
  const page = await context.newPage()
  let crashed = false
  page.on('crash', () => {
    crashed = true
    for (const list of waiters.values()) for (const resolve of list) resolve(undefined)
    waiters.clear()
  })
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  const cdp = await context.newCDPSession(page)
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' })

  const metrics = async () => {
    const { metrics: list } = await cdp.send('Performance.getMetrics')
    return Object.fromEntries(list.map((m) => [m.name, m.value]))
  }

  return {
    context,
    page,
    cdp,
    errors,
    get crashed() {
      return crashed
    },
    painted(marker, timeoutMs) {
      const known = sightings.get(marker)
      if (known) return Promise.resolve(known)
      if (crashed) return Promise.reject(new Error('the page crashed'))
      const seen = new Promise<MarkerSighting>((resolve, reject) =>
        waiters.set(marker, [...(waiters.get(marker) ?? []), (s) => (s ? resolve(s) : reject(new Error('the page crashed')))]),
      )
      return withTimeout(seen, timeoutMs, `"${marker}" on screen`)
    },
    async forget(marker) {
      sightings.delete(marker)
      await page.evaluate(probeRearm, marker)
    },
    metrics,
    now: () => page.evaluate(() => performance.now()),
    window: (from, to) => page.evaluate(probeWindow, { from, to }),
    async quiet(quietMs, maxMs) {
      const start = Date.now()
      for (;;) {
        const { now, lastLongTaskEnd } = await page.evaluate(probeClock)
        if (now - lastLongTaskEnd >= quietMs) return true
        if (Date.now() - start > maxMs) return false
        await sleep(Math.min(250, quietMs))
      }
    },
    sampleHeap(everyMs) {
      const samples: number[] = []
      let running = true
      const loop = (async () => {
        while (running) {
          try {
            const m = await withTimeout(metrics(), 10_000, 'heap metrics')
            if (m.JSHeapUsedSize !== undefined) samples.push(m.JSHeapUsedSize)
          } catch {
            // a sample lost while the page is busy or closing: the others still stand
          }
          await sleep(everyMs)
        }
      })()
      return {
        async stop() {
          running = false
          await loop
          return samples
        },
      }
    },
    async close() {
      await context.close().catch(() => undefined)
    },
  }
}
