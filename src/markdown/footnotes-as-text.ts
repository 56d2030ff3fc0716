/**
 * A remark plugin that leaves GFM footnotes as the text that was written (`[^1]`, `[^1]: …`).
 * A reply is rendered block by block, so a reference and its definition are rarely parsed
 * together; rendered as footnotes they would lose their text, and their ids would collide
 * between replies on one page.
 */

/** The few mdast fields this plugin reads (mdast's own types are not a dependency here). */
type MdNode = { type: string; label?: string | null; identifier?: string; value?: string; children?: MdNode[] }

const literal = (node: MdNode) => `[^${node.label ?? node.identifier ?? ''}]`

function rewrite(children: MdNode[]): MdNode[] {
  return children.flatMap((child): MdNode[] => {
    if (child.type === 'footnoteReference') return [{ type: 'text', value: literal(child) }]
    if (child.type === 'footnoteDefinition') {
      const content = rewrite(child.children ?? [])
      const marker: MdNode = { type: 'text', value: `${literal(child)}: ` }
      const [first, ...rest] = content
      if (first?.type === 'paragraph') return [{ ...first, children: [marker, ...(first.children ?? [])] }, ...rest]
      return [{ type: 'paragraph', children: [marker] }, ...content]
    }
    return child.children ? [{ ...child, children: rewrite(child.children) }] : [child]
  })
}

/** The plugin: footnote references and definitions back to their literal text. */
export function remarkFootnotesAsText() {
  return (tree: MdNode) => {
    if (tree.children) tree.children = rewrite(tree.children)
  }
}
