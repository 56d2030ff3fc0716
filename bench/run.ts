/**
 * `npm run bench`: builds Rebound's production app and the peer, serves both with the fake
 * daemon on loopback, drives headless Chromium through each scenario for each subject, prints
 * Markdown tables and writes bench/results.json. A benchmark, not a test: the budgets are printed
 * and judged, never fail the run; it exits non-zero only when the benchmark itself could not run.
 *
 *   npm run bench                       3 runs of every scenario, medians (several minutes)
 *   npm run bench -- --quick            1 short run of each, nothing judged (seconds, for CI)
 *   npm run bench -- --runs 5 --only stream20,history --no-build --save-baseline
 *   npm run bench -- --report bench/baseline.json   the tables of saved results, medians re-taken
 *   npm run bench -- --report bench/results.json --save-baseline   promote saved results to the baseline
 *   npm run bench -- --only stream20 --runs 1 --trace   Chrome traces in bench/.out/traces (see trace-summary.ts); the
 *     growth scenarios' heap snapshots before and after the scroll beside them (see heap-growth.ts)
 *   npm run bench -- --only stream20 --subjects rebound,peerThrottled   some subjects only (no ratio without the throttled peer)
 *   npm run bench -- --only growth      the session sizes of issue 29 (session1k, session10k, session100k, session100kSteps)
 *   npm run bench -- --only agent       the agent-step scenarios (steps, stepsTyping, stepsHistory)
 *   npm run bench -- --no-warmup        no unmeasured run of each subject before the measured ones
 *   npm run bench -- --only session100k --js-flags '--no-sparkplug --no-maglev --no-turbofan'
 *     V8's flags for every browser: what of a figure is the engine's (here its compiled code); nothing judged
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from '@playwright/test'
import { launchBrowser, withTimeout } from './browser'
import { measureBundle, type BundleResult } from './bundle'
import { buildHistory, replyDeltas } from './content'
import { startFakeDaemon, type FakeDaemon } from './fake-daemon'
import { growthRun } from './growth'
import { generatedSession, listSource, type HistorySource } from './history-source'
import { atMost, below, budgetTable, field, floorCell, fmt, heapFloorCell, medians, neverIf, scenarioTable, type Budget, type Figure, type RunOutcome, type SubjectRuns } from './report'
import { historyRun, streamRun, SUBJECTS, type Subject, type SubjectKey } from './scenarios'
import { stepsEvents, textEvents } from './steps'

const BENCH = dirname(fileURLToPath(import.meta.url))
const ROOT = dirname(BENCH)
const OUT = join(BENCH, '.out')
const APP_DIR = join(OUT, 'app')
const PEER_DIR = join(OUT, 'peer')
const FLOOR_DIR = join(OUT, 'floor')

const SCENARIOS = [
  'bundle',
  'stream20',
  'stream10k',
  'history',
  'typing',
  'steps',
  'stepsTyping',
  'stepsHistory',
  'session1k',
  'session10k',
  'session100k',
  'session100kSteps',
  'retry',
] as const
type ScenarioKey = (typeof SCENARIOS)[number]
type BrowserScenario = Exclude<ScenarioKey, 'bundle' | 'retry'>

const GROWTH_KEYS = ['session1k', 'session10k', 'session100k', 'session100kSteps'] as const

/** Names that select several scenarios with --only. */
const GROUPS: Record<string, ScenarioKey[]> = {
  growth: [...GROWTH_KEYS],
  agent: ['steps', 'stepsTyping', 'stepsHistory'],
}

/**
 * Who takes part in each browser scenario. The floor runs in every stream and typing scenario;
 * the peers open the growth sessions they can (a whole history at once) and no larger; find and
 * scroll in the growth sessions are Rebound's alone.
 */
const SCENARIO_SUBJECTS: Record<BrowserScenario, readonly SubjectKey[]> = {
  stream20: ['rebound', 'peerDefault', 'peerThrottled', 'floor'],
  stream10k: ['rebound', 'peerDefault', 'peerThrottled', 'floor'],
  typing: ['rebound', 'peerDefault', 'peerThrottled', 'floor'],
  steps: ['rebound', 'peerDefault', 'peerThrottled', 'floor'],
  stepsTyping: ['rebound', 'peerDefault', 'peerThrottled', 'floor'],
  history: ['rebound', 'peerDefault', 'peerThrottled'],
  stepsHistory: ['rebound', 'peerDefault', 'peerThrottled'],
  session1k: ['rebound', 'peerThrottled'],
  session10k: ['rebound', 'peerThrottled'],
  session100k: ['rebound', 'floor', 'floorReact'],
  session100kSteps: ['rebound', 'floor', 'floorReact'],
}

type Options = {
  quick: boolean
  runs: number
  only: Set<ScenarioKey>
  build: boolean
  out: string
  saveBaseline: boolean
  report?: string
  trace: boolean
  subjects: Set<SubjectKey>
  warmup: boolean
  /** V8's flags for every browser (`--js-flags`): a diagnosis, so no budget is judged. */
  jsFlags?: string
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    quick: false,
    runs: 3,
    only: new Set(SCENARIOS),
    build: true,
    out: join(BENCH, 'results.json'),
    saveBaseline: false,
    trace: false,
    subjects: new Set(SUBJECTS.map((s) => s.key)),
    warmup: true,
  }
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
      const names = value().split(',').flatMap((n) => GROUPS[n] ?? [n])
      for (const n of names) if (!(SCENARIOS as readonly string[]).includes(n)) throw new Error(`unknown scenario "${n}" (known: ${SCENARIOS.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')})`)
      opts.only = new Set(names as ScenarioKey[])
    } else if (arg === '--no-build') opts.build = false
    else if (arg === '--no-warmup') opts.warmup = false
    else if (arg === '--js-flags') opts.jsFlags = value()
    else if (arg === '--out') opts.out = value()
    else if (arg === '--save-baseline') opts.saveBaseline = true
    else if (arg === '--report') opts.report = value()
    else if (arg === '--trace') opts.trace = true
    else if (arg === '--subjects') {
      const keys = value().split(',')
      const known = SUBJECTS.map((s) => s.key as string)
      for (const k of keys) if (!known.includes(k)) throw new Error(`unknown subject "${k}" (known: ${known.join(', ')})`)
      opts.subjects = new Set(keys as SubjectKey[])
    }
    else if (arg === '--help' || arg === '-h') {
      console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0])
      process.exit(0)
    } else throw new Error(`unknown argument ${arg}`)
  }
  if (opts.quick) opts.runs = 1
  if (opts.subjects.size < SUBJECTS.length && opts.saveBaseline && !opts.report) throw new Error('a baseline needs every subject')
  if (opts.trace && opts.saveBaseline && !opts.report) throw new Error('a traced run is slowed by the trace: it cannot be the baseline')
  return opts
}

/** Sizes of each scenario: the full benchmark, or the quick one that only proves it still runs. */
function sizes(quick: boolean) {
  return quick
    ? {
        deltas: 1000,
        rate: 2000,
        shortHistory: 20,
        longHistory: 1000,
        typing: 'quick typing test',
        typingDelayMs: 20,
        scrollSteps: 5,
        retryCycles: 50,
        steps: { textDeltas: 1000, tools: 6, pairs: 1, inputChars: 64 * 1024 },
        stepsHistory: 200,
        sessions: { session1k: 200, session10k: 500, session100k: 1000, session100kSteps: 1000 },
        growthScrollSteps: 5,
        growthOpens: 2,
        growthScrollCapMs: 20_000,
        findCapMs: 5000,
        warmupDeltas: 500,
      }
    : {
        deltas: 20_000,
        rate: 2000,
        shortHistory: 20,
        longHistory: 10_000,
        typing: 'While this streams I keep typing a follow-up question, sixty.',
        typingDelayMs: 60,
        scrollSteps: 40,
        retryCycles: 1000,
        steps: { textDeltas: 20_000, tools: 30, pairs: 5, inputChars: 2 * 2 ** 20 },
        stepsHistory: 2000,
        sessions: { session1k: 1000, session10k: 10_000, session100k: 100_000, session100kSteps: 100_000 },
        growthScrollSteps: 40,
        growthOpens: 3,
        growthScrollCapMs: 120_000,
        findCapMs: 15_000,
        warmupDeltas: 2000,
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

/** The machine's CPU counters (Linux /proc/stat, all cores): total and stolen jiffies. */
function cpuCounters(): { total: number; steal: number; idle: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal …: idle and iowait are time no one used.
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0, idle: (fields[3] ?? 0) + (fields[4] ?? 0) }
  } catch {
    return undefined
  }
}

/** The machine's CPU in use between two readings (all cores, every process), in percent. */
function loadPct(from: ReturnType<typeof cpuCounters>, to: ReturnType<typeof cpuCounters>): number | undefined {
  if (!from || !to || to.total <= from.total) return undefined
  return Math.round((1 - (to.idle - from.idle) / (to.total - from.total)) * 1000) / 10
}

/** A quarter-second window of the machine under this share of its CPU counts as quiet. */
const QUIET_LOAD_PCT = 15
/** Windows in a row that must be quiet before a run starts. */
const QUIET_WINDOWS = 2
/** Longest wait for quiet; a run after it starts anyway, and says how loaded the machine was. */
const QUIET_CAP_MS = 20_000

/**
 * Waits until the machine is quiet before a measured run: a subject before it (the peer, whose
 * page lags its stream by tens of seconds) can leave a renderer tearing down, a garbage
 * collection or the daemon's buffers draining for seconds after its page closed, and on two
 * cores that work takes its share from whichever page runs next. Returns how long it waited and
 * the load of the last window.
 */
async function waitForQuiet(): Promise<{ waitedMs: number; loadPct: number | undefined }> {
  const started = Date.now()
  let quiet = 0
  let load: number | undefined
  let last = cpuCounters()
  if (!last) return { waitedMs: 0, loadPct: undefined }
  while (quiet < QUIET_WINDOWS && Date.now() - started < QUIET_CAP_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    const now = cpuCounters()
    load = loadPct(last, now)
    last = now
    quiet = load !== undefined && load < QUIET_LOAD_PCT ? quiet + 1 : 0
  }
  return { waitedMs: Date.now() - started, loadPct: load }
}

/**
 * The share of the machine's CPU time taken by its host for other guests between two readings
 * (steal), in percent. A run with steal in it was slowed by something outside the benchmark.
 */
function stealPct(from: ReturnType<typeof cpuCounters>, to: ReturnType<typeof cpuCounters>): number | undefined {
  if (!from || !to || to.total <= from.total) return undefined
  return Math.round(((to.steal - from.steal) / (to.total - from.total)) * 1000) / 10
}

// --- Figures per scenario ------------------------------------------------------------------

/** How long after the last delta a subject may take to show the final text before the run gives up on it. */
const FINAL_CAP_MS = 30_000

/** Every browser scenario's runs say how much CPU the host took from them (see stealPct). */
const STEAL_FIGURE: Figure = { key: 'stealPct', label: 'CPU stolen by the host during the run', unit: '%', read: field('stealPct') }

const STREAM_FIGURES: Figure[] = [
  { key: 'busyMs', label: 'main-thread busy', unit: 'ms', digits: 0, read: field('busyMs') },
  { key: 'threadCpuMs', label: 'main-thread CPU time', unit: 'ms', digits: 0, read: field('threadCpuMs') },
  { key: 'processCpuMs', label: 'page process CPU time, all threads', unit: 'ms', digits: 0, read: field('processCpuMs') },
  { key: 'domUpdates', label: 'DOM updates until the final text', unit: 'count', digits: 0, read: field('domUpdates') },
  { key: 'scriptMs', label: '… of which script', unit: 'ms', digits: 0, read: field('scriptMs') },
  { key: 'layoutMs', label: '… of which layout', unit: 'ms', digits: 0, read: field('layoutMs') },
  { key: 'styleMs', label: '… of which style', unit: 'ms', digits: 0, read: field('styleMs') },
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
  { key: 'historyReads', label: 'history reads after the send', unit: 'count', digits: 0, read: field('historyReads') },
  STEAL_FIGURE,
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
  STEAL_FIGURE,
]

const TYPING_FIGURES: Figure[] = [
  { key: 'p95Ms', label: 'keydown → next paint p95', unit: 'ms', read: field('typing.p95Ms') },
  { key: 'maxMs', label: 'keydown → next paint, slowest', unit: 'ms', read: field('typing.maxMs') },
  { key: 'over50', label: 'keys over 50 ms', unit: 'count', digits: 0, read: field('typing.over50') },
  { key: 'reported', label: 'keys of 16 ms or more', unit: 'count', digits: 0, read: field('typing.reported') },
  { key: 'keys', label: 'keys typed', unit: 'count', digits: 0, read: field('typing.keys') },
  { key: 'busyMs', label: 'main-thread busy (stream + typing)', unit: 'ms', digits: 0, read: field('busyMs') },
  { key: 'finalMs', label: 'last delta → final text on screen', unit: 'ms', digits: 0, read: field('finalMs') },
  STEAL_FIGURE,
]

const GROWTH_FIGURES: Figure[] = [
  { key: 'lastPaintedMs', label: 'open: navigation → last message painted', unit: 'ms', digits: 0, read: neverIf('openNever', 'lastPaintedMs') },
  { key: 'pairLastPaintedMs', label: '… the shortest session’s open beside it (session1k), in turn on the same browser', unit: 'ms', digits: 0, read: field('pairLastPaintedMs') },
  { key: 'openToPairRatio', label: '… the open against that one’s', unit: '×', digits: 2, read: field('openToPairRatio') },
  { key: 'readsBeforePaint', label: 'history reads before that paint', unit: 'count', digits: 0, read: field('readsBeforePaint') },
  { key: 'readMBBeforePaint', label: 'history read before that paint', unit: 'MB', digits: 2, read: field('readMBBeforePaint') },
  { key: 'peakHeapMB', label: 'peak JS heap while opening', unit: 'MB', read: field('peakHeapMB') },
  { key: 'loadLongTaskMaxMs', label: 'longest task while opening', unit: 'ms', digits: 0, read: field('loadLongTaskMaxMs') },
  { key: 'rows', label: 'message rows in the DOM', unit: 'count', digits: 0, read: field('rows') },
  { key: 'findMs', label: 'find the first message’s word: → hit shown', unit: 'ms', digits: 0, read: neverIf('findNever', 'findMs') },
  { key: 'findSearches', label: '… search requests', unit: 'count', digits: 0, read: field('findSearches') },
  { key: 'findReads', label: '… history reads', unit: 'count', digits: 0, read: field('findReads') },
  { key: 'scrollUpMs', label: 'scroll: newest → very first message shown', unit: 'ms', digits: 0, read: neverIf('firstNever', 'scrollUpMs') },
  { key: 'scrollMs', label: 'scroll: there and back in all', unit: 'ms', digits: 0, read: field('scrollMs') },
  { key: 'scrollJumps', label: 'scroll: jumps', unit: 'count', digits: 0, read: field('scrollJumps') },
  { key: 'scrollLongTaskCount', label: 'long tasks while scrolling', unit: 'count', digits: 0, read: field('scrollLongTaskCount') },
  { key: 'scrollLongTaskMaxMs', label: 'longest task while scrolling', unit: 'ms', digits: 0, read: field('scrollLongTaskMaxMs') },
  { key: 'scrollLongFrameCount', label: 'frames over 50 ms while scrolling (one task or several)', unit: 'count', digits: 0, read: field('scrollLongFrameCount') },
  { key: 'scrollLongFrameMaxMs', label: 'longest frame while scrolling, when over 50 ms', unit: 'ms', digits: 0, read: field('scrollLongFrameMaxMs') },
  { key: 'scrollRafP99Ms', label: 'rAF interval p99 while scrolling', unit: 'ms', read: field('scrollRafP99Ms') },
  { key: 'maxJumpPx', label: 'row under the pointer moved by, at most', unit: 'px', read: field('maxJumpPx') },
  { key: 'heapBeforeScrollMB', label: 'JS heap after GC, before scrolling (the main thread’s and the workers’)', unit: 'MB', read: field('heapBeforeScrollMB') },
  { key: 'heapAfterScrollMB', label: 'JS heap after GC, back at the newest (the main thread’s and the workers’)', unit: 'MB', read: field('heapAfterScrollMB') },
  { key: 'workersBeforeScrollMB', label: '… of the heap before, the workers’ (stream, highlighting)', unit: 'MB', digits: 2, read: field('workersBeforeScrollMB') },
  { key: 'workersAfterScrollMB', label: '… of the heap after, the workers’', unit: 'MB', digits: 2, read: field('workersAfterScrollMB') },
  { key: 'heapScrollGrowthPct', label: 'JS heap growth over the scroll', unit: '%', read: field('heapScrollGrowthPct') },
  { key: 'heapScrollGrowthMB', label: 'JS heap growth over the scroll', unit: 'MB', digits: 2, read: field('heapScrollGrowthMB') },
  { key: 'workersAfterScroll', label: 'dedicated workers of the page, back at the newest', unit: 'count', digits: 0, read: field('workersAfterScroll') },
  { key: 'codeBeforeScrollMB', label: '… of the heap before, compiled code (heap snapshot)', unit: 'MB', digits: 2, read: field('codeBeforeScrollMB') },
  { key: 'codeAfterScrollMB', label: '… of the heap after, compiled code (heap snapshot)', unit: 'MB', digits: 2, read: field('codeAfterScrollMB') },
  { key: 'heapScrollCodeGrowthPct', label: '… of which the main thread’s compiled code', unit: '%', read: field('heapScrollCodeGrowthPct') },
  { key: 'heapScrollWorkersGrowthPct', label: '… of which the workers’ heaps', unit: '%', read: field('heapScrollWorkersGrowthPct') },
  { key: 'heapScrollPreviousRenderPct', label: '… of which new data only React’s previous render holds (its fibers’ `alternate`)', unit: '%', read: field('heapScrollPreviousRenderPct') },
  { key: 'heapScrollGrowthRestPct', label: 'JS heap growth over the scroll, the compiled code’s, the workers’ and React’s previous render’s left out', unit: '%', read: field('heapScrollGrowthRestPct') },
  { key: 'heapAfterSecondScrollMB', label: 'JS heap after GC, back at the newest after the same trip again', unit: 'MB', read: field('heapAfterSecondScrollMB') },
  { key: 'codeAfterSecondScrollMB', label: '… of it, compiled code (heap snapshot)', unit: 'MB', digits: 2, read: field('codeAfterSecondScrollMB') },
  { key: 'heapSecondScrollGrowthPct', label: 'JS heap growth over the second trip (points of the heap before the first)', unit: '%', read: field('heapSecondScrollGrowthPct') },
  { key: 'heapSecondScrollCodeGrowthPct', label: '… of which compiled code', unit: '%', read: field('heapSecondScrollCodeGrowthPct') },
  STEAL_FIGURE,
]

const RETRY_FIGURES: Figure[] = [
  { key: 'heapWarmupKB', label: 'heap growth over the warm-up (JIT, bounded stores filling)', unit: 'KB', digits: 0, read: field('heapWarmupKB') },
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

/** Set by SIGINT/SIGTERM: no further run starts while the browsers and the daemon are closed. */
let interrupted = false

async function runBrowserScenario(
  name: string,
  runs: number,
  subjects: Subject[],
  figures: Figure[],
  once: (subject: Subject, run: number) => Promise<Record<string, unknown>>,
): Promise<ScenarioResults> {
  const collected: Partial<Record<SubjectKey, Array<RunOutcome<Record<string, unknown>>>>> = {}
  // Subjects take turns within each round, so a change in the machine's load spreads over all of them.
  for (let i = 1; i <= runs; i++) {
    for (const subject of subjects) {
      if (interrupted) throw new Error('interrupted')
      const settled = await waitForQuiet()
      if (settled.loadPct === undefined || settled.loadPct >= QUIET_LOAD_PCT || settled.waitedMs > 1000)
        log(`${name} ${subject.label} run ${i}/${runs}: waited ${(settled.waitedMs / 1000).toFixed(1)} s for a quiet machine (load ${settled.loadPct ?? 'n/a'}%)`)
      const started = Date.now()
      const counters = cpuCounters()
      let outcome: RunOutcome<Record<string, unknown>>
      try {
        outcome = { ok: true, ...(await once(subject, i)) }
        const steal = stealPct(counters, cpuCounters())
        outcome.stealPct = steal
        log(`${name} ${subject.label} run ${i}/${runs}: ${summary(outcome, figures)} (${((Date.now() - started) / 1000).toFixed(1)} s, steal ${steal ?? 'n/a'}%)`)
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

type Settings = ReturnType<typeof sizes> & {
  firstTokenMs: number
  replyCharacters: number
  longHistoryWithSuperseded: number
  /** V8's flags the browsers ran with (`--js-flags`); absent for the product's own figures. */
  jsFlags?: string
  /** The steps reply: events in all, and of them tool input deltas. */
  stepsEvents?: number
  stepsInputDeltas?: number
  /** Messages on the wire of each generated session (superseded ones included). */
  sessionLengths?: Record<string, number>
  stepsHistoryLength?: number
}

type Results = {
  date: string
  mode: 'quick' | 'full'
  runsPerScenario: number
  machine: Record<string, unknown> & { cpu?: string; cores?: number; loadAtStart?: string; loadAtEnd?: string }
  versions: Record<string, unknown> & { chromium?: string; node?: string; rebound?: { commit?: string; branch?: string; dirty?: boolean } }
  settings: Settings
  unexpectedRequests: Record<string, number>
  budgets?: Array<Omit<Budget, 'holds'> & { holds: boolean | null }>
  /** What a reader must know about how these results came about (e.g. a scenario taken again). */
  notes?: string[]
  scenarios: { bundle?: BundleResult } & Partial<Record<Exclude<ScenarioKey, 'bundle'>, ScenarioResults>>
}

const FIGURES: Record<Exclude<ScenarioKey, 'bundle'>, Figure[]> = {
  stream20: STREAM_FIGURES,
  stream10k: STREAM_FIGURES,
  history: HISTORY_FIGURES,
  typing: TYPING_FIGURES,
  steps: STREAM_FIGURES,
  stepsTyping: TYPING_FIGURES,
  stepsHistory: HISTORY_FIGURES,
  session1k: GROWTH_FIGURES,
  session10k: GROWTH_FIGURES,
  session100k: GROWTH_FIGURES,
  session100kSteps: GROWTH_FIGURES,
  retry: RETRY_FIGURES,
}

/** The tables and budgets of a set of results (just measured, or read back with --report). */
function describe(results: Results, baseline: Results | undefined): { tables: string[]; budgets: Budget[] } {
  const { scenarios, settings: size } = results
  const tables: string[] = []
  const budgets: Budget[] = []
  const baseFor = (name: Exclude<ScenarioKey, 'bundle'>) => baseline?.scenarios[name]?.rebound?.median as Record<string, number> | undefined
  const n = (v: number) => v.toLocaleString('en-US')

  const bundle = scenarios.bundle
  if (bundle) {
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

  /** Rebound's and the floor's median of one figure in one scenario. */
  const med = (key: Exclude<ScenarioKey, 'bundle'>, subject: SubjectKey, figure: string) => scenarios[key]?.[subject]?.median[figure]
  /** The floor's figure beside a budget line, with Rebound's ratio to it. */
  const floorOf = (key: Exclude<ScenarioKey, 'bundle'>, figure: string, unit: string, digits = 1) => floorCell(med(key, 'rebound', figure), med(key, 'floor', figure), unit, digits)
  const ms = (v: number | undefined, digits = 0) => (v === undefined || v === Infinity ? fmt(v) : `${fmt(v, digits)} ms`)

  for (const key of ['stream20', 'stream10k', 'steps'] as const) {
    const r = scenarios[key]
    if (!r) continue
    const messages = key === 'stream10k' ? size.longHistory : size.shortHistory
    const steps = key === 'steps' && size.steps
    tables.push(
      tableFor(
        steps
          ? `Stream with agent steps: ${n(messages)} history messages, one reply of ${n(size.steps.textDeltas)} text deltas around ${n(size.steps.tools)} tool calls (${n(size.steps.pairs)} steps of two at once), ${fmt(size.steps.inputChars / 2 ** 20, 2)} MiB of tool input in ${n(size.stepsInputDeltas ?? 0)} deltas, outputs of 1–16 KiB (${n(size.stepsEvents ?? 0)} events at ${n(size.rate)}/s, tool run times on top)`
          : `Stream: ${n(messages)} history messages, one reply of ${n(size.deltas)} deltas (${n(size.replyCharacters)} characters) at ${n(size.rate)}/s`,
        STREAM_FIGURES,
        r,
        baseFor(key),
      ),
    )
    const m = (k: SubjectKey, f: string) => r[k]?.median[f]
    const label = key === 'steps' ? `steps stream, ${n(messages)} messages` : `stream, ${n(messages)} messages`
    const peerBusy = m('peerThrottled', 'busyMs')
    const peerHeap = m('peerThrottled', 'peakHeapMB')
    budgets.push({ scenario: label, name: 'no long task over 50 ms', value: `${fmt(m('rebound', 'longTaskCount'), 0)} long tasks`, holds: atMost(m('rebound', 'longTaskCount'), 0), floor: floorOf(key, 'longTaskCount', '') })
    if (key === 'steps') {
      const floorP99 = m('floor', 'rafP99Ms')
      const textBusy = med('stream20', 'rebound', 'busyMs')
      budgets.push(
        {
          scenario: label,
          name: 'rAF interval p99 within a frame (16.7 ms) of the floor’s',
          value: ms(m('rebound', 'rafP99Ms'), 1),
          holds: atMost(m('rebound', 'rafP99Ms'), floorP99 === undefined ? undefined : floorP99 + 16.7),
          floor: floorOf(key, 'rafP99Ms', 'ms'),
        },
        {
          scenario: label,
          name: 'main-thread busy ≤ 1.5× Rebound’s own on the text stream',
          value: `${ms(m('rebound', 'busyMs'))} vs ${ms(textBusy)}`,
          holds: atMost(m('rebound', 'busyMs'), textBusy === undefined ? undefined : 1.5 * textBusy),
          floor: floorOf(key, 'busyMs', 'ms', 0),
        },
        { scenario: label, name: 'final text within 50 ms of the last delta', value: ms(m('rebound', 'finalMs')), holds: atMost(m('rebound', 'finalMs'), 50), floor: floorOf(key, 'finalMs', 'ms', 0) },
      )
      continue
    }
    budgets.push(
      { scenario: label, name: 'rAF interval p99 ≤ 20 ms', value: ms(m('rebound', 'rafP99Ms'), 1), holds: atMost(m('rebound', 'rafP99Ms'), 20), floor: floorOf(key, 'rafP99Ms', 'ms') },
      { scenario: label, name: 'rAF interval p99 ≤ 17 ms (issue 29)', value: ms(m('rebound', 'rafP99Ms'), 1), holds: atMost(m('rebound', 'rafP99Ms'), 17), floor: floorOf(key, 'rafP99Ms', 'ms') },
      { scenario: label, name: 'final text within 50 ms of the last delta', value: ms(m('rebound', 'finalMs')), holds: atMost(m('rebound', 'finalMs'), 50), floor: floorOf(key, 'finalMs', 'ms', 0) },
      { scenario: label, name: 'at most one history read per send', value: `${fmt(m('rebound', 'historyReads'), 0)} reads`, holds: atMost(m('rebound', 'historyReads'), 1), floor: floorOf(key, 'historyReads', 'reads', 0) },
      {
        scenario: label,
        name: 'peak heap ≤ 2× the throttled peer’s',
        value: `${fmt(m('rebound', 'peakHeapMB'))} MB vs ${fmt(peerHeap)} MB`,
        holds: atMost(m('rebound', 'peakHeapMB'), peerHeap === undefined ? undefined : 2 * peerHeap),
        floor: floorOf(key, 'peakHeapMB', 'MB'),
      },
      {
        scenario: label,
        name: 'main-thread busy ≤ half the throttled peer’s',
        value: `${ms(m('rebound', 'busyMs'))} vs ${ms(peerBusy)}`,
        holds: atMost(m('rebound', 'busyMs'), peerBusy === undefined ? undefined : peerBusy / 2),
        floor: floorOf(key, 'busyMs', 'ms', 0),
      },
    )
    if (key === 'stream20') {
      const floorBusy = m('floor', 'busyMs')
      budgets.push({
        scenario: label,
        name: 'main-thread busy ≤ 1.5× the floor’s (issue 29)',
        value: ms(m('rebound', 'busyMs')),
        holds: atMost(m('rebound', 'busyMs'), floorBusy === undefined ? undefined : 1.5 * floorBusy),
        floor: floorOf(key, 'busyMs', 'ms', 0),
      })
    }
  }

  for (const key of ['history', 'stepsHistory'] as const) {
    const history = scenarios[key]
    if (!history) continue
    const steps = key === 'stepsHistory'
    const messages = steps ? (size.stepsHistory ?? 0) : size.longHistory
    const onWire = steps ? (size.stepsHistoryLength ?? messages) : size.longHistoryWithSuperseded
    tables.push(
      tableFor(
        `History: a ${n(messages)}-message session (${n(onWire - messages)} more superseded)${steps ? ', every reply with agent steps (reasoning, one or two tools with input and output, usage)' : ''}, scrolled top and back in ${size.scrollSteps} jumps each way`,
        HISTORY_FIGURES,
        history,
        baseFor(key),
      ),
    )
    const m = (k: SubjectKey, f: string) => history[k]?.median[f]
    const peerLoad = m('peerThrottled', 'lastPaintedMs')
    const label = steps ? 'steps history' : 'history'
    budgets.push(
      { scenario: label, name: '< 60 message rows in the DOM', value: `${fmt(m('rebound', 'rows'), 0)} rows`, holds: below(m('rebound', 'rows'), 60) },
      {
        scenario: label,
        name: 'last message painted in ≤ half the peer’s time',
        value: `${ms(m('rebound', 'lastPaintedMs'))} vs ${ms(peerLoad)}`,
        holds: atMost(m('rebound', 'lastPaintedMs'), peerLoad === undefined ? undefined : peerLoad / 2),
      },
      { scenario: label, name: 'no long task while scrolling', value: `${fmt(m('rebound', 'scrollLongTaskCount'), 0)} long tasks`, holds: atMost(m('rebound', 'scrollLongTaskCount'), 0) },
      {
        scenario: label,
        name: 'expanding earlier versions does not move its button',
        value: `${fmt(m('rebound', 'expandJumpPx'), 0)} px`,
        holds: atMost(m('rebound', 'expandJumpPx') === undefined ? undefined : Math.abs(m('rebound', 'expandJumpPx') as number), 0.5),
      },
    )
    if (steps) {
      const textLoad = med('history', 'rebound', 'lastPaintedMs')
      budgets.push({
        scenario: label,
        name: `last message painted ≤ 1.5× the ${n(size.longHistory)}-message text history’s`,
        value: `${ms(m('rebound', 'lastPaintedMs'))} vs ${ms(textLoad)}`,
        holds: atMost(m('rebound', 'lastPaintedMs'), textLoad === undefined ? undefined : 1.5 * textLoad),
      })
    }
  }

  for (const key of ['typing', 'stepsTyping'] as const) {
    const typing = scenarios[key]
    if (!typing) continue
    const steps = key === 'stepsTyping'
    tables.push(
      tableFor(
        `Typing while streaming: ${size.typing.length} characters into the composer during the ${n(size.shortHistory)}-message ${steps ? 'stream with agent steps' : 'stream'}`,
        TYPING_FIGURES,
        typing,
        baseFor(key),
      ),
    )
    const m = (f: string, k: SubjectKey = 'rebound') => typing[k]?.median[f]
    const label = steps ? 'typing, steps stream' : 'typing'
    budgets.push(
      { scenario: label, name: 'keydown → paint p95 < 24 ms', value: ms(m('p95Ms'), 1), holds: below(m('p95Ms'), 24), floor: floorOf(key, 'p95Ms', 'ms') },
      { scenario: label, name: 'no key over 50 ms', value: `${fmt(m('over50'), 0)} keys`, holds: atMost(m('over50'), 0), floor: floorOf(key, 'over50', 'keys', 0) },
    )
    if (steps) {
      const textP95 = med('typing', 'rebound', 'p95Ms')
      budgets.push({
        scenario: label,
        name: 'keydown → paint p95 no worse than on the text stream',
        value: `${ms(m('p95Ms'), 1)} vs ${ms(textP95, 1)}`,
        holds: atMost(m('p95Ms'), textP95),
        floor: floorOf(key, 'p95Ms', 'ms'),
      })
    } else {
      budgets.push({ scenario: label, name: 'keydown → paint p95 ≤ the floor’s (issue 29)', value: ms(m('p95Ms'), 1), holds: atMost(m('p95Ms'), m('p95Ms', 'floor')), floor: floorOf(key, 'p95Ms', 'ms') })
    }
  }

  for (const key of GROWTH_KEYS) {
    const r = scenarios[key]
    if (!r) continue
    const messages = size.sessions?.[key] ?? 0
    tables.push(
      tableFor(
        `Growth: a ${n(messages)}-message session (${n(size.sessionLengths?.[key] ?? messages)} on the wire with superseded versions every 100th exchange), replies with code${key === 'session100kSteps' ? ' and agent steps' : ''}: open (each run the median of ${size.growthOpens ?? 1} fresh pages, the peer's one), find the first message’s word, scroll to the first message and back (${size.growthScrollSteps ?? '?'} jumps each way, then to the end)`,
        GROWTH_FIGURES,
        r,
        baseFor(key),
      ),
    )
  }
  const g = (key: (typeof GROWTH_KEYS)[number], f: string, k: SubjectKey = 'rebound') => scenarios[key]?.[k]?.median[f]
  const sizeOf = (key: (typeof GROWTH_KEYS)[number]) => n(size.sessions?.[key] ?? 0)
  if (scenarios.session100k && scenarios.session1k) {
    const small = g('session1k', 'lastPaintedMs')
    const smallHeap = g('session1k', 'peakHeapMB')
    // Judged on the opens taken in turn within the 100,000 scenario's runs when it has them (the
    // two scenarios' own medians, minutes apart, carry the machine's drift between them).
    const paired = g('session100k', 'openToPairRatio')
    const large = g('session100k', 'lastPaintedMs')
    const medians = `${ms(large)} vs ${ms(small)}`
    budgets.push(
      {
        scenario: 'growth',
        name: `open ${sizeOf('session100k')} ≤ 1.1× open ${sizeOf('session1k')}`,
        value: paired === undefined ? medians : `${fmt(paired, 2)}×, opened in turn (${ms(large)} vs ${ms(g('session100k', 'pairLastPaintedMs'))}); the scenarios’ medians ${medians}`,
        holds: paired === undefined ? atMost(large, small === undefined ? undefined : 1.1 * small) : atMost(paired, 1.1),
      },
      {
        scenario: 'growth',
        name: `peak heap opening ${sizeOf('session100k')} ≤ 1.2× opening ${sizeOf('session1k')}`,
        value: `${fmt(g('session100k', 'peakHeapMB'))} MB vs ${fmt(smallHeap)} MB`,
        holds: atMost(g('session100k', 'peakHeapMB'), smallHeap === undefined ? undefined : 1.2 * smallHeap),
      },
    )
  }
  if (scenarios.session100k && scenarios.session10k) {
    const peer = g('session10k', 'lastPaintedMs', 'peerThrottled')
    budgets.push({
      scenario: 'growth',
      name: `open ${sizeOf('session100k')} ≥ 10× faster than the peer opens ${sizeOf('session10k')}`,
      value: `${ms(g('session100k', 'lastPaintedMs'))} vs ${ms(peer)}`,
      holds: atMost(g('session100k', 'lastPaintedMs'), peer === undefined ? undefined : peer / 10),
    })
  }
  for (const key of GROWTH_KEYS) {
    if (!scenarios[key]) continue
    const label = `growth, ${sizeOf(key)}${key === 'session100kSteps' ? ' with steps' : ''}`
    budgets.push({ scenario: label, name: '≤ 2 history reads before the first paint', value: `${fmt(g(key, 'readsBeforePaint'), 0)} reads`, holds: atMost(g(key, 'readsBeforePaint'), 2) })
    if (key !== 'session100k' && key !== 'session100kSteps') continue
    budgets.push(
      { scenario: label, name: 'find: the hit shown within 500 ms', value: ms(g(key, 'findMs')), holds: atMost(g(key, 'findMs'), 500) },
      { scenario: label, name: 'scroll reaches the very first message', value: ms(g(key, 'scrollUpMs')), holds: g(key, 'scrollUpMs') === undefined ? undefined : Number.isFinite(g(key, 'scrollUpMs')) },
      { scenario: label, name: 'scroll: no long task', value: `${fmt(g(key, 'scrollLongTaskCount'), 0)} long tasks`, holds: atMost(g(key, 'scrollLongTaskCount'), 0) },
      { scenario: label, name: 'scroll: the row under the pointer moves < 2 px', value: `${fmt(g(key, 'maxJumpPx'))} px`, holds: below(g(key, 'maxJumpPx'), 2) },
      {
        scenario: label,
        name: 'scroll: heap back within 10%',
        value: `${fmt(g(key, 'heapScrollGrowthPct'))}%, ${fmt(g(key, 'heapScrollGrowthMB'), 2)} MB (compiled code ${fmt(g(key, 'heapScrollCodeGrowthPct'))} points, the workers ${fmt(g(key, 'heapScrollWorkersGrowthPct'))}, React’s previous render ${fmt(g(key, 'heapScrollPreviousRenderPct'))}, the rest ${fmt(g(key, 'heapScrollGrowthRestPct'))}; a second trip ${fmt(g(key, 'heapSecondScrollGrowthPct'))} more, compiled code ${fmt(g(key, 'heapSecondScrollCodeGrowthPct'))} of it)`,
        holds: atMost(g(key, 'heapScrollGrowthPct'), 10),
        floor: heapFloorCell(g(key, 'heapScrollGrowthPct'), g(key, 'heapScrollGrowthPct', 'floor'), g(key, 'heapScrollGrowthPct', 'floorReact'), 10),
      },
    )
  }

  const retry = scenarios.retry
  if (retry) {
    const first = retry.rebound?.runs[0]
    const target = first?.ok ? String((first as Record<string, unknown>).target ?? '') : ''
    tables.push(
      tableFor(
        `Retry cycles: ${n(size.retryCycles)} arm/cancel and ${n(size.retryCycles)} arm/dispatch/fail cycles of the tier 2 scheduler${target ? `, on ${target}` : ''}`,
        RETRY_FIGURES,
        retry,
        baseFor('retry'),
        [SUBJECTS[0] as Subject],
      ),
    )
    const m = (f: string) => retry.rebound?.median[f]
    budgets.push(
      { scenario: 'retry cycles', name: 'heap growth < 1 MB', value: `${fmt(m('heapGrowthKB'), 0)} KB`, holds: below(m('heapGrowthKB'), 1024) },
      { scenario: 'retry cycles', name: 'no timers left', value: `${fmt(m('timersLeft'), 0)}`, holds: atMost(m('timersLeft'), 0) },
      { scenario: 'retry cycles', name: 'no listeners left', value: `${fmt(m('listenersLeft'), 0)}`, holds: atMost(m('listenersLeft'), 0) },
    )
  }
  return { tables, budgets }
}

function print(results: Results, baseline: Results | undefined, note: string) {
  const { tables, budgets } = describe(results, baseline)
  const header = [
    `## Rebound benchmark — ${results.mode}, ${results.runsPerScenario} run(s) per scenario, medians`,
    '',
    `${results.date} · ${results.machine.cpu ?? '?'} × ${results.machine.cores ?? '?'} · node ${results.versions.node ?? '?'} · Chromium ${results.versions.chromium ?? 'n/a'} · Rebound ${results.versions.rebound?.commit?.slice(0, 10) ?? '?'} (${results.versions.rebound?.branch ?? '?'})`,
    `Load at start: ${results.machine.loadAtStart ?? '?'}`,
    `Load at end: ${results.machine.loadAtEnd ?? '?'}`,
    ...(results.notes ?? []).map((note) => `Note: ${note}`),
  ]
  const unexpected = Object.entries(results.unexpectedRequests ?? {})
  const unexpectedLines = unexpected.length ? ['', `Requests the fake daemon does not serve: ${unexpected.map(([k, c]) => `${k} ×${c}`).join('; ')}`] : []
  console.log([...header, ...unexpectedLines, '', ...tables.flatMap((t) => [t, '']), budgetTable(budgets, unjudged(results)), '', note].join('\n'))
  return budgets
}

/** Why a run's budgets are not judged: a quick run's figures are too short, a run with V8's flags changed is not the product's. */
const unjudged = (results: Results) => (results.mode === 'quick' ? '--quick' : results.settings.jsFlags ? `--js-flags ${results.settings.jsFlags}` : undefined)

/** --report FILE: the medians re-taken from the raw runs (with today's figures), and the tables. */
function report(file: string, baseline: Results | undefined) {
  const results = JSON.parse(readFileSync(file, 'utf8')) as Results
  for (const [key, figures] of Object.entries(FIGURES) as Array<[Exclude<ScenarioKey, 'bundle'>, Figure[]]>) {
    const scenario = results.scenarios[key]
    if (!scenario) continue
    for (const subject of Object.values(scenario)) if (subject) subject.median = medians(subject.runs, figures)
  }
  print(results, baseline, `Read from ${file}.`)
  return results
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const baselinePath = join(BENCH, 'baseline.json')
  const baseline = !opts.saveBaseline && existsSync(baselinePath) ? (JSON.parse(readFileSync(baselinePath, 'utf8')) as Results) : undefined
  if (opts.report) {
    const results = report(opts.report, resolve(opts.report) === baselinePath ? undefined : baseline)
    // Promotes saved results to the baseline, their medians re-taken with today's figures.
    if (opts.saveBaseline) writeFileSync(baselinePath, `${JSON.stringify(results, null, 2)}\n`)
    return
  }

  const size = sizes(opts.quick)
  const loadAtStart = uptime()
  // Taken before anything runs: what was measured is the tree as it was then.
  const rebound = { commit: git(['rev-parse', 'HEAD']), branch: git(['rev-parse', '--abbrev-ref', 'HEAD']), dirty: Boolean(git(['status', '--porcelain', '--', 'src', 'index.html', 'vite.config.ts'])) }
  const startedAt = new Date()
  log(`${opts.quick ? 'quick' : 'full'} benchmark, ${opts.runs} run(s) per scenario; ${loadAtStart}`)

  if (opts.build) {
    log('building the production app into bench/.out/app')
    // A traced run's source maps (not referenced from the code, which is the same) place the heap's compiled code (bench/heap-growth.ts).
    viteBuild(['--outDir', APP_DIR, '--emptyOutDir', '--logLevel', 'warn', ...(opts.trace ? ['--sourcemap', 'hidden'] : [])])
    log('building the peer into bench/.out/peer')
    viteBuild(['--config', join(BENCH, 'peer', 'vite.config.ts')])
    log('building the floor page into bench/.out/floor')
    viteBuild(['--config', join(BENCH, 'floor', 'vite.config.ts')])
  }
  for (const dir of [APP_DIR, PEER_DIR, FLOOR_DIR]) if (!existsSync(join(dir, 'index.html'))) throw new Error(`${dir}/index.html is missing: run without --no-build`)

  const scenarios: Results['scenarios'] = {}
  if (opts.only.has('bundle')) scenarios.bundle = measureBundle(APP_DIR)

  /** The browser of each subject in the scenario being run. */
  let browsers = new Map<SubjectKey, Browser>()
  let daemon: FakeDaemon | undefined
  let chromiumVersion: string | undefined
  const closeAll = async () => {
    // Taken before the wait, so a browser launched meanwhile is the next close's.
    const closing = [...browsers.values()]
    const closingDaemon = daemon
    browsers = new Map()
    daemon = undefined
    await Promise.all(closing.map((x) => x.close().catch(() => undefined)))
    await closingDaemon?.close().catch(() => undefined)
  }
  const startAll = async (subjects: readonly Subject[]) => {
    const started = await startFakeDaemon({ appDir: APP_DIR, peerDir: PEER_DIR, floorDir: FLOOR_DIR })
    daemon = started
    for (const s of subjects) {
      if (interrupted) throw new Error('interrupted')
      const launched = await withTimeout(launchBrowser(opts.jsFlags), 60_000, 'Chromium to start')
      browsers.set(s.key, launched)
      chromiumVersion ??= launched.version()
    }
    return started
  }
  const onSignal = () => {
    interrupted = true
    log('interrupted: closing the browsers and the fake daemon')
    void closeAll().finally(() => process.exit(130))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const deltas = replyDeltas(size.deltas)
  const shortHistory = listSource(`${size.shortHistory}-message history`, buildHistory({ size: size.shortHistory }))
  const longHistoryList = buildHistory({ size: size.longHistory })
  const longHistory = listSource(`${size.longHistory}-message history`, longHistoryList)
  const stream = { events: textEvents(deltas), rate: size.rate, firstTokenMs: 50 }
  const steps = stepsEvents(size.steps)
  const stepsStream = { events: steps.events, toolOutputs: steps.toolOutputs, rate: size.rate, firstTokenMs: 50 }
  const stepsHistory = generatedSession({ size: size.stepsHistory, steps: true, seed: 27 })
  // Generated per message on demand: making them costs a table of exchange starts, no messages.
  const sessions: Record<(typeof GROWTH_KEYS)[number], HistorySource> = {
    session1k: generatedSession({ size: size.sessions.session1k }),
    session10k: generatedSession({ size: size.sessions.session10k }),
    session100k: generatedSession({ size: size.sessions.session100k }),
    session100kSteps: generatedSession({ size: size.sessions.session100kSteps, steps: true }),
  }
  /** What every subject's warm-up opens in the long-session scenarios. */
  const warmSession = generatedSession({ size: 200, seed: 7 })
  const unexpected = new Map<string, number>()

  try {
    const d = () => daemon as FakeDaemon
    const b = (s: Subject) => {
      const found = browsers.get(s.key)
      if (!found) throw new Error(`no browser for ${s.label}`)
      return found
    }
    const noteUnexpected = () => {
      for (const r of d().unexpected) {
        const key = `${r.subject} ${r.method} ${r.path} → ${r.status}`
        unexpected.set(key, (unexpected.get(key) ?? 0) + 1)
      }
    }
    const subjectsOf = (key: BrowserScenario) => SUBJECTS.filter((s) => opts.subjects.has(s.key) && SCENARIO_SUBJECTS[key].includes(s.key))

    // The first run in a browser is the slowest (cold disk cache, Chromium's first compile of each
    // bundle), and a fresh browser stays slower for every run in it: each subject that takes part
    // in a scenario runs once, unmeasured, in its own browser before any figure is taken.
    // With the warm-up in the first browser alone, the 100,000-message session (a browser of its
    // own) opened in 702–769 ms against 482–511 in a browser that had had it.
    const warmUp = async (key: BrowserScenario, subjects: readonly Subject[]) => {
      if (!opts.warmup) return
      const warm = { events: textEvents(replyDeltas(size.warmupDeltas)), rate: size.rate, firstTokenMs: 50, loadTimeoutMs: 120_000, finalCapMs: FINAL_CAP_MS }
      // The long sessions' subjects open a short session, on the page their runs open (the floor's
      // paged page, not its stream page); the others stream a short reply.
      const opens = (GROWTH_KEYS as readonly string[]).includes(key)
      for (const s of subjects) {
        if (interrupted) throw new Error('interrupted')
        const started = Date.now()
        const run = opens
          ? growthRun(b(s), d(), s, warmSession, { loadTimeoutMs: 60_000, scrollSteps: 1, scrollCapMs: 5_000, findCapMs: 1_000, find: false, scroll: false })
          : streamRun(b(s), d(), s, shortHistory, warm)
        await run
          .then(() => log(`${key}: warm-up ${s.label}: ${((Date.now() - started) / 1000).toFixed(1)} s (not measured)`))
          .catch((error: unknown) => log(`${key}: warm-up ${s.label} failed (not counted): ${error instanceof Error ? error.message : String(error)}`))
      }
    }

    // Every scenario gets a fake daemon of its own, and each of its subjects a Chromium of its
    // own. One Chromium through the whole benchmark carried what every earlier page left in it
    // (the peer's 10,000-message pages above all) into the later scenarios: the steps stream,
    // measured fifth, read 1.68× the text stream in a full run, 1.2–1.3× in browsers that had run
    // little else, and 1.39× in the full run with a browser per scenario. A browser per subject
    // keeps the peers' runs of the 2 MiB steps stream out of Rebound's browser too (Rebound's
    // figures moved within their spread: bench/README.md, "Drives").
    let announced = false
    const scenario = async (key: BrowserScenario, once: (s: Subject, trace: { tracePath?: string }) => Promise<Record<string, unknown>>) => {
      // No subject chosen takes part (say `--only history --subjects floor`): nothing to start.
      const subjects = subjectsOf(key)
      if (subjects.length === 0) return {}
      await closeAll()
      const started = await startAll(subjects)
      if (!announced) log(`Chromium ${chromiumVersion}${opts.jsFlags ? ` with --js-flags="${opts.jsFlags}"` : ''}; Rebound on ${started.reboundUrl}, peer on ${started.peerUrl}`)
      announced = true
      await warmUp(key, subjects)
      return runBrowserScenario(key, opts.runs, subjects, FIGURES[key], async (s, i) => {
        const r = await once(s, opts.trace ? { tracePath: join(OUT, 'traces', `${key}-${s.key}-${i}.json`) } : {})
        noteUnexpected()
        return r
      })
    }
    const typing = { text: size.typing, delayMs: size.typingDelayMs }

    if (opts.only.has('stream20'))
      scenarios.stream20 = await scenario('stream20', (s, t) => streamRun(b(s), d(), s, shortHistory, { ...stream, ...t, loadTimeoutMs: 120_000, finalCapMs: FINAL_CAP_MS }))
    if (opts.only.has('stream10k'))
      scenarios.stream10k = await scenario('stream10k', (s, t) => streamRun(b(s), d(), s, longHistory, { ...stream, ...t, loadTimeoutMs: 240_000, finalCapMs: FINAL_CAP_MS }))
    if (opts.only.has('history'))
      scenarios.history = await scenario('history', (s, t) => historyRun(b(s), d(), s, longHistory, { loadTimeoutMs: 240_000, scrollSteps: size.scrollSteps, ...t }))
    if (opts.only.has('typing'))
      scenarios.typing = await scenario('typing', (s, t) => streamRun(b(s), d(), s, shortHistory, { ...stream, ...t, loadTimeoutMs: 120_000, finalCapMs: FINAL_CAP_MS }, typing))
    if (opts.only.has('steps'))
      scenarios.steps = await scenario('steps', (s, t) => streamRun(b(s), d(), s, shortHistory, { ...stepsStream, ...t, loadTimeoutMs: 120_000, finalCapMs: FINAL_CAP_MS }))
    if (opts.only.has('stepsTyping'))
      scenarios.stepsTyping = await scenario('stepsTyping', (s, t) => streamRun(b(s), d(), s, shortHistory, { ...stepsStream, ...t, loadTimeoutMs: 120_000, finalCapMs: FINAL_CAP_MS }, typing))
    if (opts.only.has('stepsHistory'))
      scenarios.stepsHistory = await scenario('stepsHistory', (s, t) => historyRun(b(s), d(), s, stepsHistory, { loadTimeoutMs: 240_000, scrollSteps: size.scrollSteps, ...t }))
    for (const key of GROWTH_KEYS) {
      if (!opts.only.has(key)) continue
      const source = sessions[key]
      const indexed = Date.now()
      // Search reads an index made here, outside every measured window.
      source.prepareSearch()
      log(`${key}: ${source.label}, ${source.length.toLocaleString('en-US')} messages on the wire, search index made in ${((Date.now() - indexed) / 1000).toFixed(1)} s`)
      const large = size.sessions[key] > 10_000
      scenarios[key] = await scenario(key, (s, t) =>
        growthRun(b(s), d(), s, source, {
          ...t,
          loadTimeoutMs: opts.quick ? 60_000 : s.key === 'rebound' ? (large ? 180_000 : 120_000) : 240_000,
          scrollSteps: size.growthScrollSteps,
          scrollCapMs: size.growthScrollCapMs,
          findCapMs: size.findCapMs,
          find: s.key === 'rebound',
          scroll: s.key === 'rebound' || s.key === 'floor' || s.key === 'floorReact',
          // The peer's open takes seconds (or never ends at 100,000): one is its figure.
          opens: s.key === 'peerThrottled' ? 1 : size.growthOpens,
          // Rebound's 100,000 opens each beside a 1,000 one, for the ratio between them.
          ...(key === 'session100k' && s.key === 'rebound' ? { pair: sessions.session1k } : {}),
        }),
      )
    }
  } finally {
    await closeAll()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }

  // Last, in its own node process: the scheduler's cycles.
  if (opts.only.has('retry')) {
    log(`retry cycles: ${size.retryCycles} of each kind, in node`)
    const outcome = await runRetryCycles(size.retryCycles)
    if (!outcome.ok) log(`retry cycles FAILED: ${outcome.error}`)
    else log(`retry cycles: ${summary(outcome, RETRY_FIGURES)}`)
    scenarios.retry = { rebound: { runs: [outcome], median: medians([outcome], RETRY_FIGURES) } }
  }

  let failed = 0
  for (const [name, value] of Object.entries(scenarios)) {
    if (name === 'bundle') continue
    for (const [subject, runs] of Object.entries(value as ScenarioResults)) {
      const bad = runs?.runs.filter((r) => !r.ok).length ?? 0
      // A slow peer may time out; Rebound failing, or anything failing in a quick run, means the benchmark is broken.
      if (bad && (subject === 'rebound' || opts.quick)) failed += bad
    }
  }

  const cpus = os.cpus()
  const results: Results = {
    date: startedAt.toISOString(),
    mode: opts.quick ? 'quick' : 'full',
    runsPerScenario: opts.runs,
    machine: {
      cpu: cpus[0]?.model,
      cores: cpus.length,
      memoryGB: Math.round(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()}`,
      loadAtStart,
      loadAtEnd: uptime(),
      loadavgAtEnd: os.loadavg(),
      finished: new Date().toISOString(),
    },
    versions: {
      rebound,
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
    settings: {
      ...size,
      firstTokenMs: stream.firstTokenMs,
      replyCharacters: deltas.join('').length,
      longHistoryWithSuperseded: longHistoryList.length,
      stepsEvents: steps.events.length,
      stepsInputDeltas: steps.events.filter((e) => e.event === 'tool_input').length,
      sessionLengths: Object.fromEntries(GROWTH_KEYS.map((k) => [k, sessions[k].length])),
      stepsHistoryLength: stepsHistory.length,
      ...(opts.jsFlags ? { jsFlags: opts.jsFlags } : {}),
    },
    unexpectedRequests: Object.fromEntries(unexpected),
    ...(opts.jsFlags ? { notes: [`Chromium ran with --js-flags="${opts.jsFlags}": a diagnosis of V8's share of each figure, not the product's figures`] } : {}),
    scenarios,
  }
  const { budgets } = describe(results, baseline)
  results.budgets = budgets.map((b) => ({ ...b, holds: unjudged(results) ? null : (b.holds ?? null) }))
  writeFileSync(opts.out, `${JSON.stringify(results, null, 2)}\n`)
  if (opts.saveBaseline) writeFileSync(baselinePath, `${JSON.stringify(results, null, 2)}\n`)
  print(results, baseline, `Written to ${opts.out}${opts.saveBaseline ? ` and ${baselinePath}` : ''}.`)
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
