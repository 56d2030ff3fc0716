/**
 * Where a traced run's main-thread time went: the page renderer's main thread (CrRendererMain of
 * the renderer with the most events, among the processes named "Renderer": the browser's own
 * WebUI pages run in renderers named otherwise), complete events by name, self time (children
 * subtracted).
 *
 *   npx tsx bench/trace-summary.ts bench/.out/traces/stream20-rebound-1.json [top=20]
 */
import { readFileSync } from 'node:fs'

type TraceEvent = { name: string; ph: string; pid: number; tid: number; ts: number; dur?: number; args?: { name?: string } }

const [file, topArg] = process.argv.slice(2)
if (!file) {
  console.error('usage: tsx bench/trace-summary.ts TRACE.json [top]')
  process.exit(2)
}
const raw = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[]
const events = Array.isArray(raw) ? raw : (raw.traceEvents ?? [])
/** The browser's, the GPU's and its WebUI pages' processes: every one not named "Renderer". */
const notPages = new Set(events.filter((e) => e.ph === 'M' && e.name === 'process_name' && e.args?.name !== 'Renderer').map((e) => e.pid))
const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && !notPages.has(e.pid))
const count = new Map<string, number>()
for (const e of events) count.set(`${e.pid}:${e.tid}`, (count.get(`${e.pid}:${e.tid}`) ?? 0) + 1)
const main = mains.map((m) => `${m.pid}:${m.tid}`).sort((a, b) => (count.get(b) ?? 0) - (count.get(a) ?? 0))[0]
if (!main) throw new Error('no CrRendererMain thread in the trace')
const spans = events
  .filter((e) => e.ph === 'X' && typeof e.dur === 'number' && `${e.pid}:${e.tid}` === main)
  .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))
const self = new Map<string, number>()
const stack: Array<{ end: number; name: string }> = []
let total = 0
for (const e of spans) {
  const end = e.ts + (e.dur ?? 0)
  while (stack.length && (stack.at(-1) as { end: number }).end <= e.ts) stack.pop()
  const parent = stack.at(-1)
  if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - (e.dur ?? 0))
  else total += e.dur ?? 0
  self.set(e.name, (self.get(e.name) ?? 0) + (e.dur ?? 0))
  stack.push({ end, name: e.name })
}
const top = Number(topArg ?? 20)
console.log(`main thread ${main}: ${(total / 1000).toFixed(0)} ms in top-level events`)
for (const [name, us] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${(us / 1000).toFixed(0).padStart(8)} ms  ${name}`)
}
