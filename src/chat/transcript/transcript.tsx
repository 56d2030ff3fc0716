import { defaultRangeExtractor, observeElementRect, useVirtualizer, type Range, type Virtualizer } from '@tanstack/react-virtual'
import { memo, useCallback, useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { FindBar } from './find-bar'

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
 * quiet for a moment (150 ms).
 */
const SCROLLING_OVERSCAN = 1
/** Where the browser has no scrollend event, a scroll this quiet has ended. */
const SCROLL_QUIET_MS = 150
/** How close to the end still counts as reading the latest. */
const PIN_SLACK_PX = 48
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
 * "Jump to latest" brings the operator back when something new arrives below. Find in session
 * reaches rows that are not in the DOM, which the browser's own find cannot.
 */
export function Transcript<Item>({ items, itemKey, renderItem, itemText, loading, active }: TranscriptProps<Item>) {
  const { t } = useTranslation()
  const scrollRef = useRef<HTMLDivElement>(null)
  const [match, setMatch] = useState<number>()
  // The row holding the focus stays mounted when it scrolls out of the window, so keyboard and
  // screen-reader focus is never dropped onto the page.
  const [focusedRow, setFocusedRow] = useState<number>()
  // The instance of the last render: whether the log is scrolling picks the overscan, and whether
  // it has a layout the range (the same instance every render; it says it is scrolling before it
  // renders for it).
  const last = useRef<Virtualizer<HTMLDivElement, Element>>(undefined)
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
    estimateSize: () => ESTIMATED_ROW_PX,
    getItemKey: (index) => itemKey(items[index] as Item),
    observeElementRect: observeRect,
    overscan: last.current?.isScrolling ? SCROLLING_OVERSCAN : OVERSCAN,
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
  const atEnd = virtualizer.isAtEnd()

  // A window that changes size (a phone turned, the panel folded, zoom) re-wraps every row: one
  // that was reading the end stays at the end. Only the operator's own scrolling moves the pin
  // (a resize changes no scroll position, so it fires no scroll event).
  const pinned = useRef(true)
  useLayoutEffect(() => {
    const element = scrollRef.current
    if (!element || typeof ResizeObserver === 'undefined') return
    const readPin = () => {
      pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight <= PIN_SLACK_PX
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

  // The history arrives at the end of the conversation, where the newest line is.
  const placed = useRef(false)
  useLayoutEffect(() => {
    if (placed.current || loading || items.length === 0) return
    placed.current = true
    virtualizer.scrollToEnd()
  }, [items.length, loading, virtualizer])

  // Rows there were when the operator last saw the end: more than that is news below.
  const [seenRows, setSeenRows] = useState(items.length)
  if (atEnd && seenRows !== items.length) setSeenRows(items.length)
  const newBelow = !atEnd && (items.length > seenRows || active)

  const clearMatch = useCallback(() => setMatch(undefined), [])
  const reveal = useCallback(
    (index: number) => {
      setMatch(index)
      virtualizer.scrollToIndex(index, { align: 'center' })
    },
    [virtualizer],
  )

  return (
    <div className="transcript-frame">
      <FindBar items={items} itemText={itemText} onReveal={reveal} onClear={clearMatch} />
      <div
        ref={scrollRef}
        className="transcript"
        role="log"
        aria-label={t('transcript.label')}
        aria-live="off"
        aria-busy={loading}
        onClickCapture={(event) => {
          const control = (event.target as Element).closest('[aria-expanded]')
          if (control instanceof HTMLElement && scrollRef.current) holdInPlace(scrollRef.current, control)
        }}
        onFocus={(event) => {
          const row = (event.target as Element).closest('[data-index]')
          setFocusedRow(row ? Number(row.getAttribute('data-index')) : undefined)
        }}
      >
        {loading ? <p className="muted">{t('app.loading')}</p> : null}
        {!loading && items.length === 0 ? <p className="muted">{t('transcript.empty')}</p> : null}
        <div ref={virtualizer.containerRef} className="transcript__content">
          {virtualizer.getVirtualItems().map((row) => (
            <div
              key={row.key}
              ref={virtualizer.measureElement}
              data-index={row.index}
              className={`transcript__row${row.index === items.length - 1 ? ' transcript__row--last' : ''}${row.index === match ? ' transcript__row--match' : ''}`}
            >
              <RowContent item={items[row.index]} render={renderItem} />
            </div>
          ))}
        </div>
      </div>
      {newBelow ? (
        <button type="button" className="button jump-to-latest" onClick={() => virtualizer.scrollToEnd({ behavior: 'smooth' })}>
          {t('chat.jumpToLatest')}
        </button>
      ) : null}
    </div>
  )
}
