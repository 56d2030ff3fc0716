/**
 * Code that runs inside the page. Each export is handed to Playwright (`addInitScript`,
 * `evaluate`), which sends its source text: so each is self-contained, referring to nothing
 * outside itself but its argument and the browser's globals.
 *
 * The probe watches from the first script on: long tasks, long animation frames (with the scripts
 * Chromium blames for each) and Event Timing entries (buffered observers), every animation frame's
 * time, and for each marker word the moment it first
 * appears in the DOM and the moment after the next paint (requestAnimationFrame, then a
 * MessageChannel task, which runs once that frame has been produced).
 */

export type MarkerSighting = {
  /** performance.now() when a DOM mutation first carried the marker. */
  seenAt: number
  /** performance.now() just after the next paint. */
  paintedAt: number
  /** Date.now() at the same moment, to compare with the fake daemon's clock. */
  paintedWall: number
}

/** A script Chromium's Long Animation Frames API blames for part of a long frame. */
type LongFrameScript = {
  /** What ran it: a frame callback, a promise's resolution, an event listener… */
  invokerType: string
  invoker: string
  sourceFunctionName: string
  /** The script's file name (no origin) and the character position of the function in it. */
  source: string
  start: number
  duration: number
  forcedStyleAndLayout: number
}

/** A frame that took over 50 ms to produce (`long-animation-frame`): when, how long, and why. */
export type LongFrame = { start: number; duration: number; blocking: number; scripts: LongFrameScript[] }

type ProbeState = {
  frames: number[]
  longTasks: Array<{ start: number; duration: number }>
  longFrames: LongFrame[]
  /** Event Timing entries of 16 ms or more; `delay` is the wait for the main thread (start to processingStart). */
  events: Array<{ name: string; start: number; duration: number; interactionId: number; delay: number }>
  markers: Record<string, MarkerSighting>
  /** When each batch of DOM changes was delivered (a MutationObserver callback): one per commit, near enough. */
  updates: number[]
}

export type ProbeConfig = { markers: string[] }

/** Installs the probe (as an init script, before the page's own scripts). */
export function installProbe(config: ProbeConfig): void {
  const state: ProbeState = { frames: [], longTasks: [], longFrames: [], events: [], markers: {}, updates: [] }
  const w = window as unknown as { __bench: ProbeState; __benchReport?: (name: string, sighting: MarkerSighting) => void; __benchRearm?: (marker: string) => void }
  w.__bench = state

  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) state.longTasks.push({ start: e.startTime, duration: e.duration })
    }).observe({ type: 'longtask', buffered: true })
  } catch {
    // no Long Tasks API: the figures come out empty, and the report says n/a
  }
  type LoafScript = { invokerType: string; invoker: string; sourceFunctionName: string; sourceURL: string; sourceCharPosition: number; startTime: number; duration: number; forcedStyleAndLayoutDuration: number }
  type Loaf = PerformanceEntry & { blockingDuration: number; scripts: LoafScript[] }
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as Loaf[]) {
        state.longFrames.push({
          start: e.startTime,
          duration: e.duration,
          blocking: e.blockingDuration,
          scripts: e.scripts.map((s) => ({
            invokerType: s.invokerType,
            invoker: s.invoker,
            sourceFunctionName: s.sourceFunctionName,
            source: `${s.sourceURL.split('/').pop() ?? ''}:${s.sourceCharPosition}`,
            start: s.startTime,
            duration: s.duration,
            forcedStyleAndLayout: s.forcedStyleAndLayoutDuration,
          })),
        })
      }
    }).observe({ type: 'long-animation-frame', buffered: true })
  } catch {
    // no Long Animation Frames API: no frames to blame, the other figures stand
  }
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as PerformanceEventTiming[]) {
        state.events.push({
          name: e.name,
          start: e.startTime,
          duration: e.duration,
          interactionId: (e as PerformanceEventTiming & { interactionId?: number }).interactionId ?? 0,
          delay: e.processingStart - e.startTime,
        })
      }
    }).observe({ type: 'event', durationThreshold: 16, buffered: true } as PerformanceObserverInit)
  } catch {
    // no Event Timing
  }

  const loop = (t: number) => {
    state.frames.push(t)
    requestAnimationFrame(loop)
  }
  requestAnimationFrame(loop)

  const pending = config.markers.slice()
  // A text node may hold a whole 100 kB reply: look at its head and tail only, where a marker
  // first shows (the first delta, the last delta, the end of the last message).
  const inText = (data: string, marker: string) =>
    data.length <= 8192 ? data.includes(marker) : data.lastIndexOf(marker, 4096) >= 0 || data.indexOf(marker, data.length - 1024) >= 0
  // An added element may be a whole history: walk its first and last few hundred text nodes only.
  const inElement = (el: Node, marker: string) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
    let n = walker.nextNode()
    for (let i = 0; n && i < 400; i++, n = walker.nextNode()) if (inText((n as Text).data, marker)) return true
    walker.currentNode = el
    n = walker.lastChild()
    while (n && n.firstChild) n = walker.lastChild()
    for (let i = 0; n && i < 400; i++, n = walker.previousNode()) if (n.nodeType === 3 && inText((n as Text).data, marker)) return true
    return false
  }
  const carries = (record: MutationRecord, marker: string) => {
    if (record.type === 'characterData') return inText((record.target as Text).data, marker)
    for (const node of Array.from(record.addedNodes)) {
      if (node.nodeType === 3 ? inText((node as Text).data, marker) : inElement(node, marker)) return true
    }
    return false
  }
  const sighted = (marker: string) => {
    const seenAt = performance.now()
    requestAnimationFrame(() => {
      const channel = new MessageChannel()
      channel.port1.onmessage = () => {
        const sighting = { seenAt, paintedAt: performance.now(), paintedWall: Date.now() }
        state.markers[marker] = sighting
        w.__benchReport?.(marker, sighting)
      }
      channel.port2.postMessage(null)
    })
  }
  const observer = new MutationObserver((records) => {
    state.updates.push(performance.now())
    for (const record of records) {
      for (let i = pending.length - 1; i >= 0; i--) {
        const marker = pending[i] as string
        if (carries(record, marker)) {
          pending.splice(i, 1)
          sighted(marker)
        }
      }
      if (pending.length === 0) break
    }
    if (pending.length === 0) observer.disconnect()
  })
  const watch = () => observer.observe(document, { subtree: true, childList: true, characterData: true })
  if (pending.length) watch()
  // A marker already seen (a row shown at load) is watched for again, from now on.
  w.__benchRearm = (marker) => {
    delete state.markers[marker]
    if (!pending.includes(marker)) pending.push(marker)
    watch()
  }
}

/** Forgets a marker's sighting and watches for it again (see installProbe). */
export function probeRearm(marker: string) {
  ;(window as unknown as { __benchRearm: (marker: string) => void }).__benchRearm(marker)
}

type ScrollWatch = {
  /** Largest move of the row under the pointer, in px, since the scroller was last set. */
  maxJumpPx: number
  /** The same for each jump, in order. */
  byJump: number[]
  /** Rows followed (one per jump that had a row under the pointer), and rows lost (left the DOM and not found again). */
  anchors: number
  lost: number
}

/**
 * Follows the row under the pointer (the middle of the transcript's scroller) from frame to
 * frame: after each jump (scrollJump) the first row found there is the anchor, and any move of
 * it until the next jump is a jump the operator sees (a page landing above without the view
 * keeping its place, a row measured anew). A row that leaves the DOM is found again by its text.
 */
export function scrollWatchInstall() {
  const log = document.querySelector('[role="log"]')
  if (!log) throw new Error('no [role="log"] element to scroll')
  const scrollable = (el: Element) => el.scrollHeight > el.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(el).overflowY)
  let scroller: Element | null = null
  for (let el: Element | null = log; el && !scroller; el = el.parentElement) if (scrollable(el)) scroller = el
  if (!scroller) scroller = Array.from(log.querySelectorAll('*')).find(scrollable) ?? null
  if (!scroller) throw new Error('the transcript does not scroll')
  const el = scroller
  const signature = (row: Element) => (row.textContent ?? '').slice(0, 160)
  const state = { maxJumpPx: 0, anchors: 0, lost: 0, anchor: null as Element | null, sig: '', top: 0, armed: false, byJump: [] as number[] }
  const w = window as unknown as { __benchScroll: { el: Element; state: typeof state } }
  w.__benchScroll = { el, state }
  const point = () => {
    const box = el.getBoundingClientRect()
    return { x: box.left + box.width / 2, y: box.top + box.height / 2 }
  }
  const loop = () => {
    if (state.armed && !state.anchor) {
      const { x, y } = point()
      const row = document.elementFromPoint(x, y)?.closest('article') ?? null
      if (row) {
        state.anchor = row
        state.sig = signature(row)
        state.top = row.getBoundingClientRect().top
        state.anchors++
      }
    } else if (state.anchor) {
      let row: Element | null = state.anchor
      if (!row.isConnected) {
        row = Array.from(document.querySelectorAll('article')).find((a) => signature(a) === state.sig) ?? null
        if (row) state.anchor = row
      }
      if (row) {
        const moved = Math.abs(row.getBoundingClientRect().top - state.top)
        state.maxJumpPx = Math.max(state.maxJumpPx, moved)
        state.byJump[state.byJump.length - 1] = Math.max(state.byJump.at(-1) ?? 0, Math.round(moved))
      }
      else {
        state.lost++
        state.anchor = null
        state.armed = false
      }
    }
    requestAnimationFrame(loop)
  }
  requestAnimationFrame(loop)
}

/** Sets the scroller (to the top, the bottom, or a share of its height from the top) and waits two frames; scrollWhere says where that led. */
export async function scrollJump({ to }: { to: 'top' | 'bottom' | number }) {
  const { el, state } = (window as unknown as { __benchScroll: { el: Element; state: ScrollWatch & { anchor: Element | null; armed: boolean } } }).__benchScroll
  const max = () => el.scrollHeight - el.clientHeight
  el.scrollTop = to === 'top' ? 0 : to === 'bottom' ? max() : Math.round(max() * to)
  state.anchor = null
  state.armed = true
  state.byJump.push(0)
  const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))
  await frame()
  await frame()
}

/** Where the scroller is, the watch's figures, and whether a row in view holds `first` or `last`. */
export function scrollWhere({ first, last }: { first: string; last: string }) {
  const { el, state } = (window as unknown as { __benchScroll: { el: Element; state: ScrollWatch } }).__benchScroll
  const box = el.getBoundingClientRect()
  const inView = Array.from(document.querySelectorAll('article')).filter((a) => {
    const r = a.getBoundingClientRect()
    return r.bottom > box.top && r.top < box.bottom
  })
  const holds = (word: string) => inView.some((a) => (a.textContent ?? '').includes(word))
  const max = el.scrollHeight - el.clientHeight
  return {
    scrollTop: el.scrollTop,
    atTop: el.scrollTop <= 1,
    atBottom: max - el.scrollTop <= 2,
    firstInView: holds(first),
    lastInView: holds(last),
    maxJumpPx: state.maxJumpPx,
    byJump: state.byJump,
    anchors: state.anchors,
    lost: state.lost,
  }
}

/** What the probe recorded between two page times, so only that window crosses the wire. */
export function probeWindow({ from, to }: { from: number; to: number }) {
  const s = (window as unknown as { __bench: ProbeState }).__bench
  return {
    frames: s.frames.filter((t) => t >= from && t <= to),
    longTasks: s.longTasks.filter((e) => e.start >= from && e.start <= to),
    longFrames: s.longFrames.filter((e) => e.start >= from && e.start <= to),
    events: s.events.filter((e) => e.start >= from && e.start <= to),
    updates: s.updates.filter((t) => t >= from && t <= to),
    now: performance.now(),
  }
}

/** Page time and the end of the latest long task, to wait for a quiet page. */
export function probeClock() {
  const s = (window as unknown as { __bench: ProbeState }).__bench
  const last = s.longTasks.at(-1)
  return { now: performance.now(), lastLongTaskEnd: last ? last.start + last.duration : 0 }
}

/** Elements in the page: message rows (`article`) and all elements. */
export function countRows() {
  return { rows: document.querySelectorAll('article').length, elements: document.getElementsByTagName('*').length }
}

/**
 * Scrolls the transcript from the bottom to the top and back in `steps` jumps each way, two
 * frames per jump, and counts the jumps after which no message row is under the middle of the
 * view (a blank window). The scroller is the `[role=log]` element, or the nearest scrollable
 * element around or inside it.
 */
export async function scrollTest({ steps }: { steps: number }) {
  const log = document.querySelector('[role="log"]')
  if (!log) throw new Error('no [role="log"] element to scroll')
  const scrollable = (el: Element) => el.scrollHeight > el.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(el).overflowY)
  let scroller: Element | null = null
  for (let el: Element | null = log; el && !scroller; el = el.parentElement) if (scrollable(el)) scroller = el
  if (!scroller) scroller = Array.from(log.querySelectorAll('*')).find(scrollable) ?? null
  if (!scroller) throw new Error('the transcript does not scroll')
  const el = scroller
  const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))
  const max = () => el.scrollHeight - el.clientHeight
  const box = el.getBoundingClientRect()
  const blankNow = () =>
    [0.25, 0.5, 0.75].every((f) => !document.elementFromPoint(box.left + box.width / 2, box.top + box.height * f)?.closest('article'))
  let blank = 0
  const from = performance.now()
  el.scrollTop = max()
  await frame()
  for (let i = 1; i <= steps; i++) {
    el.scrollTop = Math.round(max() * (1 - i / steps))
    await frame()
    await frame()
    if (blankNow()) blank++
  }
  const topReached = el.scrollTop <= 1
  for (let i = 1; i <= steps; i++) {
    el.scrollTop = Math.round(max() * (i / steps))
    await frame()
    await frame()
    if (blankNow()) blank++
  }
  el.scrollTop = max()
  await frame()
  await frame()
  const bottomReached = max() - el.scrollTop <= 2
  return { from, to: performance.now(), blank, topReached, bottomReached, scrollHeight: el.scrollHeight }
}

/** Arms the measurement of the next click on the button labelled like `label`: click → expanded and painted. */
export function armExpand({ label }: { label: string }) {
  const pattern = new RegExp(label, 'i')
  const buttons = Array.from(document.querySelectorAll('button[aria-expanded="false"]')).filter((b) => pattern.test(b.textContent ?? ''))
  const button = buttons.at(-1)
  const w = window as unknown as { __benchExpand?: Record<string, number | boolean> }
  if (!button) return undefined
  button.scrollIntoView({ block: 'center' })
  const result: Record<string, number | boolean> = {}
  w.__benchExpand = result
  button.setAttribute('data-bench-target', '')
  document.addEventListener(
    'click',
    (event) => {
      result.clickAt = event.timeStamp
      const check = () => {
        if (button.getAttribute('aria-expanded') !== 'true') {
          if (performance.now() - event.timeStamp < 10_000) requestAnimationFrame(check)
          return
        }
        const channel = new MessageChannel()
        channel.port1.onmessage = () => {
          result.paintedAt = performance.now()
        }
        channel.port2.postMessage(null)
      }
      requestAnimationFrame(check)
    },
    { capture: true, once: true },
  )
  return { count: buttons.length, text: button.textContent ?? '' }
}

/** Where the armed button is, and where its scroller is scrolled to. */
export function expandPosition() {
  const button = document.querySelector('[data-bench-target]')
  const log = document.querySelector('[role="log"]')
  const rect = button?.getBoundingClientRect()
  const expanded = button?.closest('article')?.querySelectorAll('.earlier > li').length ?? 0
  return { top: rect?.top ?? NaN, x: rect ? rect.left + rect.width / 2 : NaN, y: rect ? rect.top + rect.height / 2 : NaN, scrollTop: log?.scrollTop ?? NaN, expanded }
}
