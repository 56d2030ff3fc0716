/**
 * What a page's heap gained between two heap snapshots, and where it came from: the compiled code
 * V8 added (machine code, its deoptimisation data, feedback) by the source file or package of the
 * function it was compiled for, through the build's source maps, and the data added by the
 * object that already held its place in the first snapshot (a Map that grew, a React fiber's
 * props).
 *
 * `npm run bench -- --only session100k --subjects rebound --runs 1 --trace` saves the scroll's
 * snapshots (before the trip, after it, after a second) beside the traces and builds the app
 * with hidden source maps:
 *
 *   npx tsx bench/heap-growth.ts bench/.out/traces/session100k-rebound-1-scroll-before.heapsnapshot \
 *     bench/.out/traces/session100k-rebound-1-scroll-after.heapsnapshot [assets=bench/.out/app/assets] [top=25]
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping'

type Raw = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]]; location_fields?: string[] } }
  nodes: number[]
  edges: number[]
  strings: string[]
  locations?: number[]
}

type Retainer = { from: number; edge: string }

/** A heap snapshot's nodes by index (type, name, size, id), who retains each, and where each closure's code lies. */
type Heap = {
  count: number
  type: (i: number) => string
  name: (i: number) => string
  size: (i: number) => number
  id: (i: number) => number
  retainers: Retainer[][]
  children: number[][]
  /** A closure's script URL, line (0-based) and column. */
  location: Map<number, { url: string; line: number; column: number }>
}

function readHeap(file: string): Heap {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Raw
  const { node_fields: nf, node_types: [nodeTypes], edge_fields: ef, edge_types: [edgeTypes] } = raw.snapshot.meta
  const N = nf.length
  const E = ef.length
  const [ti, ni, si, ii, ci] = ['type', 'name', 'self_size', 'id', 'edge_count'].map((f) => nf.indexOf(f)) as [number, number, number, number, number]
  const [eti, eni, eto] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [number, number, number]
  const { nodes, edges, strings } = raw
  const count = nodes.length / N
  const retainers: Retainer[][] = Array.from({ length: count }, () => [])
  const children: number[][] = Array.from({ length: count }, () => [])
  const firstEdge: number[] = []
  let e = 0
  for (let i = 0; i < count; i++) {
    firstEdge.push(e)
    const n = nodes[i * N + ci] ?? 0
    for (let k = e; k < e + n; k++) {
      const kind = edgeTypes[edges[k * E + eti] ?? 0] ?? ''
      if (kind === 'weak') continue
      const to = (edges[k * E + eto] ?? 0) / N
      const label = edges[k * E + eni] ?? 0
      const edge = kind === 'element' || kind === 'hidden' ? String(label) : (strings[label] ?? '')
      retainers[to]?.push({ from: i, edge })
      children[i]?.push(to)
    }
    e += n
  }
  const nameOf = (i: number) => strings[nodes[i * N + ni] ?? 0] ?? ''
  const typeOf = (i: number) => nodeTypes[nodes[i * N + ti] ?? 0] ?? ''
  // A script's URL: the string its `name` edge points to.
  const urlOf = (script: number) => {
    for (let k = firstEdge[script] ?? 0; k < (firstEdge[script] ?? 0) + (nodes[script * N + ci] ?? 0); k++) {
      const kind = edgeTypes[edges[k * E + eti] ?? 0]
      if ((kind === 'internal' || kind === 'property') && strings[edges[k * E + eni] ?? 0] === 'name') return nameOf((edges[k * E + eto] ?? 0) / N)
    }
    return ''
  }
  const location = new Map<number, { url: string; line: number; column: number }>()
  const lf = raw.snapshot.meta.location_fields ?? ['object_index', 'script_id', 'line', 'column']
  const [oi, soi, li, coi] = ['object_index', 'script_object_index', 'line', 'column'].map((f) => lf.indexOf(f)) as [number, number, number, number]
  const locations = raw.locations ?? []
  const urls = new Map<number, string>()
  for (let k = 0; k < locations.length; k += lf.length) {
    const script = soi < 0 ? -1 : (locations[k + soi] ?? 0) / N
    if (!urls.has(script)) urls.set(script, script < 0 ? '' : urlOf(script))
    location.set((locations[k + oi] ?? 0) / N, { url: urls.get(script) ?? '', line: locations[k + li] ?? 0, column: locations[k + coi] ?? 0 })
  }
  return {
    count,
    type: typeOf,
    name: nameOf,
    size: (i) => nodes[i * N + si] ?? 0,
    id: (i) => nodes[i * N + ii] ?? 0,
    retainers,
    children,
    location,
  }
}

/** A source file's place: the package under node_modules, or the path from src/. */
function sourceOf(source: string | null): string {
  if (!source) return '(no source)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)
  if (pkg) return pkg[1] as string
  const at = source.lastIndexOf('/src/')
  return at >= 0 ? source.slice(at + 1) : source
}

const [beforeFile, afterFile, assetsArg, topArg] = process.argv.slice(2)
if (!beforeFile || !afterFile) {
  console.error('usage: tsx bench/heap-growth.ts BEFORE.heapsnapshot AFTER.heapsnapshot [assets dir] [top]')
  process.exit(2)
}
const assets = assetsArg ?? join('bench', '.out', 'app', 'assets')
const top = Number(topArg) || 25
const before = readHeap(beforeFile)
const after = readHeap(afterFile)
const existed = new Set<number>()
for (let i = 0; i < before.count; i++) existed.add(before.id(i))
const isNew = (i: number) => !existed.has(after.id(i))
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

const maps = new Map<string, TraceMap | undefined>()
const mapFor = (url: string) => {
  const file = basename(new URL(url, 'http://x/').pathname)
  if (!maps.has(file)) {
    const path = join(assets, `${file}.map`)
    maps.set(file, existsSync(path) ? new TraceMap(readFileSync(path, 'utf8')) : undefined)
  }
  return maps.get(file)
}

// Compiled code: each new Code object with the code objects it points to (its instructions, their
// deoptimisation data), put on the closure that runs it.
const code = new Map<string, number>()
let codeTotal = 0
let unplaced = 0
const unmapped = new Set<string>()
for (let i = 0; i < after.count; i++) {
  if (after.name(i) !== 'system / Code' || !isNew(i)) continue
  let bytes = after.size(i)
  for (const c of after.children[i] ?? []) if (after.type(c) === 'code' && isNew(c)) bytes += after.size(c)
  codeTotal += bytes
  const closure = (after.retainers[i] ?? []).map((r) => r.from).find((r) => after.type(r) === 'closure' && after.location.has(r))
  const at = closure === undefined ? undefined : after.location.get(closure)
  if (!at) {
    unplaced += bytes
    continue
  }
  const map = at.url ? mapFor(at.url) : undefined
  if (at.url && !map) unmapped.add(basename(at.url))
  // A script with no URL is code evaluated into the page: the bench's probe, Playwright's own.
  const key = map ? sourceOf(originalPositionFor(map, { line: at.line + 1, column: at.column }).source) : at.url ? `${basename(at.url)} (no source map)` : '(evaluated: the probe, Playwright)'
  code.set(key, (code.get(key) ?? 0) + bytes)
}

/** What DevTools calls "Compiled code": the bytes of every `code` node. */
const codeBytes = (heap: Heap) => {
  let bytes = 0
  for (let i = 0; i < heap.count; i++) if (heap.type(i) === 'code') bytes += heap.size(i)
  return bytes
}

console.log(`compiled code: ${kb(codeBytes(before))} → ${kb(codeBytes(after))}; new Code objects and their instructions ${kb(codeTotal)}, by the source of the function they run:`)
for (const [key, bytes] of [...code].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${kb(bytes).padStart(10)}  ${key}`)
console.log(`  ${kb(unplaced).padStart(10)}  (no closure: baseline code on a function's shared info, regular expressions)`)
if (unmapped.size) console.log(`  (no source map beside ${[...unmapped].join(', ')}: a traced run builds them, with --sourcemap hidden)`)

// Data: each new object on the nearest object that was already there, named by that object's own place.
const placeOf = (i: number, hops: number) => {
  const parts: string[] = []
  let at = i
  const seen = new Set([i])
  for (let h = 0; h < hops; h++) {
    const r = (after.retainers[at] ?? []).find((x) => !seen.has(x.from) && after.type(x.from) !== 'hidden' && !after.name(x.from).startsWith('(GC roots'))
    if (!r) break
    seen.add(r.from)
    parts.push(`${after.name(r.from).slice(0, 40) || after.type(r.from)}.${r.edge}`)
    at = r.from
  }
  return parts.join(' ← ')
}
const data = new Map<number, { bytes: number; count: number }>()
let dataTotal = 0
for (let i = 0; i < after.count; i++) {
  if (!isNew(i) || after.type(i) === 'code' || after.type(i) === 'hidden') continue
  // Up the first retainers to the first object that existed before.
  let at = i
  const seen = new Set([i])
  while (isNew(at)) {
    const r = (after.retainers[at] ?? []).find((x) => !seen.has(x.from))
    if (!r) break
    seen.add(r.from)
    at = r.from
  }
  if (isNew(at)) continue
  dataTotal += after.size(i)
  const slot = data.get(at) ?? { bytes: 0, count: 0 }
  slot.bytes += after.size(i)
  slot.count++
  data.set(at, slot)
}
console.log(`\nnew data ${kb(dataTotal)} (what was let go is not subtracted), by the object that already held it:`)
for (const [holder, { bytes, count }] of [...data].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
  console.log(`  ${kb(bytes).padStart(10)}  ${String(count).padStart(6)} objects  ${after.name(holder).slice(0, 30) || after.type(holder)} ← ${placeOf(holder, 4)}`)
}
