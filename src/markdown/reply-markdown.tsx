/**
 * An agent reply rendered as Markdown (CommonMark, GFM tables, task lists, strikethrough and
 * autolinks, CJK-friendly emphasis), block by block so a streamed delta re-renders only the
 * block that grew. Import it through LazyReplyMarkdown: this module and its dependencies are a
 * chunk of their own.
 *
 * Each block's tree comes from parse.ts: made by the stream worker while a reply streams (see
 * stream-trees.ts and worker-trees.ts), else here. hast-util-to-jsx-runtime makes the elements, with
 * the components below, exactly as react-markdown would.
 *
 * Safe by construction: raw HTML is never markup (parse.ts turns it into text, shown as
 * written), only http(s) and mailto links are live, images never load, and nothing is set as
 * inner HTML.
 */
import { createContext, memo, use, useEffect, useMemo, useRef, useState, type ComponentProps, type ReactElement, type ReactNode } from 'react'
import { useTranslation } from '../i18n/use-translation'
import { Fragment, jsx, jsxs } from 'react/jsx-runtime'
import type { Element } from 'hast'
import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime'
import { CodeBlock } from './code-block'
import { openFence } from './open-fence'
import { parseBlock } from './parse'
import { repairStreamingBlock } from './repair'
import { safeHref } from './safe-url'
import { createTextKeyed } from './text-keyed'
import { takeTree } from './worker-trees'
import { whenIdle } from '../workers/idle'
import { blockSource, collectDefinitions, extendSplit, groupBlocks, splitSource, type BlockSplit } from './split-blocks'
import './markdown.css'

export type ReplyMarkdownProps = {
  /** The reply's Markdown, as far as it has arrived. */
  source: string
  /** True while deltas are still arriving: the last block is repaired and left unhighlighted. */
  streaming?: boolean
  /**
   * More of the reply follows this text (a later step of an agent's reply): once it has stopped
   * streaming, its last run of blocks may be skipped off screen as the runs before it are.
   */
  followed?: boolean
}

/** What a component is given besides its element's props: the element's hast node. */
type ExtraProps = { node?: Element | undefined }

/** True inside a live link: an image there is worded as text, never a link inside a link. */
const InLink = createContext(false)

function Link({ href, children }: ComponentProps<'a'> & ExtraProps) {
  const safe = safeHref(href)
  // Not a scheme a reply may link to: the link's words stay, as plain text.
  if (safe === undefined) return <span className="md-link-inert">{children}</span>
  return (
    <InLink value>
      <a href={safe} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    </InLink>
  )
}

/**
 * An image is never loaded: a reply could point it at any server (a tracking pixel, a URL with
 * the conversation in its query). It is worded with its alt text, and links to the image when
 * its URL is one a link may have, so the operator can open it on purpose.
 */
function Image({ src, alt }: ComponentProps<'img'> & ExtraProps) {
  const { t } = useTranslation()
  const inLink = use(InLink)
  const text = alt ? t('markdown.image', { alt }) : t('markdown.imageUntitled')
  const safe = typeof src === 'string' ? safeHref(src) : undefined
  if (inLink || safe === undefined) return <span className="md-image">{text}</span>
  return (
    <a className="md-image" href={safe} target="_blank" rel="noopener noreferrer">
      {text}
    </a>
  )
}

/**
 * A GFM task list item's box: shown, not editable. Drawn rather than a disabled `<input>`, which
 * browsers grey out until a ticked box can hardly be told from an empty one; it keeps the
 * checkbox role, state and a name for screen readers.
 */
function TaskBox({ type, checked }: ComponentProps<'input'> & ExtraProps) {
  const { t } = useTranslation()
  if (type !== 'checkbox') return null
  return <span role="checkbox" className="md-task" aria-checked={Boolean(checked)} aria-disabled="true" aria-label={t('markdown.task')} />
}

/** Tables keep their width and scroll sideways inside the reply. */
function Table({ node: _node, ...props }: ComponentProps<'table'> & ExtraProps) {
  return (
    <div className="md-table" tabIndex={0}>
      <table {...props} />
    </div>
  )
}

/** The few hast fields read from a `<pre>` (hast's own types are not a dependency here). */
type HastNode = { type: string; tagName?: string; value?: string; properties?: { className?: unknown }; children?: HastNode[] }

const textOf = (node: HastNode | undefined): string =>
  node === undefined ? '' : node.type === 'text' ? (node.value ?? '') : (node.children ?? []).map(textOf).join('')

/** The fence's tag, from the `language-…` class remark gives its `<code>`. */
function tagOf(code: HastNode | undefined): string | undefined {
  const classes = code?.properties?.className
  const names = Array.isArray(classes) ? classes.map(String) : []
  return names.find((name) => name.startsWith('language-'))?.slice('language-'.length)
}

function makeComponents(complete: boolean): Components {
  // Headings nest under the app's own (h1 the product, h2 the panels): `#` is an h3.
  const heading = (depth: number) =>
    function Heading({ node: _node, ...props }: ComponentProps<'h1'> & ExtraProps) {
      const Tag = `h${Math.min(6, depth + 2)}` as 'h3'
      return <Tag className={`md-h md-h${depth}`} {...props} />
    }
  return {
    a: Link,
    img: Image,
    input: TaskBox,
    table: Table,
    h1: heading(1),
    h2: heading(2),
    h3: heading(3),
    h4: heading(4),
    h5: heading(5),
    h6: heading(6),
    pre({ node }) {
      const code = (node as HastNode | undefined)?.children?.find((child) => child.tagName === 'code')
      // remark ends a fence's code with a newline; the block shows and copies the code as written.
      return <CodeBlock code={textOf(code).replace(/\n$/, '')} tag={tagOf(code)} complete={complete} />
    },
  }
}

const FINISHED_COMPONENTS = makeComponents(true)
const LIVE_COMPONENTS = makeComponents(false)

type MarkdownBlockProps = {
  text: string
  /** Link reference definitions from the finished blocks, so `[text][ref]` resolves in any block. */
  definitions: string
  complete: boolean
}

/**
 * Source characters of the finished blocks kept rendered: the replies near the view and those just
 * scrolled past, so a row that leaves the window and comes back renders without parsing again.
 * Rendered replies far from the view are let go like the pages that held them (a scroll over a
 * long session ends holding no more than this).
 */
export const KEPT_CHARACTERS = 40_000
/** Finished blocks rendered, by their Markdown, least recently used first. */
const kept = createTextKeyed<ReactElement>(KEPT_CHARACTERS)

/** A block's elements, from the worker's tree for this very Markdown if it sent one, else parsed here. */
const renderMarkdown = (markdown: string, complete: boolean): ReactElement =>
  toJsxRuntime(takeTree(markdown, complete) ?? parseBlock(markdown), {
    Fragment,
    jsx,
    jsxs,
    components: complete ? FINISHED_COMPONENTS : LIVE_COMPONENTS,
    ignoreInvalidStyle: true,
    passKeys: true,
    passNode: true,
  })

/**
 * A block's Markdown rendered to React elements (a pure function of the text: parse, clean,
 * elements). A finished block's elements are kept by its text.
 *
 * React keeps a block's render only once it commits. A render it throws away, or a block that
 * unmounts, would otherwise parse the same text again: a streaming reply's transition render
 * that newer text overtook (on a slow machine, overtaken again and again, each attempt parsing
 * every block finished since the last commit), a reply scrolled out of the window and back.
 * The growing block is never kept: its text is new at every commit.
 */
function renderBlock(markdown: string, complete: boolean): ReactElement {
  if (!complete) return renderMarkdown(markdown, false)
  const found = kept.touch(markdown)
  if (found !== undefined) return found
  const element = renderMarkdown(markdown, true)
  kept.set(markdown, element)
  return element
}

/**
 * One top-level block. Memoized on its props (strings and a flag), so a finished block renders
 * once and never again while later blocks stream in.
 */
const MarkdownBlock = memo(function MarkdownBlock({ text, definitions, complete }: MarkdownBlockProps) {
  // Definitions render nothing; put before the block, they cannot change how it parses.
  return renderBlock(blockSource(definitions, text), complete)
})

/** Blocks per memoized run (see groupBlocks): about the square root of a long reply's block count. */
const RUN_LENGTH = 50

type ReplyBlocks = { split: BlockSplit; runs: (readonly string[])[] }

/** Whether two splits cut their source into the same blocks. */
function sameBlocks(a: BlockSplit, b: BlockSplit): boolean {
  return a.blocks.length === b.blocks.length && a.blocks.every((block, i) => block === b.blocks[i] && a.kinds[i] === b.kinds[i])
}

/**
 * Remembers the last split of one reply and its runs. While streaming, each split extends the
 * previous one (only the tail is lexed again). A reply that finishes keeps extending, so its last
 * text shows in the very commit that ends it; `settle` then splits the whole source afresh (a long
 * reply's 100,000 characters are milliseconds of lexing, kept out of that commit), so a finished
 * reply is rendered exactly as a reply loaded from history is.
 */
class ReplySplitter {
  private last: ReplyBlocks | undefined
  private exact = false

  split(source: string, streaming: boolean): ReplyBlocks {
    const last = this.last
    if (last !== undefined && last.split.source === source) return last
    const fresh = !streaming && last === undefined
    const split = fresh ? splitSource(source) : extendSplit(last?.split, source)
    this.last = { split, runs: groupBlocks(split.blocks, RUN_LENGTH, last?.runs) }
    this.exact = fresh
    return this.last
  }

  /** Whether the finished reply's split may differ from a fresh one (settle has work to do). */
  get unsettled(): boolean {
    return !this.exact && this.last !== undefined
  }

  /** Splits the finished source afresh: the new blocks when that changed them (render again). */
  settle(): ReplyBlocks | undefined {
    const last = this.last
    if (this.exact || last === undefined) return undefined
    this.exact = true
    const fresh = splitSource(last.split.source)
    if (sameBlocks(fresh, last.split)) return undefined
    this.last = { split: fresh, runs: groupBlocks(fresh.blocks, RUN_LENGTH, last.runs) }
    return this.last
  }
}

/**
 * The blocks of `source`. The splitter is a cache, not state: a render React discards may
 * advance it, which stays correct because a split depends only on the source it was made from.
 */
function useBlocks(source: string, streaming: boolean): ReplyBlocks {
  const [splitter] = useState(() => new ReplySplitter())
  const [settled, setSettled] = useState<ReplyBlocks>()
  const blocks = useMemo(() => splitter.split(source, streaming), [splitter, source, streaming])
  useEffect(() => {
    if (streaming || !splitter.unsettled) return
    // Once the frame that shows the commit is out, or soon.
    return whenIdle(
      () => {
        const exact = splitter.settle()
        if (exact) setSettled(exact)
      },
      { timeout: 500, fallback: 0 },
    )
  }, [splitter, source, streaming])
  return !streaming && settled?.split.source === source ? settled : blocks
}

type BlockRunProps = {
  blocks: readonly string[]
  /** Index in `blocks` of the block still streaming in, or -1. */
  live: number
  /** Whether a later run follows this one in the reply. */
  followed: boolean
  definitions: string
}

/** A rough height for a run the browser has not laid out yet: a line of about 90 characters, 24 px. */
const estimatedHeight = (blocks: readonly string[]) => Math.max(48, Math.round(blocks.reduce((sum, block) => sum + block.length, 0) / 90) * 24)

/**
 * A run of blocks, memoized: a run with no live block and unchanged blocks renders nothing again.
 *
 * A finished run with a later one after it becomes `content-visibility: auto` once it has been
 * laid out (a frame after it mounts): while it is off screen the browser then skips its style,
 * layout and paint and keeps the size it had. Each commit of a long streaming reply lays out and
 * paints the runs near the view, not the whole reply. Waiting for the first layout means a reply
 * mounted again (scrolled out of the window and back) is measured at its true height, never an
 * estimate that would change under the operator as it scrolls. The last run is not, unless more
 * of the reply follows it (a piece of an agent's answer between its steps): a reply of one run
 * (nearly all of them) renders exactly as it would without runs.
 */
const BlockRun = memo(function BlockRun({ blocks, live, followed, definitions }: BlockRunProps) {
  const finished = followed && live === -1
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const run = ref.current
    if (!finished || !run || typeof requestAnimationFrame !== 'function') return
    // The frame after this commit lays the run out (and remembers its size); the next may skip it.
    // Marked on the element itself, not through React: it changes nothing React renders, and a
    // commit of its own for each run that finishes would be a frame of work for one attribute.
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => run.setAttribute('data-skippable', ''))
    })
    return () => {
      cancelAnimationFrame(frame)
      run.removeAttribute('data-skippable')
    }
  }, [finished])
  return (
    <div
      ref={ref}
      className={finished ? 'md-run md-run--finished' : 'md-run'}
      // `auto`: the size the browser last laid it out at stands in while it is skipped.
      style={finished ? { containIntrinsicSize: `auto ${estimatedHeight(blocks)}px` } : undefined}
    >
      {blocks.map((block, i) => {
        // Blocks only ever grow at the end while streaming: their index is their identity.
        if (i !== live) return <MarkdownBlock key={i} text={block} definitions={definitions} complete />
        const fence = openFence(block)
        return fence ? (
          <CodeBlock key={i} code={fence.code} tag={fence.tag} complete={false} />
        ) : (
          <MarkdownBlock key={i} text={repairStreamingBlock(block)} definitions={definitions} complete={false} />
        )
      })}
    </div>
  )
})

/**
 * An agent reply as Markdown. Each top-level block is its own memoized rendering: while the
 * reply streams, only the last (growing) block is parsed and rendered again, repaired so that
 * unfinished syntax reads sensibly, and its code stays plain until the block is finished.
 */
export function ReplyMarkdown({ source, streaming = false, followed = false }: ReplyMarkdownProps): ReactNode {
  const { split, runs } = useBlocks(source, streaming)
  const count = split.blocks.length
  const live = streaming ? count - 1 : -1
  const definitions = useMemo(() => collectDefinitions(split, live === -1 ? count : live), [split, count, live])
  return (
    <div className="md-reply">
      {runs.map((blocks, r) => {
        const start = r * RUN_LENGTH
        const liveHere = live >= start && live < start + blocks.length ? live - start : -1
        return <BlockRun key={r} blocks={blocks} live={liveHere} followed={followed || r < runs.length - 1} definitions={definitions} />
      })}
    </div>
  )
}
