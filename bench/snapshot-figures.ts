/**
 * Figures read from a V8 heap snapshot (the JSON DevTools saves), for the growth scenario's heap
 * split: the compiled code, and the data only React's previous render still holds.
 *
 * React keeps two versions of every fiber: the one on screen and the one it rendered before
 * (`alternate`), which it reuses for the next render of that component. The previous version
 * keeps the props and state it was rendered with until the component renders again. After a
 * scroll that lets far pages go, the components that rendered the window before the last pages
 * were let go still hold those rows through their previous version: data the page itself no
 * longer reaches, that goes at their next render, and that a heap figure taken right then counts.
 */

export type RawSnapshot = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } }
  nodes: number[]
  edges: number[]
  strings: string[]
}

export type SnapshotFigures = {
  /** Bytes of the `code` nodes (what DevTools counts as "Compiled code"). */
  codeBytes: number
  /** Every node's id, to tell a later snapshot's new nodes. */
  ids: Set<number>
  /**
   * Bytes of the nodes not in `before` (code left out) that the roots reach only through a
   * fiber's `alternate` edge; undefined without `before`.
   */
  previousRenderBytes?: number
}

/** The figures of one snapshot; `before` (an earlier snapshot's ids) adds what only React's previous render holds of the new data. */
export function snapshotFigures(raw: RawSnapshot, before?: ReadonlySet<number>): SnapshotFigures {
  const { node_fields: nf, node_types: [nodeTypes], edge_fields: ef, edge_types: [edgeTypes] } = raw.snapshot.meta
  const N = nf.length
  const E = ef.length
  const [ti, si, ii, ci] = ['type', 'self_size', 'id', 'edge_count'].map((f) => nf.indexOf(f)) as [number, number, number, number]
  const [eti, eni, eto] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [number, number, number]
  const { nodes, edges, strings } = raw
  const count = nodes.length / N
  const code = nodeTypes.indexOf('code')
  const hidden = nodeTypes.indexOf('hidden')
  const weak = edgeTypes.indexOf('weak')
  const named = new Set(['property', 'internal', 'context', 'shortcut'].map((t) => edgeTypes.indexOf(t)))
  const alternate = strings.indexOf('alternate')

  let codeBytes = 0
  const ids = new Set<number>()
  const firstEdge = new Int32Array(count + 1)
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e
    e += nodes[i * N + ci] ?? 0
    if (nodes[i * N + ti] === code) codeBytes += nodes[i * N + si] ?? 0
    ids.add(nodes[i * N + ii] ?? 0)
  }
  firstEdge[count] = edges.length / E
  if (!before) return { codeBytes, ids }

  /** What the roots (node 0) reach, weak edges left out, and `alternate` edges too when `skipAlternate`. */
  const reach = (skipAlternate: boolean) => {
    const seen = new Uint8Array(count)
    const stack = [0]
    seen[0] = 1
    while (stack.length) {
      const from = stack.pop() as number
      for (let k = firstEdge[from] ?? 0; k < (firstEdge[from + 1] ?? 0); k++) {
        const kind = edges[k * E + eti]
        if (kind === weak) continue
        if (skipAlternate && alternate >= 0 && named.has(kind ?? -1) && edges[k * E + eni] === alternate) continue
        const to = (edges[k * E + eto] ?? 0) / N
        if (seen[to]) continue
        seen[to] = 1
        stack.push(to)
      }
    }
    return seen
  }
  const all = reach(false)
  const withoutPrevious = reach(true)
  let previousRenderBytes = 0
  for (let i = 0; i < count; i++) {
    const type = nodes[i * N + ti]
    if (!all[i] || withoutPrevious[i] || type === code || type === hidden || before.has(nodes[i * N + ii] ?? 0)) continue
    previousRenderBytes += nodes[i * N + si] ?? 0
  }
  return { codeBytes, ids, previousRenderBytes }
}
