/**
 * Issue 29's growth scenarios, one run for one subject on one session: open it (the last message
 * painted, the history reads and bytes it took, peak heap), find a word only its first message
 * holds with the app's find bar, and, on a second fresh page, scroll from the newest message to
 * the very first and back. What does not happen within its time says "never" (Infinity in the
 * figures) instead of failing the run: a client that reads whole sessions is expected to miss
 * some of these until it reads pages.
 */
import { writeFileSync } from 'node:fs'
import type { Browser } from '@playwright/test'
import { openPage, sleep, withTimeout, type BenchPage } from './browser'
import { HISTORY_MARKER, ORIGIN_MARKER } from './content'
import type { FakeDaemon, RequestLog } from './fake-daemon'
import type { HistorySource } from './history-source'
import { countRows, scrollJump, scrollWatchInstall, scrollWhere } from './page-probe'
import { NO_REPLY, startTrace, stopTrace, type Subject } from './scenarios'
import { snapshotFigures, type RawSnapshot } from './snapshot-figures'
import { intervals, median, percentile } from './stats'

export type GrowthSettings = {
  /** How long the last message may take to show before the session counts as never opened. */
  loadTimeoutMs: number
  /** Jumps each way before the runs to the very ends. */
  scrollSteps: number
  /** How long the scroll to the first message may take before it counts as never reached. */
  scrollCapMs: number
  /** How long the find may take before the hit counts as never shown. */
  findCapMs: number
  /** Find with the app's find bar too (Rebound); the peer and the floor only open. */
  find: boolean
  /** Scroll to the first message and back too (Rebound, and the floors as the least a page, and a React page, holds after it); the peer only opens. */
  scroll: boolean
  /**
   * Fresh pages opened in each run, the open's figure the median of their times (the first
   * page's reads, heap and rows stand for them all). An open is a fifth of a second with tens of
   * milliseconds of spread from run to run, and its budget is a ratio of two of them: one open a
   * run made the ratio of two medians of three a draw of the machine's noise. 1 when not given.
   */
  opens?: number
  /**
   * A session opened beside each of these opens, in turn with them, on the same browser (the
   * 1,000-message one for 100,000): a ratio of two sessions' opens taken minutes apart, in
   * scenarios of their own, carried the machine's drift between them.
   */
  pair?: HistorySource
  /** A Chrome trace of the open (navigation to the last message painted and a second of quiet) into this file. */
  tracePath?: string
}

/** The find field and its shortcut (src/chat/transcript/find-bar.tsx, src/chat/shortcuts.ts). */
const FIND_INPUT = '#find-in-session'
const FIND_SHORTCUT = 'Control+Shift+F'

const isRead = (r: RequestLog) => r.method === 'GET' && r.path.endsWith('/messages')
const isSearch = (r: RequestLog) => r.method === 'GET' && r.path.endsWith('/search')
const MB = 2 ** 20

/** The floor opens a long session with its page that reads history in pages (bench/floor/pages.ts). */
function urlFor(daemon: FakeDaemon, subject: Subject) {
  return (subject.origin === 'rebound' ? daemon.reboundUrl : daemon.peerUrl) + (subject.key === 'floor' ? '/floor/pages.html' : subject.path)
}

/** JS heap after a full garbage collection, in MB: what the page holds, not what it has yet to free. */
async function heapAfterGc(p: BenchPage): Promise<number | undefined> {
  try {
    await withTimeout(p.cdp.send('HeapProfiler.collectGarbage'), 30_000, 'a garbage collection')
    return ((await p.metrics()).JSHeapUsedSize ?? NaN) / MB
  } catch {
    return undefined
  }
}

/** Ids of the messages sent into workers, never reused: a late answer cannot be taken for a later call's. */
let nextWorkerCall = 1

/**
 * The JS heaps of the page's dedicated workers (the stream worker, the highlight worker) after a
 * garbage collection in each, in MB, and how many there are. They are the page's memory as much as its main thread's heap
 * is, and what the page hands to a worker must not leave the figures. Each worker is reached
 * through the page's DevTools session with `Target.sendMessageToTarget`, the one way Playwright's
 * session can speak to another target.
 */
async function workersHeap(p: BenchPage): Promise<{ mb: number; count: number } | undefined> {
  const answers = new Map<string, { resolve: (result: unknown) => void; reject: (reason: unknown) => void }>()
  const onMessage = (event: { sessionId?: string; message: string }) => {
    const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message?: string } }
    const waiting = message.id === undefined ? undefined : answers.get(`${event.sessionId}:${message.id}`)
    if (!waiting) return
    if (message.error) waiting.reject(new Error(message.error.message ?? 'a worker answered with an error'))
    else waiting.resolve(message.result)
  }
  p.cdp.on('Target.receivedMessageFromTarget', onMessage)
  try {
    const send = <T>(method: string, params: object) => withTimeout(p.cdp.send(method as never, params as never) as Promise<T>, 30_000, method)
    const { targetInfo: self } = await send<{ targetInfo: { browserContextId?: string } }>('Target.getTargetInfo', {})
    const { targetInfos } = await send<{ targetInfos: { targetId: string; type: string; browserContextId?: string }[] }>('Target.getTargets', {})
    const workers = targetInfos.filter((target) => target.type === 'worker' && target.browserContextId === self.browserContextId)
    let bytes = 0
    for (const worker of workers) {
      const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId: worker.targetId, flatten: false })
      try {
        const call = <T>(method: string) => {
          const id = nextWorkerCall++
          const answered = new Promise<T>((resolve, reject) => {
            answers.set(`${sessionId}:${id}`, { resolve: resolve as (result: unknown) => void, reject })
            p.cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params: {} }) }).catch(reject)
          })
          return withTimeout(answered, 30_000, `${method} in a worker`)
        }
        await call('HeapProfiler.collectGarbage')
        const { usedSize } = await call<{ usedSize?: number }>('Runtime.getHeapUsage')
        if (usedSize === undefined) throw new Error('a worker gave no heap size')
        bytes += usedSize
      } finally {
        await send('Target.detachFromTarget', { sessionId }).catch(() => undefined)
      }
    }
    return { mb: bytes / MB, count: workers.length }
  } catch {
    return undefined
  } finally {
    p.cdp.off('Target.receivedMessageFromTarget', onMessage)
  }
}

/**
 * A heap snapshot's figures (snapshot-figures.ts): the bytes of V8's compiled code in the page's
 * heap (bytecode, machine code, feedback; the `code` nodes DevTools counts as "Compiled code"),
 * and with `before` (an earlier snapshot's ids), the new data only React's previous render
 * holds. The engine compiles a function as it first runs and again as it gets hot, and keeps the
 * result: a heap figure after a first pass over new code paths includes it, whatever the page
 * lets go of its data.
 */
async function heapSnapshot(p: BenchPage, savePath?: string, before?: ReadonlySet<number>): Promise<{ codeMB: number; previousRenderMB?: number; ids: Set<number> } | undefined> {
  const chunks: string[] = []
  const onChunk = (event: { chunk: string }) => chunks.push(event.chunk)
  p.cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk)
  try {
    await withTimeout(p.cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false }), 60_000, 'a heap snapshot')
    const text = chunks.join('')
    if (savePath) writeFileSync(savePath, text)
    const figures = snapshotFigures(JSON.parse(text) as RawSnapshot, before)
    return {
      codeMB: figures.codeBytes / MB,
      ids: figures.ids,
      ...(figures.previousRenderBytes === undefined ? {} : { previousRenderMB: figures.previousRenderBytes / MB }),
    }
  } catch {
    return undefined
  } finally {
    p.cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk)
  }
}

/** The change from `from` to `to` in points of per cent of `base`: `pointsOf(a, a, b)` is the growth from a to b in per cent. */
const pointsOf = (base: number | undefined, from: number | undefined, to: number | undefined) => (base && from !== undefined && to !== undefined ? ((to - from) / base) * 100 : undefined)

type Opened = { ok: true; paintedAt: number; paintedWall: number; peakHeapMB: number | undefined } | { ok: false; why: string; peakHeapMB: number | undefined }

/** Navigates and waits for the last message painted, sampling the heap all the while. */
async function open(browser: Browser, p: BenchPage, daemon: FakeDaemon, subject: Subject, timeoutMs: number, tracePath?: string): Promise<Opened> {
  if (tracePath) await startTrace(browser, p.page, tracePath)
  const heap = p.sampleHeap(200)
  const peak = async () => {
    const samples = await heap.stop()
    return samples.length ? Math.max(...samples) / MB : undefined
  }
  try {
    await p.page.goto(urlFor(daemon, subject), { waitUntil: 'load', timeout: timeoutMs })
    const sighting = await p.painted(HISTORY_MARKER, timeoutMs)
    // What the page does right after the paint (the rest of a first read) counts to its peak.
    await p.quiet(1000, 10_000).catch(() => false)
    return { ok: true, paintedAt: sighting.paintedAt, paintedWall: sighting.paintedWall, peakHeapMB: await peak() }
  } catch (error) {
    return { ok: false, why: p.crashed ? 'the page crashed' : error instanceof Error ? error.message : String(error), peakHeapMB: await peak() }
  } finally {
    if (tracePath) await stopTrace(browser)
  }
}

export type GrowthResult = Record<string, number | number[] | boolean | string | undefined>

export async function growthRun(browser: Browser, daemon: FakeDaemon, subject: Subject, history: HistorySource, settings: GrowthSettings): Promise<GrowthResult> {
  daemon.reset({ history, events: NO_REPLY, rate: 1000, firstTokenMs: 0 })
  const result: GrowthResult = {}
  const a = await openPage(browser, [HISTORY_MARKER, ORIGIN_MARKER])
  try {
    const opened = await open(browser, a, daemon, subject, settings.loadTimeoutMs, settings.tracePath)
    result.peakHeapMB = opened.peakHeapMB
    if (!opened.ok) {
      // Never opened: so never found or scrolled either; the second page is not tried.
      Object.assign(result, { openNever: true, openWhy: opened.why, findNever: settings.find, firstNever: settings.scroll })
      return result
    }
    const before = daemon.requests.filter((r) => r.at <= opened.paintedWall)
    const load = await a.window(0, opened.paintedAt)
    Object.assign(result, {
      lastPaintedMs: opened.paintedAt,
      readsBeforePaint: before.filter(isRead).length,
      readMBBeforePaint: before.filter(isRead).reduce((sum, r) => sum + (r.bytes ?? 0), 0) / MB,
      loadLongTaskMaxMs: Math.max(0, ...load.longTasks.map((t) => t.duration)),
      ...(await a.page.evaluate(countRows)),
    })
    if (settings.find) Object.assign(result, await find(a, daemon, settings.findCapMs))
  } finally {
    await a.close()
  }
  const opens = settings.opens ?? 1
  if (result.lastPaintedMs !== undefined && (opens > 1 || settings.pair)) {
    /** A fresh page's open of `source`: when its last message painted, or undefined. */
    const openOnce = async (source: HistorySource) => {
      daemon.reset({ history: source, events: NO_REPLY, rate: 1000, firstTokenMs: 0 })
      const again = await openPage(browser, [HISTORY_MARKER])
      try {
        const opened = await open(browser, again, daemon, subject, settings.loadTimeoutMs)
        return opened.ok ? opened.paintedAt : undefined
      } finally {
        await again.close()
      }
    }
    const times = [result.lastPaintedMs as number]
    const pairTimes: number[] = []
    // The pair's open right after each of this session's, so both see the same machine.
    for (let i = 0; i < opens; i++) {
      if (i > 0) {
        const at = await openOnce(history)
        if (at !== undefined) times.push(at)
      }
      if (settings.pair) {
        const at = await openOnce(settings.pair)
        if (at !== undefined) pairTimes.push(at)
      }
    }
    const own = median(times)
    const pair = median(pairTimes)
    Object.assign(result, {
      lastPaintedMs: own,
      lastPaintedEachMs: times,
      ...(settings.pair && pair !== undefined && own !== undefined ? { pairLastPaintedMs: pair, pairLastPaintedEachMs: pairTimes, openToPairRatio: own / pair } : {}),
    })
  }
  if (!settings.scroll) return result

  daemon.reset({ history, events: NO_REPLY, rate: 1000, firstTokenMs: 0 })
  const b = await openPage(browser, [HISTORY_MARKER])
  try {
    const opened = await open(browser, b, daemon, subject, settings.loadTimeoutMs)
    if (!opened.ok) {
      Object.assign(result, { firstNever: true, scrollWhy: `the second open failed: ${opened.why}` })
      return result
    }
    Object.assign(result, await scroll(b, daemon, settings))
  } finally {
    await b.close()
  }
  return result
}

/** Find with the app's find bar: its shortcut, the word, Enter (again every 300 ms until the hit shows). */
async function find(p: BenchPage, daemon: FakeDaemon, capMs: number): Promise<GrowthResult> {
  const out: GrowthResult = {}
  // A list that renders from the top before it settles at the end may have shown the first
  // message while opening: only a showing after the find counts.
  out.originShownAtOpen = await p.painted(ORIGIN_MARKER, 1).then(
    () => true,
    () => false,
  )
  await p.forget(ORIGIN_MARKER)
  await p.page.keyboard.press(FIND_SHORTCUT)
  const focused = await p.page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, FIND_INPUT)
  if (!focused) {
    out.findShortcutMissed = true
    const field = await p.page.$(FIND_INPUT)
    if (!field) return { ...out, findNever: true, findWhy: `no ${FIND_INPUT} field` }
    await field.focus()
  }
  const fromWall = Date.now()
  const from = await p.now()
  // One input event with the whole word, as a paste is: what is timed is the search, not the typing.
  await p.page.keyboard.insertText(ORIGIN_MARKER.toLowerCase())
  let sighting
  const until = Date.now() + capMs
  let enters = 0
  while (!sighting && Date.now() < until) {
    await p.page.keyboard.press('Enter')
    enters++
    sighting = await p.painted(ORIGIN_MARKER, Math.max(1, Math.min(300, until - Date.now()))).catch(() => undefined)
  }
  const during = daemon.requests.filter((r) => r.at >= fromWall)
  Object.assign(out, { findEnters: enters, findReads: during.filter(isRead).length, findSearches: during.filter(isSearch).length })
  if (!sighting) return { ...out, findNever: true }
  return { ...out, findMs: sighting.paintedAt - from }
}

/** From the newest message to the very first and back, jumping as a dragged scrollbar does, letting each page land. */
async function scroll(p: BenchPage, daemon: FakeDaemon, settings: GrowthSettings): Promise<GrowthResult> {
  /**
   * The page's heap after GC (its main thread's and its workers'), with the main thread's compiled
   * code and the workers' part. A traced run keeps the snapshot beside its trace, for bench/heap-growth.ts.
   */
  const measured = async (label: string, before?: ReadonlySet<number>) => {
    const [main, workers] = [await heapAfterGc(p), await workersHeap(p)]
    const heap = main === undefined || workers === undefined ? undefined : main + workers.mb
    const savePath = settings.tracePath?.replace(/\.json$/, `-scroll-${label}.heapsnapshot`)
    const snapshot = await heapSnapshot(p, savePath, before)
    return { heap, code: snapshot?.codeMB, previousRender: snapshot?.previousRenderMB, ids: snapshot?.ids, workers: workers?.mb, workerCount: workers?.count }
  }
  await p.quiet(500, 10_000)
  const { heap: heapBeforeMB, code: codeBeforeMB, ids: idsBefore, workers: workersBeforeMB, workerCount: workersBefore } = await measured('before')
  await p.page.evaluate(scrollWatchInstall)
  const viewport = p.page.viewportSize()
  if (viewport) await p.page.mouse.move(viewport.width / 2, viewport.height / 2)
  const from = await p.now()
  const markers = { first: ORIGIN_MARKER, last: HISTORY_MARKER }
  let jumps = 0
  const jump = async (to: 'top' | 'bottom' | number) => {
    jumps++
    await p.page.evaluate(scrollJump, { to })
    await daemon.settled(50, 5000)
    await p.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    return p.page.evaluate(scrollWhere, markers)
  }
  /** Newest → very first → newest; the last sighting (with what the watch saw since it was installed). */
  const trip = async () => {
    const tripStarted = Date.now()
    let where = await jump('bottom')
    for (let i = 1; i <= settings.scrollSteps; i++) where = await jump(1 - i / settings.scrollSteps)
    // A session read in pages grows at the top as they land: keep going up until the first message shows.
    while (!(where.atTop && where.firstInView) && Date.now() - tripStarted < settings.scrollCapMs) where = await jump('top')
    const reachedFirst = where.atTop && where.firstInView
    const upMs = Date.now() - tripStarted
    for (let i = 1; i <= settings.scrollSteps; i++) where = await jump(i / settings.scrollSteps)
    const back = Date.now()
    while (!(where.atBottom && where.lastInView) && Date.now() - back < settings.scrollCapMs) where = await jump('bottom')
    return { where, reachedFirst, upMs, reachedBack: where.atBottom && where.lastInView }
  }
  const { where, reachedFirst, upMs, reachedBack } = await trip()
  const to = await p.now()
  const firstJumps = jumps
  const win = await p.window(from, to)
  const tasks = win.longTasks.map((t) => t.duration)
  // Frames over 50 ms, whether one long task made them or several short ones: what the eye sees as a stall.
  const longFrames = win.longFrames.map((f) => f.duration)
  /** The heap after GC and its compiled code, once the page has settled after a trip. */
  const settled = async (label: string, before?: ReadonlySet<number>) => {
    await sleep(300)
    await p.quiet(500, 10_000)
    return measured(label, before)
  }
  const { heap: heapAfterMB, code: codeAfterMB, previousRender: previousRenderMB, workers: workersAfterMB, workerCount: workersAfter } = await settled('after', idsBefore)
  // The same trip again: what the engine compiled for the first stays compiled, and a page that
  // lets go of what it read ends the second where it ended the first.
  await trip()
  const { heap: heapAfterSecondMB, code: codeAfterSecondMB } = await settled('after-second')
  // Every growth in points of per cent of the heap before the first trip. The code the scroll
  // compiled on the main thread is one part of it, the workers' heaps another, and the new data
  // only React's previous render holds (snapshot-figures.ts) a third; the rest is what the page's
  // own data (and the engine's other objects) account for.
  const heapScrollGrowthPct = pointsOf(heapBeforeMB, heapBeforeMB, heapAfterMB)
  const codeGrowthPct = pointsOf(heapBeforeMB, codeBeforeMB, codeAfterMB)
  const workersGrowthPct = pointsOf(heapBeforeMB, workersBeforeMB, workersAfterMB)
  const previousRenderPct = pointsOf(heapBeforeMB, 0, previousRenderMB)
  const parts = [heapScrollGrowthPct, codeGrowthPct, workersGrowthPct, previousRenderPct]
  const otherGrowthPct = parts.some((x) => x === undefined) ? undefined : heapScrollGrowthPct! - codeGrowthPct! - workersGrowthPct! - previousRenderPct!
  return {
    ...(reachedFirst ? { scrollUpMs: upMs } : { firstNever: true }),
    backNever: !reachedBack,
    scrollMs: to - from,
    scrollJumps: firstJumps,
    scrollLongTaskCount: tasks.length,
    scrollLongTaskTotalMs: tasks.reduce((x, y) => x + y, 0),
    scrollLongTaskMaxMs: Math.max(0, ...tasks),
    scrollLongFrameCount: longFrames.length,
    scrollLongFrameMaxMs: Math.max(0, ...longFrames),
    scrollRafP99Ms: percentile(intervals(win.frames), 99),
    maxJumpPx: where.maxJumpPx,
    jumpPxByStep: where.byJump,
    anchorsFollowed: where.anchors,
    anchorsLost: where.lost,
    heapBeforeScrollMB: heapBeforeMB,
    heapAfterScrollMB: heapAfterMB,
    heapScrollGrowthPct,
    codeBeforeScrollMB: codeBeforeMB,
    codeAfterScrollMB: codeAfterMB,
    heapScrollGrowthMB: heapBeforeMB === undefined || heapAfterMB === undefined ? undefined : heapAfterMB - heapBeforeMB,
    workersBeforeScrollMB: workersBeforeMB,
    workersAfterScrollMB: workersAfterMB,
    // A worker started (or ended) during the trip shows in the workers' growth: how many there were.
    workersBeforeScroll: workersBefore,
    workersAfterScroll: workersAfter,
    heapScrollCodeGrowthPct: codeGrowthPct,
    heapScrollWorkersGrowthPct: workersGrowthPct,
    heapScrollPreviousRenderPct: previousRenderPct,
    heapScrollGrowthRestPct: otherGrowthPct,
    heapAfterSecondScrollMB: heapAfterSecondMB,
    codeAfterSecondScrollMB: codeAfterSecondMB,
    heapSecondScrollGrowthPct: pointsOf(heapBeforeMB, heapAfterMB, heapAfterSecondMB),
    heapSecondScrollCodeGrowthPct: pointsOf(heapBeforeMB, codeAfterMB, codeAfterSecondMB),
  }
}
