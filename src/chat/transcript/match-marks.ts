/**
 * The words find-in-session matched, marked where they are in the row it went to: the CSS Custom
 * Highlight API paints them (`::highlight(rebound-find)` in styles.css) without a node added to
 * the row, so React's rows, the Markdown renderer's blocks and the text of a reply that is still
 * streaming are never touched. The marks follow the row as it changes (a reply streaming, a block
 * highlighted, the row scrolled out and back in). Where the API is missing (a test DOM, an older
 * browser) the row's outline alone says which it is.
 */
import { useEffect, type RefObject } from 'react'

const MATCH_HIGHLIGHT = 'rebound-find'

/** The row find went to, inside the log (transcript.tsx gives it this class). */
const MATCH_ROW = '.transcript__row--match'

const supported = () => typeof CSS !== 'undefined' && 'highlights' in CSS && typeof Highlight === 'function'

/**
 * Every place `needle` (already lower case in `locale`) occurs within one text node under `root`,
 * as ranges. A match that spans two nodes (a word half bold) is not marked: the row's outline
 * still says where it is. A node whose lower case changes its length (rare letters) is skipped, as
 * its offsets would not be the text's.
 */
export function matchRanges(root: Node, needle: string, locale: string): Range[] {
  if (!needle) return []
  const ranges: Range[] = []
  const walker = (root.ownerDocument ?? document).createTreeWalker(root, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue ?? ''
    if (text.length < needle.length) continue
    const lower = text.toLocaleLowerCase(locale)
    if (lower.length !== text.length) continue
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
      const range = new Range()
      range.setStart(node, at)
      range.setEnd(node, at + needle.length)
      ranges.push(range)
    }
  }
  return ranges
}

/**
 * Marks `needle` in the matched row under `container` while `needle` is set, and again whenever
 * anything under the container changes (at most once a frame); clears the marks when it is not.
 */
export function useMatchMarks(container: RefObject<HTMLElement | null>, needle: string | undefined, locale: string): void {
  useEffect(() => {
    const root = container.current
    if (!needle || !root || !supported()) return
    let frame: number | undefined
    const mark = () => {
      frame = undefined
      const row = root.querySelector(MATCH_ROW)
      const ranges = row ? matchRanges(row, needle, locale) : []
      if (ranges.length > 0) CSS.highlights.set(MATCH_HIGHLIGHT, new Highlight(...ranges))
      else CSS.highlights.delete(MATCH_HIGHLIGHT)
    }
    mark()
    const observer = new MutationObserver(() => {
      frame ??= requestAnimationFrame(mark)
    })
    observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['class'] })
    return () => {
      observer.disconnect()
      if (frame !== undefined) cancelAnimationFrame(frame)
      CSS.highlights.delete(MATCH_HIGHLIGHT)
    }
  }, [container, locale, needle])
}
