import { defaultRangeExtractor, observeElementRect, useVirtualizer, type Range, type VirtualItem, type Virtualizer } from '@tanstack/react-virtual'
import { memo, useCallback, useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { keyPressOf } from '../shortcuts'
import { FindBar, type RemoteFind } from './find-bar'
import { FindNeedle } from './find-needle'
import { useMatchMarks } from './match-marks'
import { forgetAbsentSizes, gapHeights, KEPT_ABSENT_SIZES, MIN_GAP_PX, type LaidItem } from './gap-heights'

export type TranscriptProps<Item> = {
  items: readonly Item[]
  itemKey: (item: Item) => string
  renderItem: (item: Item) => ReactNode
  /** The text find-in-session searches in each row. */
  itemText: (item: Item) => string
  /** Loading the history: the log is busy and says so. */
  loading: boolean
  /** A reply is still being written below. */
  active: boolean
  /**
   * The messages a row stands in for when it is a gap (not held): drawn at a height of their own
   * (gap-heights.ts), and read when the view reaches them.
   */
  gapOf?: (item: Item) => { key: string; count: number } | undefined
  /** The view has reached a gap, at `at` of its height (0 its top, 1 its bottom). */
  onGapReached?: (key: string, at: number) => void
  /** The seq of the message a row shows, when it has one. */
  itemSeq?: (item: Item) => number | undefined
  /** What the view shows once a scroll has settled, as the seqs of its first and last rows. */
  onViewing?: (lo: number, hi: number) => void
  /** Find beyond the rows held, and reading the page of a hit (resolves false when it could not be read). */
  remoteFind?: RemoteFind & { reveal: (seq: number) => Promise<boolean> }
  /**
   * A row to bring into view (a clicked notification's approval), once per `request`: the view
   * centres it, wherever the operator had scrolled. Ignored until the row is among the items.
   */
  reveal?: { key: string; request: object }
  /**
   * How many messages the operator has sent from this view: each one brings the view to the end,
   * wherever they had scrolled, and the view follows the reply from there, as a chat does after
   * you send. A send from another tab (its row shows here too) leaves this view where it is.
   */
  sends?: number
}

/** A first guess at a row's height, before it is measured. */
const ESTIMATED_ROW_PX = 140
/** Rows rendered beyond each edge of the window, so a quick scroll never shows a blank. */
const OVERSCAN = 3
/**
 * While the log scrolls, only this many: each step of a fast scroll mounts a new window of
 * replies (Markdown, layout) in one task, and rows far off the view are the ones it can spare.
 * The view following a stream scrolls too, so a stream runs with this overscan: fewer rows (each
 * a layer) for every frame to composite. The rows beyond it come back once scrolling has been
 * quiet for a moment (150 ms), or, while the view follows a reply being written, once it ends.
 */
const SCROLLING_OVERSCAN = 1
/** Where the browser has no scrollend event, a scroll this quiet has ended. */
const SCROLL_QUIET_MS = 150
/** How near the view (in screens, above and below) a gap has its page read. */
const GAP_REACH = 1
/** How often, at most, what the view shows is said (and pages far from it let go). */
const VIEW_EVERY_MS = 200
/** How close to the end still counts as reading the latest. */
const PIN_SLACK_PX = 48
/** How long "Jump to latest" must be wanted before it shows (a view following the end is short of it for a few frames). */
const JUMP_DELAY_MS = 250
/** How long a disclosure the operator toggled is held under the pointer while what it opened settles (lazy Markdown, highlighting). */
const HOLD_MS = 800

type RowContentProps = { item: unknown; render: (item: never) => ReactNode }

/**
 * A row's content, memoized on its item: the transcript renders again when the window's range or
 * scrolling state changes and when its items do (a reply growing, many times a second), and that
 * must not render every row in the window again.
 */
const RowContent = memo(function RowContent({ item, render }: RowContentProps) {
  return render(item as never)
})

/**
 * Keeps a control the operator just toggled (earlier versions) where it is on screen: the end
 * anchoring would otherwise move it by the height of what it opened. Corrects the scroll each
 * frame for a moment, as the opened content is measured and rendered.
 */
function holdInPlace(scroller: HTMLElement, control: HTMLElement): void {
  const top = control.getBoundingClientRect().top
  const until = performance.now() + HOLD_MS
  const step = () => {
    if (!control.isConnected) return
    const drift = control.getBoundingClientRect().top - top
    if (Math.abs(drift) >= 1) scroller.scrollTop += drift
    if (performance.now() < until) requestAnimationFrame(step)
  }
  requestAnimationFrame(step)
}

/**
 * Whether a row's new size moves the scroll with it, so that what the operator reads stays put.
 * A row measured for the first time (it just came into the window, a page just landed) is
 * compensated when it lies wholly above the middle of the view, where the eye (and the pointer)
 * is: rows that fill a gap above the row read must not push it down, even those in view. A row
 * measured again (a reply growing, a disclosure opening) is compensated when it lies wholly above
 * the view, in whichever direction the log scrolls. TanStack leaves a row alone while the log
 * scrolls up; but a row that comes back into the window above can measure other than when it
 * was last drawn (its Markdown had not loaded then, say), and left alone it moves every row
 * below it, the one read included. `startHeld`: the session's first message is among the rows
 * (no gap before it).
 */
function keepTheEye(item: VirtualItem, instance: Virtualizer<HTMLDivElement, Element>, startHeld: boolean): boolean {
  const offset = instance.scrollOffset ?? 0
  if (!instance.itemSizeCache.has(item.key)) {
    // At the very top of a session whose first message is held, the top is what the operator
    // went to (Home, the scrollbar dragged up): its rows keep the top of the view as they are
    // measured, and the first message stays in sight.
    if (startHeld && offset <= 0) return false
    return item.start + item.size <= offset + (instance.scrollRect?.height ?? 0) / 2
  }
  return item.start + item.size <= offset
}

/**
 * Where there is no layout (a test DOM), the log has no height: report a tall one so every row
 * renders, as it would on a screen tall enough to hold them (the range extractor below does the
 * rest: with no layout, no measured row has a size to place the window by).
 */
function observeRect<T extends Element>(instance: Virtualizer<T, Element>, cb: (rect: { width: number; height: number }) => void) {
  return observeElementRect(instance, (rect) => {
    if (rect.height > 0) withoutLayout.delete(instance)
    else withoutLayout.add(instance)
    cb(rect.height > 0 ? rect : { width: rect.width, height: Number.MAX_SAFE_INTEGER / 4 })
  })
}

/**
 * The logs whose scroller last measured no height. The range extractor asks here rather than
 * reading `clientHeight`, which lays the page out when a commit has just changed it (inside a
 * scroll event, right after new rows rendered).
 */
const withoutLayout = new WeakSet<object>()

/**
 * The scrolling log, windowed: only the rows in view (and a few either side) are in the DOM, so a
 * 10,000-message session costs what a 20-message one does. It stays pinned to the bottom while
 * anything at the bottom grows (text, a failure notice, the retry box, highlighting): TanStack
 * Virtual's end anchoring keeps the end in view as rows are measured. Scrolling up releases it;
 * "Jump to latest" (and End) brings the operator back, shown when something new arrives below or
 * the view is more than a screen above the end; Home goes to the session's first message. Find in session
 * reaches rows that are not in the DOM, which the browser's own find cannot.
 *
 * A session held in pages has gaps: each is one row as tall as the messages it stands for, so the
 * scrollbar spans the whole session. The view asks for a gap's page when it reaches it, and a page
 * that lands takes the place of the gap's part it fills at the same height (gap-heights.ts): the
 * row under the eye stays where it is.
 */
export function Transcript<Item>({ items: latest, itemKey, renderItem, itemText, loading, active, gapOf, onGapReached, itemSeq, onViewing, remoteFind, reveal: wanted, sends = 0 }: TranscriptProps<Item>) {
  const { t, i18n } = useTranslation()
  const scrollRef = useRef<HTMLDivElement>(null)
  // A session held in pages changes as pages land while the operator scrolls: the rows a page
  // brings into the window are rendered in the background, a row at a time between frames, not
  // in one task with the read. A session held whole (no gaps) renders its changes at once.
  const laid = useRef<{ items: readonly Item[]; keys: LaidItem[]; heights: Map<string, number> }>(undefined)
  const deferred = useDeferredValue(latest)
  const items = gapOf && latest.some((item) => gapOf(item) !== undefined) ? deferred : latest
  // The match and the focused row by key: rows come and go above them as pages are read.
  const [match, setMatch] = useState<string>()
  // What find looked for, marked where it occurs in the matched row.
  const [needle, setNeedle] = useState<string>()
  useMatchMarks(scrollRef, match === undefined ? undefined : needle, i18n.language)
  // The row holding the focus stays mounted when it scrolls out of the window, so keyboard and
  // screen-reader focus is never dropped onto the page.
  const [focusedKey, setFocusedKey] = useState<string>()
  // The instance of the last render: whether the log is scrolling picks the overscan, and whether
  // it has a layout the range (the same instance every render; it says it is scrolling before it
  // renders for it).
  const last = useRef<Virtualizer<HTMLDivElement, Element>>(undefined)

  // Each gap's height, kept from one list of items to the next (see gap-heights.ts). Derived when
  // the items change, before the virtualizer lays them out.
  if (laid.current?.items !== items) {
    const keys = items.map((item): LaidItem => {
      const gap = gapOf?.(item)
      return gap ? { key: itemKey(item), count: gap.count } : { key: itemKey(item) }
    })
    const before = laid.current
    const sizes = last.current?.itemSizeCache
    const rowHeight = (key: string) => sizes?.get(key) ?? ESTIMATED_ROW_PX
    const heights = keys.some((k) => k.count !== undefined)
      ? gapHeights(
          before && { items: before.keys, heightOf: (i) => (before.keys[i]!.count !== undefined ? (before.heights.get(before.keys[i]!.key) ?? 0) : rowHeight(before.keys[i]!.key)) },
          keys,
          rowHeight,
          ESTIMATED_ROW_PX,
        )
      : new Map<string, number>()
    // Whole pixels: a gap is measured as drawn, and a fraction would be read back as a change.
    for (const [key, px] of heights) heights.set(key, Math.round(px))
    laid.current = { items, keys, heights }
    // Heights of rows let go are kept for when their page comes back, a bounded number of them.
    if (sizes && sizes.size > KEPT_ABSENT_SIZES) forgetAbsentSizes(sizes, new Set(keys.map((k) => k.key)))
  }
  const gapHeight = (index: number) => {
    const entry = laid.current?.keys[index]
    return entry?.count !== undefined ? (laid.current?.heights.get(entry.key) ?? MIN_GAP_PX) : undefined
  }
  const indexOfKey = useMemo(() => new Map(items.map((item, index) => [itemKey(item), index])), [itemKey, items])
  const focusedRow = focusedKey === undefined ? undefined : indexOfKey.get(focusedKey)

  const rangeExtractor = useCallback(
    (range: Range) => {
      if (last.current && withoutLayout.has(last.current)) return Array.from({ length: range.count }, (_, i) => i)
      const rows = defaultRangeExtractor(range)
      return focusedRow === undefined || focusedRow >= range.count || rows.includes(focusedRow) ? rows : [...rows, focusedRow].sort((a, b) => a - b)
    },
    [focusedRow],
  )
  // The virtualizer hands out fresh functions each render, which the React Compiler cannot memoize
  // around; this component is left uncompiled, as TanStack documents.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => gapHeight(index) ?? ESTIMATED_ROW_PX,
    getItemKey: (index) => itemKey(items[index] as Item),
    observeElementRect: observeRect,
    // Following a reply as it is written is scrolling too, through its pauses (a tool running, a
    // slower stretch): a pause must not mount the rows beyond only for the next delta to drop them.
    overscan: last.current?.isScrolling || (active && (last.current?.isAtEnd() ?? true)) ? SCROLLING_OVERSCAN : OVERSCAN,
    rangeExtractor,
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: PIN_SLACK_PX,
    // A row's size or the scroll changing writes the rows' positions and the content's height
    // straight to the DOM: React renders the transcript again only when the window's range or
    // its scrolling state changes, never for a streaming reply's growth or a scroll step.
    directDomUpdates: true,
    directDomUpdatesMode: 'transform',
    // Rows a scroll brings into the window render in a task of their own, as React schedules it,
    // not synchronously inside the scroll event (TanStack's default, `flushSync`): mounting a
    // window of replies inside the event makes it a long task, and scroll events that come
    // together then render once.
    useFlushSync: false,
  })
  last.current = virtualizer
  const startHeld = gapHeight(0) === undefined
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, instance) => keepTheEye(item, instance, startHeld)
  const atEnd = virtualizer.isAtEnd()
  const virtualRows = virtualizer.getVirtualItems()

  // Rows that mounted while the log scrolls are measured by a ResizeObserver, after the frame
  // has been laid out with their estimated heights: a row below them would be seen at one place,
  // then at another. Measured here instead, before the frame, all read first and then written.
  const unmeasured = useRef(new Map<Element, number>())
  const measureRow = useCallback(
    (node: Element | null) => {
      virtualizer.measureElement(node)
      if (!node) return
      const index = Number(node.getAttribute('data-index'))
      const key = virtualizer.options.getItemKey(index)
      if (!virtualizer.itemSizeCache.has(key)) unmeasured.current.set(node, index)
    },
    [virtualizer],
  )
  useLayoutEffect(() => {
    const pending = unmeasured.current
    if (pending.size === 0) return
    // As TanStack measures a row (offsetHeight), so a later measure of the same row agrees.
    const sizes = [...pending].filter(([node]) => node.isConnected).map(([node, index]) => [index, (node as HTMLElement).offsetHeight] as const)
    pending.clear()
    for (const [index, size] of sizes) if (size > 0) virtualizer.resizeItem(index, size)
  })

  /** Whether the view has been placed at the end, where a session opens. */
  const placed = useRef(false)

  // A window that changes size (a phone turned, the panel folded, zoom) re-wraps every row: one
  // that was reading the end stays at the end. Only the operator's own scrolling moves the pin
  // (a resize changes no scroll position, so it fires no scroll event).
  const pinned = useRef(true)
  // A send from this view: the view goes to the end and is pinned there.
  const lastSends = useRef(sends)
  useLayoutEffect(() => {
    if (sends === lastSends.current) return
    lastSends.current = sends
    pinned.current = true
    virtualizer.scrollToEnd()
  }, [sends, virtualizer])
  /** What a settled scroll does besides: the pin, the gaps in reach, what the view shows. */
  const settled = useRef<() => void>(() => {})
  useLayoutEffect(() => {
    const element = scrollRef.current
    if (!element || typeof ResizeObserver === 'undefined') return
    const readPin = () => {
      pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight <= PIN_SLACK_PX
      settled.current()
    }
    // Read once a scroll has ended, not on every scroll event: reading the scroll height there
    // forced a layout of the rows the virtualizer had just put in, on every step of a scroll.
    // Where there is no scrollend event, a scroll is taken as ended after a short quiet.
    const endsScroll = 'onscrollend' in (element as EventTarget)
    let quiet: ReturnType<typeof setTimeout> | undefined
    const onScroll = () => {
      clearTimeout(quiet)
      quiet = setTimeout(readPin, SCROLL_QUIET_MS)
    }
    const observer = new ResizeObserver(() => {
      if (pinned.current) virtualizer.scrollToEnd()
    })
    if (endsScroll) element.addEventListener('scrollend', readPin, { passive: true })
    else element.addEventListener('scroll', onScroll, { passive: true })
    observer.observe(element)
    return () => {
      element.removeEventListener('scrollend', readPin)
      element.removeEventListener('scroll', onScroll)
      clearTimeout(quiet)
      observer.disconnect()
    }
  }, [virtualizer])

  // The gaps in the window (their page is worth reading) and what the view shows. Without a
  // layout (a test DOM) every row is in the window, and nothing is near or far.
  const hasLayout = !withoutLayout.has(virtualizer)
  const viewingTimer = useRef<ReturnType<typeof setTimeout>>(undefined)
  const wantsSaying = useRef(false)
  const shows = useRef<() => readonly [number, number] | undefined>(() => undefined)
  useEffect(() => () => clearTimeout(viewingTimer.current), [])
  const lookAround = () => {
    // Not before the view is placed at the end: the first window, at the top, is not where the operator is.
    const element = scrollRef.current
    if (!hasLayout || !placed.current || !element) return
    // Where the element is, which a scroll command has written before the virtualizer reads it back.
    const offset = element.scrollTop
    const height = element.clientHeight
    const middle = offset + height / 2
    const measurements = virtualizer.measurementsCache
    laid.current?.keys.forEach((entry, index) => {
      const at = measurements[index]
      if (entry.count === undefined || !at || at.end < offset - height * GAP_REACH || at.start > offset + height * (1 + GAP_REACH)) return
      onGapReached?.(entry.key, Math.min(1, Math.max(0, (middle - at.start) / at.size)))
    })
    // At most once in a while, and the last word after a pause: a long scroll lets pages go as it
    // goes (what is held stays a few pages), without a render for every step of it. What the view
    // shows is read when it is said, never from before (a page that just landed is in it).
    wantsSaying.current = true
    if (viewingTimer.current !== undefined) return
    const say = () => {
      const said = wantsSaying.current
      wantsSaying.current = false
      const range = said ? shows.current() : undefined
      if (range) onViewing?.(...range)
      viewingTimer.current = said ? setTimeout(say, VIEW_EVERY_MS) : undefined
    }
    say()
  }
  /** The seqs of the first and last rows in view, as the log is now. */
  shows.current = () => {
    const element = scrollRef.current
    if (!element) return undefined
    const offset = element.scrollTop
    const height = element.clientHeight
    let lo: number | undefined
    let hi: number | undefined
    for (const row of virtualizer.getVirtualItems()) {
      if (row.end <= offset || row.start >= offset + height) continue
      const seq = itemSeq?.(items[row.index] as Item)
      if (seq === undefined) continue
      lo ??= seq
      hi = seq
    }
    return lo === undefined || hi === undefined ? undefined : ([lo, hi] as const)
  }
  settled.current = lookAround
  const windowKey = virtualRows.map((row) => row.key).join(' ')
  useEffect(() => {
    if (!hasLayout || !laid.current?.heights.size) return
    lookAround()
    // Run for each new window: `lookAround` reads the virtualizer as it is then.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [windowKey, hasLayout])

  // The history arrives at the end of the conversation, where the newest line is.
  useLayoutEffect(() => {
    if (placed.current || loading || items.length === 0) return
    placed.current = true
    virtualizer.scrollToEnd()
  }, [items.length, loading, virtualizer])

  // The last row when the operator last saw the end: another last row is news below (rows read
  // into the history above are not).
  const lastKey = items.length > 0 ? itemKey(items[items.length - 1] as Item) : undefined
  const [seenLast, setSeenLast] = useState(lastKey)
  if (atEnd && seenLast !== lastKey) setSeenLast(lastKey)
  // More than a screen above the end (read when a scroll settles: the transcript renders then).
  const view = virtualizer.scrollRect?.height ?? 0
  const farFromEnd = hasLayout && view > 0 && virtualizer.getTotalSize() - (virtualizer.scrollOffset ?? 0) - view > view
  const wantJump = !atEnd && (lastKey !== seenLast || active || farFromEnd)
  // Shown once it has been wanted for a moment, gone at once: a view following the end is short
  // of it for a few frames whenever a row is added (a send's, a reply's), and the button flashed.
  const [jumpDue, setJumpDue] = useState(false)
  useEffect(() => {
    if (!wantJump) return setJumpDue(false)
    const timer = setTimeout(() => setJumpDue(true), JUMP_DELAY_MS)
    return () => clearTimeout(timer)
  }, [wantJump])
  const showJump = wantJump && jumpDue

  const jumpRef = useRef<HTMLButtonElement>(null)
  /**
   * Where the view goes far, the focus goes with it, to the log itself: not left on a control in a
   * row now far away (held mounted while it has the focus, the next Tab would scroll back to it),
   * nor on "Jump to latest", which leaves once the view is at the end (the focus fell to the page).
   * From the log, Tab goes on from the rows in view.
   */
  const takeFocus = useCallback(() => {
    const log = scrollRef.current
    const active = document.activeElement
    if (!log || !(active instanceof HTMLElement) || active === log) return
    if (log.contains(active) || active === jumpRef.current) log.focus({ preventScroll: true })
  }, [])
  /**
   * To the latest message, pinned there. At once from further than a couple of screens: a smooth
   * scroll through a session held in pages passes over gaps whose pages land on the way, and the
   * view keeping its place as each lands ends the animation where it is, short of the end.
   */
  const goToEnd = useCallback(() => {
    const element = scrollRef.current
    takeFocus()
    pinned.current = true
    const far = element ? element.scrollHeight - element.scrollTop - element.clientHeight > 2 * element.clientHeight : true
    virtualizer.scrollToEnd(far ? undefined : { behavior: 'smooth' })
  }, [takeFocus, virtualizer])
  /**
   * To the session's first message: the top, where its page is read if it is not held. As the
   * first row (a gap or the first message): the virtualizer holds a row's place until it stays
   * put, through the rows around it being measured.
   */
  const goToStart = useCallback(() => {
    takeFocus()
    pinned.current = false
    virtualizer.scrollToIndex(0, { align: 'start' })
  }, [takeFocus, virtualizer])

  // Home and End (Ctrl too) go to the session's first message and its latest, at once, where the
  // browser's own would scroll smoothly and stop short (see goToEnd): when a key lands in the log
  // outside a text field, or on the page after the operator last clicked in the log.
  useEffect(() => {
    const element = scrollRef.current
    if (!element) return
    let clickedInLog = false
    const onPointerDown = (event: PointerEvent) => {
      clickedInLog = event.target instanceof Node && element.contains(event.target)
    }
    const onKeyDown = (event: KeyboardEvent) => {
      const press = keyPressOf(event)
      if (event.defaultPrevented || press.altKey || press.shiftKey || press.metaKey || press.inTextField || (press.key !== 'Home' && press.key !== 'End')) return
      const target = event.target
      const inLog = target instanceof Node && element.contains(target)
      const onPage = target === document.body || target === document.documentElement
      if (!(inLog || (onPage && clickedInLog))) return
      event.preventDefault()
      if (event.key === 'End') goToEnd()
      else goToStart()
    }
    document.addEventListener('pointerdown', onPointerDown, true)
    document.addEventListener('keydown', onKeyDown)
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true)
      document.removeEventListener('keydown', onKeyDown)
    }
  }, [goToEnd, goToStart])

  const clearMatch = useCallback(() => {
    setMatch(undefined)
    setNeedle(undefined)
  }, [])
  const reveal = useCallback(
    (index: number, needle?: string) => {
      const item = items[index]
      if (item === undefined) return
      setMatch(itemKey(item))
      if (needle !== undefined) setNeedle(needle)
      // Centred when it fits; a row taller than the view (a long reply, its steps on top) shows
      // from its top, where its name, its steps and its first lines are, not its middle.
      const size = virtualizer.measurementsCache[index]?.size
      const view = scrollRef.current?.clientHeight ?? 0
      virtualizer.scrollToIndex(index, { align: size !== undefined && view > 0 && size > view ? 'start' : 'center' })
    },
    [itemKey, items, virtualizer],
  )

  // A row asked for from outside, once per request.
  const revealed = useRef<object>(undefined)
  useLayoutEffect(() => {
    if (!wanted || revealed.current === wanted.request || loading) return
    const index = indexOfKey.get(wanted.key)
    if (index === undefined) return
    revealed.current = wanted.request
    virtualizer.scrollToIndex(index, { align: 'center' })
  }, [indexOfKey, loading, virtualizer, wanted])

  // A find hit in a page not held: its page is read, then the view goes to its row.
  const [target, setTarget] = useState<number>()
  const revealSeq = useCallback(
    (seq: number, needle: string) => {
      setTarget(seq)
      setNeedle(needle)
      void remoteFind?.reveal(seq).then((ok) => {
        if (!ok) setTarget((now) => (now === seq ? undefined : now))
      })
    },
    [remoteFind],
  )
  useLayoutEffect(() => {
    if (target === undefined || !itemSeq) return
    // The row of that message, or the one before it that folds it (an earlier version).
    let found: number | undefined
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as Item
      if (gapOf?.(item)) continue
      const seq = itemSeq(item)
      if (seq === undefined || seq > target) break
      found = i
    }
    if (found === undefined) return
    const next = items[found + 1]
    // A gap right after it may still hold the message itself: wait for the page.
    if (next !== undefined && gapOf?.(next) && itemSeq(items[found] as Item) !== target) return
    setTarget(undefined)
    reveal(found)
  }, [gapOf, itemSeq, items, reveal, target])

  const hasGaps = laid.current.heights.size > 0
  const remote = useMemo(() => (remoteFind && hasGaps ? remoteFind : undefined), [hasGaps, remoteFind])

  return (
    <div className="transcript-frame">
      <FindBar items={items} itemText={itemText} itemSeq={itemSeq} onReveal={reveal} onRevealSeq={revealSeq} onClear={clearMatch} remote={remote} />
      <div
        ref={scrollRef}
        className="transcript"
        role="log"
        tabIndex={-1}
        aria-label={t('transcript.label')}
        aria-live="off"
        aria-busy={loading}
        onClickCapture={(event) => {
          const control = (event.target as Element).closest('[aria-expanded]')
          if (control instanceof HTMLElement && scrollRef.current) holdInPlace(scrollRef.current, control)
        }}
        onFocus={(event) => {
          const row = (event.target as Element).closest('[data-index]')
          const index = row ? Number(row.getAttribute('data-index')) : undefined
          setFocusedKey(index === undefined || items[index] === undefined ? undefined : itemKey(items[index] as Item))
        }}
        onBlur={(event) => {
          // Focus gone out of the log (to the composer, say): no row needs holding any more.
          if (!(event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget))) setFocusedKey(undefined)
        }}
      >
        {loading ? <p className="muted">{t('app.loading')}</p> : null}
        {!loading && items.length === 0 ? <p className="muted">{t('transcript.empty')}</p> : null}
        <div ref={virtualizer.containerRef} className="transcript__content">
          {virtualRows.map((row) => {
            const height = gapHeight(row.index)
            const key = String(row.key)
            return (
              <div
                key={row.key}
                ref={measureRow}
                data-index={row.index}
                className={`transcript__row${height !== undefined ? ' transcript__row--gap' : ''}${row.index === items.length - 1 ? ' transcript__row--last' : ''}${key === match ? ' transcript__row--match' : ''}`}
                style={height !== undefined ? { height } : undefined}
              >
                <FindNeedle.Provider value={key === match ? needle : undefined}>
                  <RowContent item={items[row.index]} render={renderItem} />
                </FindNeedle.Provider>
              </div>
            )
          })}
        </div>
      </div>
      {showJump ? (
        <button ref={jumpRef} type="button" className="button jump-to-latest" onClick={goToEnd}>
          {t('chat.jumpToLatest')}
        </button>
      ) : null}
    </div>
  )
}
