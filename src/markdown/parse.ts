/**
 * A block of a reply's Markdown parsed to a hast tree, ready to render: what react-markdown does
 * before it makes elements, split off so it can run where the rendering does not. The stream
 * worker parses a streaming reply's blocks here (see stream-trees.ts) and the page renders the
 * trees it hands over (reply-markdown.tsx); a block the worker did not parse is parsed here on the
 * page, by the same function, so both give the same tree for the same text.
 *
 * The pipeline is react-markdown 10's: remark-parse with GFM, CJK-friendly emphasis and
 * footnotes left as text, remark-rehype with raw HTML kept as `raw` nodes, then its `post` step:
 * raw HTML becomes text (shown as written, never markup) and every URL attribute goes through
 * `safeHref` (only http(s) and mailto survive). One frozen processor serves every block; the
 * trees carry no source positions (nothing reads them, and they would double what a tree costs
 * to copy between threads).
 */
import type { Element, ElementContent, Root, RootContent } from 'hast'
import { urlAttributes } from 'html-url-attributes'
import { gfmFootnoteFromMarkdown } from 'mdast-util-gfm-footnote'
import { gfmStrikethroughFromMarkdown } from 'mdast-util-gfm-strikethrough'
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table'
import { gfmTaskListItemFromMarkdown } from 'mdast-util-gfm-task-list-item'
import { gfmFootnote } from 'micromark-extension-gfm-footnote'
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough'
import { gfmTable } from 'micromark-extension-gfm-table'
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item'
import { combineExtensions } from 'micromark-util-combine-extensions'
import remarkCjkFriendly from 'remark-cjk-friendly'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import { unified, type Processor } from 'unified'
import { remarkFootnotesAsText } from './footnotes-as-text'
import { safeHref } from './safe-url'

export type BlockTree = Root

/**
 * remark-gfm less its autolink literals (bare `www.` and `http(s)://` addresses and emails made
 * links): the same extensions, in remark-gfm's order, from the packages remark-gfm combines. An
 * autolink literal is tried at every letter of the text (an email may start at any), which made
 * it about a third of a reply's parse; a block without `www`, `http` or `@` holds none, and is
 * parsed without it to the same tree (tests/unit/markdown-parse.test.ts).
 */
function remarkGfmWithoutAutolinkLiterals(this: Processor) {
  const data = this.data()
  ;(data.micromarkExtensions ??= []).push(combineExtensions([gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()]))
  ;(data.fromMarkdownExtensions ??= []).push([gfmFootnoteFromMarkdown(), gfmStrikethroughFromMarkdown(), gfmTableFromMarkdown(), gfmTaskListItemFromMarkdown()])
}

/** What an autolink literal needs in a block: without any of these, there is none. */
const MAY_AUTOLINK = /www|http|@/i

// GFM for tables, task lists, strikethrough and autolinks; CJK-friendly emphasis after it, as its
// README orders them; footnotes back to text (see footnotes-as-text.ts).
const pipeline = (gfm: typeof remarkGfm | typeof remarkGfmWithoutAutolinkLiterals) =>
  unified()
    .use(remarkParse)
    .use([gfm, remarkCjkFriendly, remarkFootnotesAsText])
    .use(remarkRehype, { allowDangerousHtml: true })
    .freeze()
const processor = pipeline(remarkGfm)
/** The same for a block that cannot hold an autolink literal (MAY_AUTOLINK). */
const withoutAutolinks = pipeline(remarkGfmWithoutAutolinkLiterals)

type Parent = Root | Element

/** react-markdown's `post`, minus what is not used here (allowed elements, skipping HTML). */
function clean(parent: Parent): void {
  const children = parent.children as (RootContent | ElementContent)[]
  for (let i = 0; i < children.length; i++) {
    const node = children[i]!
    delete node.position
    if (node.type === 'raw') {
      children[i] = { type: 'text', value: node.value }
      continue
    }
    if (node.type !== 'element') continue
    for (const key in urlAttributes) {
      if (!Object.hasOwn(urlAttributes, key) || !Object.hasOwn(node.properties, key)) continue
      const tags = urlAttributes[key]
      if (tags === null || tags === undefined || tags.includes(node.tagName)) {
        node.properties[key] = safeHref(String(node.properties[key] || ''))
      }
    }
    clean(node)
  }
}

/**
 * `markdown` (one or more top-level blocks) as a hast tree, cleaned as above; with `always`, parsed
 * with autolink literals even where it cannot hold one (the tests compare the two).
 */
export function parseBlock(markdown: string, autolinks: 'where-possible' | 'always' = 'where-possible'): BlockTree {
  const parser = autolinks === 'always' || MAY_AUTOLINK.test(markdown) ? processor : withoutAutolinks
  const tree = parser.runSync(parser.parse(markdown), markdown)
  delete tree.position
  clean(tree)
  return tree
}
