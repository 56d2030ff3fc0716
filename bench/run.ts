/**
 * `npm run bench`: builds Rebound's production app and the peer, serves both with the fake
 * daemon on loopback, drives headless Chromium through each scenario for each subject, prints
 * Markdown tables and writes bench/results.json. A benchmark, not a test: the budgets are printed
 * and judged, never fail the run; it exits non-zero only when the benchmark itself could not run.
 *
 *   npm run bench                       3 runs of every scenario, medians (several minutes)
 *   npm run bench -- --quick            1 short run of each, nothing judged (seconds, for CI)
 *   npm run bench -- --runs 5 --only stream20,history --no-build --save-baseline
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from '@playwright/test'
import { launchBrowser, withTimeout } from './browser'
import { measureBundle, type BundleResult } from './bundle'
import { buildHistory, replyDeltas } from './content'
import { startFakeDaemon, type FakeDaemon } from './fake-daemon'
import { atMost, below, budgetTable, field, fmt, medians, scenarioTable, type Budget, type Figure, type RunOutcome, type SubjectRuns } from './report'
import { historyRun, streamRun, SUBJECTS, type Subject, type SubjectKey } from './scenarios'

const BENCH = dirname(fileURLToPath(import.meta.url))
const ROOT = dirname(BENCH)
const OUT = join(BENCH, '.out')
const APP_DIR = join(OUT, 'app')
const PEER_DIR = join(OUT, 'peer')

const SCENARIOS = ['bundle', 'stream20', 'stream10k', 'history', 'typing', 'retry'] as const
type ScenarioKey = (typeof SCENARIOS)[number]

type Options = { quick: boolean; runs: number; only: Set<ScenarioKey>; build: boolean; out: string; saveBaseline: boolean }

function parseArgs(argv: string[]): Options {
  const opts: Options = { quick: false, runs: 3, only: new Set(SCENARIOS), build: true, out: join(BENCH, 'results.json'), saveBaseline: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${arg} needs a value`)
      return v
    }
    if (arg === '--quick') opts.quick = true
    else if (arg === '--runs') opts.runs = Math.max(1, Number(value()) || 1)
    else if (arg === '--only') {
      const names = value().split(',')
      for (const n of names) if (!(SCENARIOS as readonly string[]).includes(n)) throw new Error(`unknown scenario "${n}" (known: ${SCENARIOS.join(', ')})`)
      opts.only = new Set(names as ScenarioKey[])
    } else if (arg === '--no-build') opts.build = false
    else if (arg === '--out') opts.out = value()
    else if (arg === '--save-baseline') opts.saveBaseline = true
    else if (arg === '--help' || arg === '-h') {
      console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0])
      process.exit(0)
    } else throw new Error(`unknown argument ${arg}`)
  }
  if (opts.quick) opts.runs = 1
  return opts
}

/** Sizes of each scenario: the full benchmark, or the quick one that only proves it still runs. */
function sizes(quick: boolean) {
  return quick
    ? { deltas: 1000, rate: 2000, shortHistory: 20, longHistory: 1000, typing: 'quick typing test', typingDelayMs: 20, scrollSteps: 5, retryCycles: 50 }
    : {
        deltas: 20_000,
        rate: 2000,
        shortHistory: 20,
        longHistory: 10_000,
        typing: 'While this streams I keep typing a follow-up question, sixty.',
        typingDelayMs: 60,
        scrollSteps: 40,
        retryCycles: 1000,
      }
}

function log(message: string) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)
}

function viteBuild(args: string[]) {
  const env = { ...process.env }
  // The production client talks to its own origin (/api/v1) only when no daemon URL is baked in.
  delete env.VITE_DAEMON_URL
  const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (result.status !== 0) throw new Error(`vite build ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
}

function pkgVersion(name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
  } catch {
    return undefined
  }
}

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch {
    return `load average: ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}`
  }
}

// --- Figures per scenario ------------------------------------------------------------------

/** How long after the last delta a subject may take to show the final text before the run gives up on it. */
const FINAL_CAP_MS = 30_000

const STREAM_FIGURES: Figure[] = [
  { key: 'busyMs', label: 'main-thread busy', unit: 'ms', digits: 0, read: field('busyMs') },
  { key: 'scriptMs', label: '… of which script', unit: 'ms', digits: 0, read: field('scriptMs') },
  { key: 'longTaskCount', label: 'long tasks', unit: 'count', digits: 0, read: field('longTaskCount') },
  { key: 'longTaskTotalMs', label: 'long tasks, total', unit: 'ms', digits: 0, read: field('longTaskTotalMs') },
  { key: 'longTaskMaxMs', label: 'longest task', unit: 'ms', digits: 0, read: field('longTaskMaxMs') },
  { key: 'rafP95Ms', label: 'rAF interval p95', unit: 'ms', read: field('rafP95Ms') },
  { key: 'rafP99Ms', label: 'rAF interval p99', unit: 'ms', read: field('rafP99Ms') },
  { key: 'firstDeltaMs', label: 'first delta → on screen', unit: 'ms', digits: 0, read: field('firstDeltaMs') },
  { key: 'finalMs', label: 'last delta → final text on screen', unit: 'ms', digits: 0, read: field('finalMs') },
  { key: 'finalMissing', label: `final text still missing after ${FINAL_CAP_MS / 1000} s (0/1)`, unit: '', digits: 0, read: field('finalMissing') },
  { key: 'peakHeapMB', label: 'peak JS heap', unit: 'MB', read: field('peakHeapMB') },
  { key: 'heapBeforeMB', label: 'JS heap before the send', unit: 'MB', read: field('heapBeforeMB') },
  { key: 'attachMs', label: 'send → event stream opened', unit: 'ms', digits: 0, read: field('attachMs') },
  { key: 'streamMs', label: 'stream length at the daemon', unit: 'ms', digits: 0, read: field('streamMs') },
]

const HISTORY_FIGURES: Figure[] = [
  { key: 'lastPaintedMs', label: 'navigation → last message painted', unit: 'ms', digits: 0, read: field('lastPaintedMs') },
  { key: 'loadLongTaskMaxMs', label: 'longest task while loading', unit: 'ms', digits: 0, read: field('loadLongTaskMaxMs') },
  { key: 'rows', label: 'message rows in the DOM', unit: 'count', digits: 0, read: field('rows') },
  { key: 'elements', label: 'elements in the DOM', unit: 'count', digits: 0, read: field('elements') },
  { key: 'heapMB', label: 'JS heap once loaded', unit: 'MB', read: field('heapMB') },
  { key: 'scrollMs', label: 'scroll to top and back', unit: 'ms', digits: 0, read: field('scrollMs') },
  { key: 'scrollLongTaskCount', label: 'long tasks while scrolling', unit: 'count', digits: 0, read: field('scrollLongTaskCount') },
  { key: 'scrollLongTaskTotalMs', label: 'long tasks while scrolling, total', unit: 'ms', digits: 0, read: field('scrollLongTaskTotalMs') },
  { key: 'scrollLongTaskMaxMs', label: 'longest task while scrolling', unit: 'ms', digits: 0, read: field('scrollLongTaskMaxMs') },
  { key: 'scrollRafP99Ms', label: 'rAF interval p99 while scrolling', unit: 'ms', read: field('scrollRafP99Ms') },
  { key: 'scrollBlankSteps', label: 'scroll steps showing no row', unit: 'count', digits: 0, read: field('scrollBlankSteps') },
  { key: 'expandMs', label: 'earlier versions: click → painted', unit: 'ms', digits: 0, read: field('expand.clickToPaintMs') },
  { key: 'expandJumpPx', label: 'earlier versions: button moved by', unit: 'px', digits: 0, read: field('expand.jumpPx') },
  { key: 'expandShown', label: 'earlier versions shown', unit: 'count', digits: 0, read: field('expand.versionsShown') },
]

const TYPING_FIGURES: Figure[] = [
  { key: 'p95Ms', label: 'keydown → next paint p95', unit: 'ms', read: field('typing.p95Ms') },
  { key: 'maxMs', label: 'keydown → next paint, slowest', unit: 'ms', read: field('typing.maxMs') },
  { key: 'over50', label: 'keys over 50 ms', unit: 'count', digits: 0, read: field('typing.over50') },
  { key: 'reported', label: 'keys of 16 ms or more', unit: 'count', digits: 0, read: field('typing.reported') },
  { key: 'keys', label: 'keys typed', unit: 'count', digits: 0, read: field('typing.keys') },
  { key: 'busyMs', label: 'main-thread busy (stream + typing)', unit: 'ms', digits: 0, read: field('busyMs') },
  { key: 'finalMs', label: 'last delta → final text on screen', unit: 'ms', digits: 0, read: field('finalMs') },
]

const RETRY_FIGURES: Figure[] = [
  { key: 'heapBeforeMB', label: 'heap after GC, before', unit: 'MB', digits: 2, read: field('heapBeforeMB') },
  { key: 'heapAfterMB', label: 'heap after GC, after', unit: 'MB', digits: 2, read: field('heapAfterMB') },
  { key: 'heapGrowthKB', label: 'heap growth after GC', unit: 'KB', digits: 0, read: field('heapGrowthKB') },
  { key: 'heapGrowthArmCancelKB', label: '… over the arm/cancel cycles', unit: 'KB', digits: 0, read: field('heapGrowthArmCancelKB') },
  { key: 'heapGrowthDispatchFailKB', label: '… over the arm/dispatch/fail cycles', unit: 'KB', digits: 0, read: field('heapGrowthDispatchFailKB') },
  { key: 'heapAfterDisposeMB', label: 'heap after GC, scheduler disposed', unit: 'MB', digits: 2, read: field('heapAfterDisposeMB') },
  { key: 'timersLeft', label: 'timers left', unit: 'count', digits: 0, read: field('timersLeft') },
  { key: 'listenersLeft', label: 'listeners left', unit: 'count', digits: 0, read: field('listenersLeft') },
  { key: 'timersLeftAfterDispose', label: 'timers left after dispose', unit: 'count', digits: 0, read: field('timersLeftAfterDispose') },
  { key: 'listenersLeftAfterDispose', label: 'listeners left after dispose', unit: 'count', digits: 0, read: field('listenersLeftAfterDispose') },
  { key: 'cycles', label: 'cycles', unit: 'count', digits: 0, read: field('cycles') },
  { key: 'durationMs', label: 'time for all cycles', unit: 'ms', digits: 0, read: field('durationMs') },
]

type ScenarioResults = Partial<Record<SubjectKey, SubjectRuns<Record<string, unknown>>>>

async function runBrowserScenario(
  name: string,
  runs: number,
  subjects: Subject[],
  figures: Figure[],
  once: (subject: Subject) => Promise<Record<string, unknown>>,
): Promise<ScenarioResults> {
  const collected: Partial<Record<SubjectKey, Array<RunOutcome<Record<string, unknown>>>>> = {}
  // Subjects take turns within each round, so a change in the machine's load spreads over all of them.
  for (let i = 1; i <= runs; i++) {
    for (const subject of subjects) {
      const started = Date.now()
      let outcome: RunOutcome<Record<string, unknown>>
      try {
        outcome = { ok: true, ...(await once(subject)) }
        log(`${name} ${subject.label} run ${i}/${runs}: ${summary(outcome, figures)} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
      } catch (error) {
        outcome = { ok: false, error: error instanceof Error ? error.message : String(error) }
        log(`${name} ${subject.label} run ${i}/${runs} FAILED: ${outcome.error}`)
      }
      ;(collected[subject.key] ??= []).push(outcome)
    }
  }
  const out: ScenarioResults = {}
  for (const [key, list] of Object.entries(collected) as Array<[SubjectKey, Array<RunOutcome<Record<string, unknown>>>]>) {
    out[key] = { runs: list, median: medians(list, figures) }
  }
  return out
}

function summary(run: Record<string, unknown>, figures: Figure[]): string {
  return figures
    .slice(0, 4)
    .map((f) => `${f.key}=${fmt(f.read(run), f.digits ?? 1)}`)
    .join(' ')
}

/** Scenario 5 runs in node (its own process, with --expose-gc): see retry-cycles.ts. */
async function runRetryCycles(cycles: number): Promise<RunOutcome<Record<string, unknown>>> {
  const script = join(BENCH, 'retry-cycles.ts')
  if (!existsSync(script)) return { ok: false, error: 'bench/retry-cycles.ts is missing' }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--cycles', String(cycles), '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      const line = stdout.trim().split('\n').at(-1) ?? ''
      try {
        if (code !== 0) throw new Error(`exit ${code}`)
        resolve({ ok: true, ...(JSON.parse(line) as Record<string, unknown>) })
      } catch (error) {
        resolve({ ok: false, error: `retry-cycles: ${error instanceof Error ? error.message : String(error)}\n${stderr.slice(-2000)}` })
      }
    })
  })
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const size = sizes(opts.quick)
  const loadAtStart = uptime()
  const startedAt = new Date()
  log(`${opts.quick ? 'quick' : 'full'} benchmark, ${opts.runs} run(s) per scenario; ${loadAtStart}`)

  if (opts.build) {
    log('building the production app into bench/.out/app')
    viteBuild(['--outDir', APP_DIR, '--emptyOutDir', '--logLevel', 'warn'])
    log('building the peer into bench/.out/peer')
    viteBuild(['--config', join(BENCH, 'peer', 'vite.config.ts')])
  }
  for (const dir of [APP_DIR, PEER_DIR]) if (!existsSync(join(dir, 'index.html'))) throw new Error(`${dir}/index.html is missing: run without --no-build`)

  const scenarios: Record<string, unknown> = {}
  const tables: string[] = []
  const budgets: Budget[] = []
  const baselinePath = join(BENCH, 'baseline.json')
  const baseline =
    !opts.saveBaseline && existsSync(baselinePath)
      ? (JSON.parse(readFileSync(baselinePath, 'utf8')) as { scenarios?: Record<string, { rebound?: { median?: Record<string, number> } }> })
      : undefined
  const baseFor = (name: string) => baseline?.scenarios?.[name]?.rebound?.median
  let failed = 0

  let bundle: BundleResult | undefined
  if (opts.only.has('bundle')) {
    bundle = measureBundle(APP_DIR)
    scenarios.bundle = bundle
    const kb = (b: number) => fmt(b / 1024, 1)
    tables.push(
      [
        '### Bundle (production build, gzip level 9)',
        '',
        '| chunk | raw (KB) | gzip (KB) |',
        '| --- | ---: | ---: |',
        ...bundle.initial.map((c) => `| initial: ${c.file} | ${kb(c.bytes)} | ${kb(c.gzip)} |`),
        `| **initial JavaScript, total** | **${kb(bundle.initialBytes)}** | **${kb(bundle.initialGzip)}** |`,
        ...bundle.lazy.map((c) => `| lazy: ${c.file} | ${kb(c.bytes)} | ${kb(c.gzip)} |`),
        ...bundle.css.map((c) => `| css: ${c.file} | ${kb(c.bytes)} | ${kb(c.gzip)} |`),
      ].join('\n'),
    )
    budgets.push(
      { scenario: 'bundle', name: 'initial JS ≤ 160 KB gzip', value: `${kb(bundle.initialGzip)} KB`, holds: bundle.initialGzip <= 160 * 1024 },
      { scenario: 'bundle', name: 'no mock code in the initial JS', value: bundle.mockMarkers.join(', ') || 'none', holds: bundle.mockMarkers.length === 0 },
      { scenario: 'bundle', name: 'no service worker', value: bundle.serviceWorker.join(', ') || 'none', holds: bundle.serviceWorker.length === 0 },
    )
  }

  const needsBrowser = ['stream20', 'stream10k', 'history', 'typing'].some((s) => opts.only.has(s as ScenarioKey))
  let browser: Browser | undefined
  let daemon: FakeDaemon | undefined
  let chromiumVersion: string | undefined
  const closeAll = async () => {
    await browser?.close().catch(() => undefined)
    await daemon?.close().catch(() => undefined)
    browser = undefined
    daemon = undefined
  }
  const onSignal = () => {
    log('interrupted: closing the browser and the fake daemon')
    void closeAll().finally(() => process.exit(130))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const deltas = replyDeltas(size.deltas)
  const shortHistory = buildHistory({ size: size.shortHistory })
  const longHistory = buildHistory({ size: size.longHistory })
  const stream = { deltas, rate: size.rate, firstTokenMs: 50 }
  const unexpected = new Map<string, number>()

  try {
    if (needsBrowser) {
      daemon = await startFakeDaemon({ appDir: APP_DIR, peerDir: PEER_DIR })
      browser = await withTimeout(launchBrowser(), 60_000, 'Chromium to start')
      chromiumVersion = browser.version()
      log(`Chromium ${chromiumVersion}; Rebound on ${daemon.reboundUrl}, peer on ${daemon.peerUrl}`)
    }
    const d = () => daemon as FakeDaemon
    const b = () => browser as Browser
    const noteUnexpected = () => {
      for (const r of d().unexpected) unexpected.set(`${r.subject} ${r.method} ${r.path} → ${r.status}`, (unexpected.get(`${r.subject} ${r.method} ${r.path} → ${r.status}`) ?? 0) + 1)
    }

    const streamScenario = async (key: 'stream20' | 'stream10k', history: typeof shortHistory, title: string) => {
      const results = await runBrowserScenario(key, opts.runs, SUBJECTS, STREAM_FIGURES, async (s) => {
        const r = await streamRun(b(), d(), s, history, { ...stream, loadTimeoutMs: 240_000, finalCapMs: FINAL_CAP_MS })
        noteUnexpected()
        return r
      })
      scenarios[key] = results
      tables.push(tableFor(title, STREAM_FIGURES, results, baseFor(key)))
      const m = (k: SubjectKey, f: string) => results[k]?.median[f]
      const label = key === 'stream20' ? `stream, ${size.shortHistory} messages` : `stream, ${size.longHistory.toLocaleString('en-US')} messages`
      const peerBusy = m('peerThrottled', 'busyMs')
      const peerHeap = m('peerThrottled', 'peakHeapMB')
      budgets.push(
        { scenario: label, name: 'no long task over 50 ms', value: `${fmt(m('rebound', 'longTaskCount'), 0)} long tasks`, holds: atMost(m('rebound', 'longTaskCount'), 0) },
        { scenario: label, name: 'rAF interval p99 ≤ 20 ms', value: `${fmt(m('rebound', 'rafP99Ms'))} ms`, holds: atMost(m('rebound', 'rafP99Ms'), 20) },
        { scenario: label, name: 'final text within 50 ms of the last delta', value: `${fmt(m('rebound', 'finalMs'), 0)} ms`, holds: atMost(m('rebound', 'finalMs'), 50) },
        {
          scenario: label,
          name: 'peak heap ≤ 2× the throttled peer’s',
          value: `${fmt(m('rebound', 'peakHeapMB'))} MB vs ${fmt(peerHeap)} MB`,
          holds: atMost(m('rebound', 'peakHeapMB'), peerHeap === undefined ? undefined : 2 * peerHeap),
        },
        {
          scenario: label,
          name: 'main-thread busy ≤ half the throttled peer’s',
          value: `${fmt(m('rebound', 'busyMs'), 0)} ms vs ${fmt(peerBusy, 0)} ms`,
          holds: atMost(m('rebound', 'busyMs'), peerBusy === undefined ? undefined : peerBusy / 2),
        },
      )
    }

    const streamTitle = (n: number) =>
      `Stream: ${n.toLocaleString('en-US')} history messages, one reply of ${size.deltas.toLocaleString('en-US')} deltas (${deltas.join('').length.toLocaleString('en-US')} characters) at ${size.rate.toLocaleString('en-US')}/s`
    if (opts.only.has('stream20')) await streamScenario('stream20', shortHistory, streamTitle(size.shortHistory))
    if (opts.only.has('stream10k')) await streamScenario('stream10k', longHistory, streamTitle(size.longHistory))

    if (opts.only.has('history')) {
      const results = await runBrowserScenario('history', opts.runs, SUBJECTS, HISTORY_FIGURES, async (s) => {
        const r = await historyRun(b(), d(), s, longHistory, { loadTimeoutMs: 240_000, scrollSteps: size.scrollSteps })
        noteUnexpected()
        return r
      })
      scenarios.history = results
      tables.push(
        tableFor(
          `History: a ${size.longHistory.toLocaleString('en-US')}-message session (${longHistory.length - size.longHistory} more superseded), scrolled top and back in ${size.scrollSteps} jumps each way`,
          HISTORY_FIGURES,
          results,
          baseFor('history'),
        ),
      )
      const m = (k: SubjectKey, f: string) => results[k]?.median[f]
      const peerLoad = m('peerThrottled', 'lastPaintedMs')
      budgets.push(
        { scenario: 'history', name: '< 60 message rows in the DOM', value: `${fmt(m('rebound', 'rows'), 0)} rows`, holds: below(m('rebound', 'rows'), 60) },
        {
          scenario: 'history',
          name: 'last message painted in ≤ half the peer’s time',
          value: `${fmt(m('rebound', 'lastPaintedMs'), 0)} ms vs ${fmt(peerLoad, 0)} ms`,
          holds: atMost(m('rebound', 'lastPaintedMs'), peerLoad === undefined ? undefined : peerLoad / 2),
        },
        { scenario: 'history', name: 'no long task while scrolling', value: `${fmt(m('rebound', 'scrollLongTaskCount'), 0)} long tasks`, holds: atMost(m('rebound', 'scrollLongTaskCount'), 0) },
      )
    }

    if (opts.only.has('typing')) {
      const results = await runBrowserScenario('typing', opts.runs, SUBJECTS, TYPING_FIGURES, async (s) => {
        const r = await streamRun(b(), d(), s, shortHistory, { ...stream, loadTimeoutMs: 120_000, finalCapMs: FINAL_CAP_MS }, { text: size.typing, delayMs: size.typingDelayMs })
        noteUnexpected()
        return r
      })
      scenarios.typing = results
      tables.push(tableFor(`Typing while streaming: ${size.typing.length} characters into the composer during the ${size.shortHistory}-message stream`, TYPING_FIGURES, results, baseFor('typing')))
      const m = (f: string) => results.rebound?.median[f]
      budgets.push(
        { scenario: 'typing', name: 'keydown → paint p95 < 24 ms', value: `${fmt(m('p95Ms'))} ms`, holds: below(m('p95Ms'), 24) },
        { scenario: 'typing', name: 'no key over 50 ms', value: `${fmt(m('over50'), 0)} keys`, holds: atMost(m('over50'), 0) },
      )
    }
  } finally {
    await closeAll()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }

  if (opts.only.has('retry')) {
    log(`retry cycles: ${size.retryCycles} of each kind, in node`)
    const outcome = await runRetryCycles(size.retryCycles)
    if (!outcome.ok) log(`retry cycles FAILED: ${outcome.error}`)
    else log(`retry cycles: ${summary(outcome, RETRY_FIGURES)}`)
    const results: ScenarioResults = { rebound: { runs: [outcome], median: medians([outcome], RETRY_FIGURES) } }
    scenarios.retry = results
    const target = outcome.ok ? String((outcome as Record<string, unknown>).target ?? '') : ''
    tables.push(
      tableFor(
        `Retry cycles: ${size.retryCycles.toLocaleString('en-US')} arm/cancel and ${size.retryCycles.toLocaleString('en-US')} arm/dispatch/fail cycles of the tier 2 scheduler${target ? ` (${target})` : ''}`,
        RETRY_FIGURES,
        results,
        baseFor('retry'),
        [SUBJECTS[0] as Subject],
      ),
    )
    const m = (f: string) => results.rebound?.median[f]
    budgets.push(
      { scenario: 'retry cycles', name: 'heap growth < 1 MB', value: `${fmt(m('heapGrowthKB'), 0)} KB`, holds: below(m('heapGrowthKB'), 1024) },
      { scenario: 'retry cycles', name: 'no timers left', value: `${fmt(m('timersLeft'), 0)}`, holds: atMost(m('timersLeft'), 0) },
      { scenario: 'retry cycles', name: 'no listeners left', value: `${fmt(m('listenersLeft'), 0)}`, holds: atMost(m('listenersLeft'), 0) },
    )
  }

  for (const [name, value] of Object.entries(scenarios)) {
    if (name === 'bundle') continue
    for (const [subject, runs] of Object.entries(value as ScenarioResults)) {
      const bad = runs?.runs.filter((r) => !r.ok).length ?? 0
      // A slow peer may time out; Rebound failing, or anything failing in a quick run, means the benchmark is broken.
      if (bad && (subject === 'rebound' || opts.quick)) failed += bad
    }
  }

  const loadAtEnd = uptime()
  const cpus = os.cpus()
  const results = {
    date: startedAt.toISOString(),
    finished: new Date().toISOString(),
    mode: opts.quick ? 'quick' : 'full',
    runsPerScenario: opts.runs,
    machine: {
      cpu: cpus[0]?.model,
      cores: cpus.length,
      memoryGB: Math.round(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()}`,
      loadAtStart,
      loadAtEnd,
      loadavgAtEnd: os.loadavg(),
    },
    versions: {
      rebound: { commit: git(['rev-parse', 'HEAD']), branch: git(['rev-parse', '--abbrev-ref', 'HEAD']), dirty: Boolean(git(['status', '--porcelain', '--', 'src', 'index.html', 'vite.config.ts'])) },
      node: process.version,
      chromium: chromiumVersion,
      playwright: pkgVersion('@playwright/test'),
      react: pkgVersion('react'),
      vite: pkgVersion('vite'),
      ai: pkgVersion('ai'),
      aiSdkReact: pkgVersion('@ai-sdk/react'),
      reactMarkdown: pkgVersion('react-markdown'),
      remarkGfm: pkgVersion('remark-gfm'),
      marked: pkgVersion('marked'),
    },
    settings: { ...size, firstTokenMs: stream.firstTokenMs, replyCharacters: deltas.join('').length, longHistoryWithSuperseded: longHistory.length },
    unexpectedRequests: Object.fromEntries(unexpected),
    budgets: budgets.map((b) => ({ ...b, holds: opts.quick ? null : (b.holds ?? null) })),
    scenarios,
  }
  writeFileSync(opts.out, `${JSON.stringify(results, null, 2)}\n`)
  if (opts.saveBaseline) writeFileSync(baselinePath, `${JSON.stringify(results, null, 2)}\n`)

  const header = [
    `## Rebound benchmark — ${results.mode}, ${opts.runs} run(s) per scenario, medians`,
    '',
    `${startedAt.toISOString()} · ${results.machine.cpu} × ${results.machine.cores} · node ${process.version} · Chromium ${chromiumVersion ?? 'n/a'} · Rebound ${results.versions.rebound.commit?.slice(0, 10) ?? '?'} (${results.versions.rebound.branch ?? '?'})`,
    `Load at start: ${loadAtStart}`,
    `Load at end: ${loadAtEnd}`,
  ]
  const unexpectedLines = unexpected.size ? ['', `Requests the fake daemon does not serve: ${[...unexpected.entries()].map(([k, n]) => `${k} ×${n}`).join('; ')}`] : []
  console.log([...header, ...unexpectedLines, '', ...tables.flatMap((t) => [t, '']), budgetTable(budgets, !opts.quick), '', `Written to ${opts.out}${opts.saveBaseline ? ` and ${baselinePath}` : ''}.`].join('\n'))
  if (failed) {
    log(`${failed} run(s) failed; see "error" in ${opts.out}`)
    process.exitCode = 1
  }
}

function tableFor(title: string, figures: Figure[], results: ScenarioResults, baseline: Record<string, number> | undefined, subjects: Subject[] = SUBJECTS): string {
  const present = subjects.filter((s) => results[s.key])
  const meds: Partial<Record<SubjectKey, Record<string, number | undefined>>> = {}
  const failures: Partial<Record<SubjectKey, number>> = {}
  for (const s of present) {
    meds[s.key] = results[s.key]?.median ?? {}
    failures[s.key] = results[s.key]?.runs.filter((r) => !r.ok).length ?? 0
  }
  return scenarioTable({ title, figures, subjects: present, medians: meds, failures, ...(baseline ? { baseline } : {}) })
}

main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
