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
import remarkCjkFriendly from 'remark-cjk-friendly'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import { unified } from 'unified'
import { remarkFootnotesAsText } from './footnotes-as-text'
import { safeHref } from './safe-url'

export type BlockTree = Root

// GFM for tables, task lists, strikethrough and autolinks; CJK-friendly emphasis after it, as its
// README orders them; footnotes back to text (see footnotes-as-text.ts).
const processor = unified()
  .use(remarkParse)
  .use([remarkGfm, remarkCjkFriendly, remarkFootnotesAsText])
  .use(remarkRehype, { allowDangerousHtml: true })
  .freeze()

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

/** `markdown` (one or more top-level blocks) as a hast tree, cleaned as above. */
export function parseBlock(markdown: string): BlockTree {
  const tree = processor.runSync(processor.parse(markdown), markdown)
  delete tree.position
  clean(tree)
  return tree
}
