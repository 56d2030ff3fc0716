import { describe, expect, it } from 'vitest'
import { snapshotFigures, type RawSnapshot } from '../../bench/snapshot-figures'

/** A heap snapshot in V8's JSON shape, built from nodes and the edges out of each. */
function snapshot(nodes: Array<{ type: string; id: number; size: number; edges?: Array<{ type: string; name: string; to: number }> }>): RawSnapshot {
  const nodeTypes = ['hidden', 'object', 'code', 'synthetic', 'string']
  const edgeTypes = ['property', 'internal', 'weak', 'element']
  const strings: string[] = []
  const str = (s: string) => {
    const at = strings.indexOf(s)
    return at >= 0 ? at : strings.push(s) - 1
  }
  const N = 5
  const flat: number[] = []
  const edges: number[] = []
  for (const node of nodes) {
    flat.push(nodeTypes.indexOf(node.type), str(`n${node.id}`), node.id, node.size, node.edges?.length ?? 0)
    for (const edge of node.edges ?? []) edges.push(edgeTypes.indexOf(edge.type), str(edge.name), edge.to * N)
  }
  return {
    snapshot: { meta: { node_fields: ['type', 'name', 'id', 'self_size', 'edge_count'], node_types: [nodeTypes], edge_fields: ['type', 'name_or_index', 'to_node'], edge_types: [edgeTypes] } },
    nodes: flat,
    edges,
    strings,
  }
}

// 0 root; 1 a fiber on screen (old); 2 its props (new); 3 its previous version (new); 4 the
// previous version's props (new); 5 compiled code (new); 6 only weakly held (new); 7 an old object
// only the previous version holds; 8 the current props' child, also held by the previous version.
const heap = snapshot([
  { type: 'synthetic', id: 1, size: 0, edges: [{ type: 'property', name: 'fiber', to: 1 }, { type: 'internal', name: 'code', to: 5 }, { type: 'weak', name: 'cache', to: 6 }] },
  { type: 'object', id: 10, size: 40, edges: [{ type: 'property', name: 'memoizedProps', to: 2 }, { type: 'property', name: 'alternate', to: 3 }] },
  { type: 'object', id: 20, size: 100, edges: [{ type: 'property', name: 'rows', to: 8 }] },
  { type: 'object', id: 30, size: 50, edges: [{ type: 'property', name: 'memoizedProps', to: 4 }, { type: 'property', name: 'alternate', to: 1 }, { type: 'property', name: 'kept', to: 7 }] },
  { type: 'string', id: 40, size: 200, edges: [{ type: 'element', name: '0', to: 8 }] },
  { type: 'code', id: 50, size: 1000 },
  { type: 'object', id: 60, size: 77 },
  { type: 'object', id: 70, size: 500 },
  { type: 'object', id: 80, size: 30 },
])

describe('snapshotFigures', () => {
  it('counts the compiled code and every node id', () => {
    const figures = snapshotFigures(heap)
    expect(figures.codeBytes).toBe(1000)
    expect([...figures.ids].sort((a, b) => a - b)).toEqual([1, 10, 20, 30, 40, 50, 60, 70, 80])
    expect(figures.previousRenderBytes).toBeUndefined()
  })

  it('counts the new data the roots reach only through an alternate edge', () => {
    // New since the earlier snapshot: everything but the root, the fiber on screen and the old object.
    const { previousRenderBytes } = snapshotFigures(heap, new Set([1, 10, 70]))
    // The previous version (50) and its props (200); not the current props' child both reach (30),
    // not the old object (500), the code (1000) or what is only weakly held (77).
    expect(previousRenderBytes).toBe(250)
  })

  it('counts nothing when no alternate edge leads to new data', () => {
    expect(snapshotFigures(heap, new Set([1, 10, 20, 30, 40, 50, 60, 70, 80])).previousRenderBytes).toBe(0)
  })
})
