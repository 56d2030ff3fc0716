/**
 * One run of each browser scenario, for one subject. Every wait has a timeout; every run closes
 * its context whatever happens. The figures come back raw (milliseconds, bytes); run.ts takes
 * the medians and judges the budgets.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Browser, Page } from '@playwright/test'
import { openPage, sleep, withTimeout, type BenchPage } from './browser'
import { FIRST_MARKER, HISTORY_MARKER, LAST_MARKER } from './content'
import type { FakeDaemon } from './fake-daemon'
import type { HistorySource } from './history-source'
import { textEvents, type ReplyEvent } from './steps'
import { armExpand, countRows, expandPosition, scrollTest, type LongFrame } from './page-probe'
import { intervals, percentile, round } from './stats'

export type SubjectKey = 'rebound' | 'peerDefault' | 'peerThrottled' | 'floor' | 'floorReact'

export type Subject = {
  key: SubjectKey
  label: string
  path: string
  origin: 'rebound' | 'peer'
}

/**
 * The subjects; Rebound opens the session by its address, the peer variants by query. The floor
 * (bench/floor) is a reference, not a competitor: the least a page can do with the same stream,
 * so a budget the floor itself misses is out of the machine's reach, whatever the app does.
 */
export const SUBJECTS: Subject[] = [
  { key: 'rebound', label: 'Rebound', path: '/sessions/bench', origin: 'rebound' },
  { key: 'peerDefault', label: 'peer (defaults)', path: '/', origin: 'peer' },
  { key: 'peerThrottled', label: 'peer (throttle 50)', path: '/?throttle=50', origin: 'peer' },
  { key: 'floor', label: 'floor (bare page)', path: '/floor/', origin: 'rebound' },
  // The long-session floor drawn by React (bench/floor/react-pages.ts): how much of a scroll's heap a React page starts from.
  { key: 'floorReact', label: 'floor with React', path: '/floor/react-pages.html', origin: 'rebound' },
]

export type StreamSettings = {
  /** The reply's events after `start`. */
  events: readonly ReplyEvent[]
  /** Whole outputs of the reply's tool calls. */
  toolOutputs?: ReadonlyMap<string, string>
  rate: number
  firstTokenMs: number
  /** How long to wait for the history before the send (ms). */
  loadTimeoutMs: number
  /** How long after the last delta to wait for the final text before giving up on it (ms). */
  finalCapMs: number
  /** Record a Chrome trace of the window into this file (slows the page: not for comparing figures). */
  tracePath?: string
}

/** What a trace records: the main thread's tasks, V8 (GC included) and Blink's rendering steps. */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'blink', 'blink.user_timing', 'loading', 'disabled-by-default-v8.cpu_profiler']

/** Starts a Chrome trace of `page` into `path` (its folder made if need be). */
export async function startTrace(browser: Browser, page: Page, path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true })
  await browser.startTracing(page, { path, screenshots: false, categories: TRACE_CATEGORIES })
}

/** Ends the trace and writes it; a trace that cannot be written is given up, never the run. */
export async function stopTrace(browser: Browser): Promise<void> {
  await withTimeout(browser.stopTracing(), 120_000, 'the trace').catch(() => undefined)
}

/** The composer is `#composer-input` in both apps; Enter sends. */
const COMPOSER = '#composer-input'
const PROMPT = 'Write the long report, with code.'
/** Idle time after the final text, inside the measured window (what a run does once it ends counts too). */
const TAIL_MS = 1000

function urlFor(daemon: FakeDaemon, subject: Subject) {
  return (subject.origin === 'rebound' ? daemon.reboundUrl : daemon.peerUrl) + subject.path
}

async function withPage<T extends object>(browser: Browser, markers: string[], body: (p: BenchPage) => Promise<T>): Promise<T & { pageErrors?: string[] }> {
  const p = await openPage(browser, markers)
  try {
    const result: T & { pageErrors?: string[] } = await body(p)
    if (p.errors.length) result.pageErrors = p.errors.slice(0, 5)
    return result
  } finally {
    await p.close()
  }
}

/** Opens the subject and waits until the history's last message is painted and the page is quiet. */
async function load(p: BenchPage, daemon: FakeDaemon, subject: Subject, timeoutMs: number) {
  await p.page.goto(urlFor(daemon, subject), { waitUntil: 'load', timeout: timeoutMs })
  const sighting = await p.painted(HISTORY_MARKER, timeoutMs)
  const quiet = await p.quiet(1000, 60_000)
  return { sighting, quiet }
}

export type StreamResult = {
  busyMs: number | undefined
  scriptMs: number | undefined
  layoutMs: number | undefined
  styleMs: number | undefined
  /** The main thread's CPU time: busy less the time it waited for a core. */
  threadCpuMs: number | undefined
  /** The renderer process's CPU time, all its threads (workers, compositor, raster) together. */
  processCpuMs: number | undefined
  /**
   * Batches of DOM changes from the Enter to the final text (the probe stops watching there): one
   * per commit of the reply, near enough. Busy time per update tells a cheaper commit from fewer.
   */
  domUpdates: number | undefined
  longTaskCount: number | undefined
  longTaskTotalMs: number | undefined
  longTaskMaxMs: number | undefined
  /** When each long task began, in ms from the Enter that sent the prompt. */
  longTaskAtMs: number[] | undefined
  /**
   * Frames that took over 50 ms to produce, from the Enter (start in ms from it), with the scripts
   * Chromium blames for each (Long Animation Frames): where to look first for a long task or a
   * dropped frame, without a trace's overhead. Raw, in results.json; not in the tables.
   */
  longFrames: LongFrame[] | undefined
  rafP95Ms: number | undefined
  rafP99Ms: number | undefined
  /** Lower bounds when the marker never showed (then finalMissing is true). */
  firstDeltaMs: number
  finalMs: number
  /** The final text was not on screen `finalCapMs` after the last delta. */
  finalMissing: boolean
  peakHeapMB: number | undefined
  heapBeforeMB: number
  /** Rebound: from the send's arrival at the daemon to its event-stream request. */
  attachMs: number | undefined
  streamMs: number
  connections: number
  /** History reads (GET …/messages) from the send's arrival at the daemon to the end of the run's tail. */
  historyReads: number
  typing?: TypingResult
  quietBeforeSend: boolean
}

type TypingResult = {
  keys: number
  /** keydown entries Event Timing reported (those of 16 ms or more). */
  reported: number
  p95Ms: number
  maxMs: number
  over50: number
  /** Every reported keydown's duration, in the order typed (the raw figures behind p95). */
  keydownMs: number[]
  /** The same keys' wait for the main thread (a task running when the key came), in ms: the rest of each duration is the handlers and the frame. */
  keydownDelayMs: Array<number | undefined>
  /** The same keys' arrival after the latest animation frame began, in ms (none for a key before the typing window's first frame): a key that comes just as a frame starts waits for the next one, and its paint for what that frame carries. */
  keydownAfterFrameMs: Array<number | undefined>
}

/**
 * Scenario 1, 2 and 4: the history loads, the prompt is sent with Enter, the reply streams. With
 * `typing`, those characters are typed into the composer while it streams (from the first delta on).
 */
export async function streamRun(
  browser: Browser,
  daemon: FakeDaemon,
  subject: Subject,
  history: HistorySource,
  settings: StreamSettings,
  typing?: { text: string; delayMs: number },
): Promise<StreamResult> {
  const { events, toolOutputs, rate, firstTokenMs } = settings
  daemon.reset({ history, events, rate, firstTokenMs, ...(toolOutputs ? { toolOutputs } : {}) })
  const pausesMs = events.reduce((sum, e) => sum + (e.pauseMs ?? 0), 0)
  const streamBudgetMs = (events.length / rate) * 1000 + pausesMs + firstTokenMs
  return withPage(browser, [HISTORY_MARKER, FIRST_MARKER, LAST_MARKER], async (p) => {
    const { quiet } = await load(p, daemon, subject, settings.loadTimeoutMs)
    await p.page.fill(COMPOSER, PROMPT)
    await p.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)))
    let tracing = false
    if (settings.tracePath) {
      await startTrace(browser, p.page, settings.tracePath)
      tracing = true
    }
    const before = await p.metrics()
    const from = await p.now()
    const heap = p.sampleHeap(200)
    let typingResult: TypingResult | undefined
    try {
      await p.page.press(COMPOSER, 'Enter')
      if (typing) {
        await p.painted(FIRST_MARKER, 60_000)
        await sleep(300)
        // The composer keeps the focus after Enter in both apps; focusing again would wait on a busy page.
        const typeFrom = await p.now()
        await withTimeout(typeKeys(p, typing.text, typing.delayMs), 180_000, 'typing')
        await sleep(200)
        const typeTo = await p.now()
        const { events, frames } = await p.window(typeFrom, typeTo)
        const reported = events.filter((e) => e.name === 'keydown')
        const keydowns = reported.map((e) => e.duration)
        // Event Timing leaves out what took under 16 ms: count those keys as 16 ms, an upper bound.
        const all = [...keydowns, ...Array(Math.max(0, typing.text.length - keydowns.length)).fill(16)]
        typingResult = {
          keys: typing.text.length,
          reported: keydowns.length,
          p95Ms: percentile(all, 95) ?? 16,
          maxMs: Math.max(16, ...keydowns),
          over50: keydowns.filter((d) => d > 50).length,
          keydownMs: keydowns,
          keydownDelayMs: reported.map((e) => round(e.delay)),
          keydownAfterFrameMs: reported.map((e) => {
            const frame = frames.findLast((t) => t <= e.start)
            return frame === undefined ? undefined : round(e.start - frame)
          }),
        }
      }
      const record = await daemon.waitForDone(streamBudgetMs + 120_000)
      // A subject that falls far behind is not waited for without end: past the cap, the final
      // text counts as late by (at least) the time waited, and the run is flagged.
      const deadline = (record.lastDeltaAt ?? Date.now()) + settings.finalCapMs
      const last = await p.painted(LAST_MARKER, Math.max(1, deadline - Date.now())).catch(() => undefined)
      const first = await p.painted(FIRST_MARKER, 1).catch(() => undefined)
      const gaveUpAt = Date.now()
      if (last) await sleep(TAIL_MS)
      // A page stuck in a long task answers late or never: what cannot be read stays undefined.
      const after = await withTimeout(p.metrics(), 30_000, 'the page metrics').catch(() => undefined)
      const to = await withTimeout(p.now(), 30_000, 'the page clock').catch(() => undefined)
      const samples = await heap.stop()
      if (tracing) {
        tracing = false
        await stopTrace(browser)
      }
      const win = to === undefined ? undefined : await withTimeout(p.window(from, to), 30_000, 'the probe').catch(() => undefined)
      const longTasks = win?.longTasks.map((t) => t.duration)
      const frameGaps = win ? intervals(win.frames) : []
      const ms = (name: string) => (after ? ((after[name] ?? 0) - (before[name] ?? 0)) * 1000 : undefined)
      return {
        busyMs: ms('TaskDuration'),
        scriptMs: ms('ScriptDuration'),
        layoutMs: ms('LayoutDuration'),
        styleMs: ms('RecalcStyleDuration'),
        threadCpuMs: ms('ThreadTime'),
        processCpuMs: ms('ProcessTime'),
        domUpdates: win?.updates.length,
        longTaskCount: longTasks?.length,
        longTaskTotalMs: longTasks?.reduce((a, b) => a + b, 0),
        longTaskMaxMs: longTasks ? Math.max(0, ...longTasks) : undefined,
        // When each long task began, from the Enter that sent the prompt: the send, the stream or its end.
        longTaskAtMs: win?.longTasks.map((t) => Math.round(t.start - from)),
        longFrames: win?.longFrames.map((f) => ({
          ...f,
          start: Math.round(f.start - from),
          scripts: f.scripts.map((s) => ({ ...s, start: Math.round(s.start - from) })),
        })),
        rafP95Ms: percentile(frameGaps, 95),
        rafP99Ms: percentile(frameGaps, 99),
        firstDeltaMs: (first?.paintedWall ?? gaveUpAt) - (record.firstDeltaAt ?? NaN),
        finalMs: (last?.paintedWall ?? gaveUpAt) - (record.lastDeltaAt ?? NaN),
        finalMissing: !last,
        peakHeapMB: samples.length ? Math.max(...samples) / 2 ** 20 : undefined,
        heapBeforeMB: (before.JSHeapUsedSize ?? NaN) / 2 ** 20,
        attachMs: record.attachAt !== undefined ? record.attachAt - record.postAt : undefined,
        streamMs: (record.lastDeltaAt ?? NaN) - (record.firstDeltaAt ?? NaN),
        connections: record.connections,
        historyReads: daemon.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/messages') && r.at >= record.postAt).length,
        quietBeforeSend: quiet,
        ...(typingResult ? { typing: typingResult } : {}),
      }
    } finally {
      await heap.stop()
      if (tracing) await stopTrace(browser)
    }
  })
}

/** What a key press needs on the wire: DOM `key`, `code` and Windows virtual key code. */
function keyOf(ch: string): { key: string; code: string; windowsVirtualKeyCode: number } {
  if (/^[a-z]$/i.test(ch)) return { key: ch, code: `Key${ch.toUpperCase()}`, windowsVirtualKeyCode: ch.toUpperCase().charCodeAt(0) }
  if (/^[0-9]$/.test(ch)) return { key: ch, code: `Digit${ch}`, windowsVirtualKeyCode: ch.charCodeAt(0) }
  const named: Record<string, [string, number]> = { ' ': ['Space', 32], ',': ['Comma', 188], '.': ['Period', 190], '-': ['Minus', 189], '?': ['Slash', 191] }
  const found = named[ch]
  if (!found) throw new Error(`the typing text may hold letters, digits and " ,.-?" only, not ${JSON.stringify(ch)}`)
  return { key: ch, code: found[0], windowsVirtualKeyCode: found[1] }
}

/**
 * Types `text` through CDP, one key every `delayMs`, without a timestamp: Chromium's browser
 * process stamps each key as it receives it, as it does a key from the keyboard, so Event
 * Timing's duration runs from there whatever queue the key then waits in (checked: a key sent
 * during a 600 ms busy loop reports 560 ms). A timestamp taken here would add the harness's own
 * trip to the browser (about 1.5 ms a key, measured on a bare textarea: 2.3 ms median from the
 * stamp to the handler against 0.7 ms), enough to put 3–6 of 61 keys typed into a bare textarea
 * at 24 ms where Chromium's own stamp puts 0–1. Nothing here waits on the page being actionable.
 */
async function typeKeys(p: BenchPage, text: string, delayMs: number) {
  for (const ch of text) {
    const key = keyOf(ch)
    await p.cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', ...key, text: ch, unmodifiedText: ch })
    await p.cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key })
    await sleep(delayMs)
  }
}

export type HistoryResult = {
  lastPaintedMs: number
  loadLongTaskCount: number
  loadLongTaskMaxMs: number
  rows: number
  elements: number
  scrollMs: number
  scrollLongTaskCount: number
  scrollLongTaskTotalMs: number
  scrollLongTaskMaxMs: number
  scrollRafP99Ms: number | undefined
  scrollBlankSteps: number
  scrollReachedEnds: boolean
  heapMB: number
  expand?: ExpandResult
}

type ExpandResult = { buttons: number; label: string; clickToPaintMs: number; jumpPx: number; scrollShiftPx: number; versionsShown: number }

/**
 * The button that unfolds a reply's replaced versions, by its English label: "2 earlier versions"
 * today, "Earlier versions (2)" in the design; either is found, and it must carry aria-expanded.
 */
const EARLIER_LABEL = '^\\s*(earlier versions \\(\\d+\\)|\\d+ earlier versions?)\\s*$'

/** The reply of a scenario that sends nothing. */
export const NO_REPLY = textEvents(['a', 'b', 'c'])

/** Scenario 3: open a long session, count rows, scroll to the top and back, unfold earlier versions. */
export async function historyRun(
  browser: Browser,
  daemon: FakeDaemon,
  subject: Subject,
  history: HistorySource,
  settings: { loadTimeoutMs: number; scrollSteps: number; tracePath?: string },
): Promise<HistoryResult> {
  daemon.reset({ history, events: NO_REPLY, rate: 1000, firstTokenMs: 0 })
  return withPage(browser, [HISTORY_MARKER], async (p) => {
    const { sighting } = await load(p, daemon, subject, settings.loadTimeoutMs)
    const loadWindow = await p.window(0, sighting.paintedAt)
    const { rows, elements } = await p.page.evaluate(countRows)
    const heapMB = ((await p.metrics()).JSHeapUsedSize ?? NaN) / 2 ** 20
    // With --trace, the scroll test alone is traced (the load is not).
    if (settings.tracePath) {
      await startTrace(browser, p.page, settings.tracePath)
    }
    const scroll = await withTimeout(p.page.evaluate(scrollTest, { steps: settings.scrollSteps }), 180_000, 'the scroll test').finally(async () => {
      if (settings.tracePath) await stopTrace(browser)
    })
    const scrollWindow = await p.window(scroll.from, scroll.to)
    const scrollTasks = scrollWindow.longTasks.map((t) => t.duration)
    let expand: ExpandResult | undefined
    if (subject.key === 'rebound') expand = await expandRun(p)
    return {
      lastPaintedMs: sighting.paintedAt,
      loadLongTaskCount: loadWindow.longTasks.length,
      loadLongTaskMaxMs: Math.max(0, ...loadWindow.longTasks.map((t) => t.duration)),
      rows,
      elements,
      scrollMs: scroll.to - scroll.from,
      scrollLongTaskCount: scrollTasks.length,
      scrollLongTaskTotalMs: scrollTasks.reduce((a, b) => a + b, 0),
      scrollLongTaskMaxMs: Math.max(0, ...scrollTasks),
      scrollRafP99Ms: percentile(intervals(scrollWindow.frames), 99),
      scrollBlankSteps: scroll.blank,
      scrollReachedEnds: scroll.topReached && scroll.bottomReached,
      heapMB,
      ...(expand ? { expand } : {}),
    }
  })
}

async function expandRun(p: BenchPage): Promise<ExpandResult> {
  // The scroll test ends at the bottom as soon as it is there; the page of history under it may
  // still be landing (read again after it was let go on the way up), its rows not yet drawn.
  let armed = await p.page.evaluate(armExpand, { label: EARLIER_LABEL })
  for (const until = Date.now() + 10_000; !armed && Date.now() < until; ) {
    await p.quiet(300, 2_000)
    armed = await p.page.evaluate(armExpand, { label: EARLIER_LABEL })
  }
  if (!armed) throw new Error('no "Earlier versions (n)" or "n earlier versions" button with aria-expanded=false in the DOM near the end of the history')
  await p.quiet(500, 10_000)
  await p.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
  const before = await p.page.evaluate(expandPosition)
  await p.page.mouse.click(before.x, before.y)
  await p.page.waitForFunction(() => (window as unknown as { __benchExpand?: { paintedAt?: number } }).__benchExpand?.paintedAt !== undefined, undefined, {
    timeout: 15_000,
    polling: 100,
  })
  const timing = (await p.page.evaluate(() => (window as unknown as { __benchExpand: { clickAt: number; paintedAt: number } }).__benchExpand)) as { clickAt: number; paintedAt: number }
  await sleep(300)
  const after = await p.page.evaluate(expandPosition)
  return {
    buttons: armed.count,
    label: armed.text,
    clickToPaintMs: timing.paintedAt - timing.clickAt,
    jumpPx: after.top - before.top,
    scrollShiftPx: after.scrollTop - before.scrollTop,
    versionsShown: after.expanded,
  }
}
