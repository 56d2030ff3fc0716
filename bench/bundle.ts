/**
 * Scenario 6: the production build's JavaScript. Initial = the entry script of index.html, what
 * index.html preloads (`modulepreload`), and what those import statically; lazy = every other
 * chunk (reached only through `import()`). Sizes are raw and gzip (level 9, as a server would).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, posix, relative } from 'node:path'
import { gzipSync } from 'node:zlib'

type ChunkSize = { file: string; bytes: number; gzip: number }

export type BundleResult = {
  initial: ChunkSize[]
  initialBytes: number
  initialGzip: number
  lazy: ChunkSize[]
  css: ChunkSize[]
  /** Markers of the mock daemon found in the initial JavaScript (should be none). */
  mockMarkers: string[]
  /** A service worker file in the build, or a registration in the initial JavaScript. */
  serviceWorker: string[]
}

const MOCK_PATTERNS = [/mockServiceWorker/, /\bmsw\b/i, /__mockDaemon/, /setupWorker/, /__mock\//]
const SW_PATTERNS = [/serviceWorker\.register/]

function size(dir: string, file: string): ChunkSize {
  const body = readFileSync(join(dir, file))
  return { file, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length }
}

function listFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name)
      if (statSync(full).isDirectory()) walk(full)
      else out.push(relative(dir, full).split('\\').join('/'))
    }
  }
  walk(dir)
  return out
}

/** Static imports at the top of an ES module chunk: `import … from "./x.js"` and `import "./x.js"`, not `import("./x.js")`. */
function staticImports(source: string): string[] {
  const found: string[] = []
  const pattern = /\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?["']([^"']+\.js)["']/g
  for (const match of source.matchAll(pattern)) if (match[1]) found.push(match[1])
  return found
}

/** Measures the build in `dir` (which holds index.html). */
export function measureBundle(dir: string): BundleResult {
  const html = readFileSync(join(dir, 'index.html'), 'utf8')
  const toFile = (href: string) => href.replace(/^\//, '').replace(/^\.\//, '')
  const entries = [...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((m) => toFile(m[1] as string))
  const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => toFile(m[1] as string))
  const initial = new Set<string>()
  const queue = [...entries, ...preloads]
  while (queue.length) {
    const file = queue.shift() as string
    if (initial.has(file) || !existsSync(join(dir, file))) continue
    initial.add(file)
    const source = readFileSync(join(dir, file), 'utf8')
    for (const spec of staticImports(source)) if (spec.startsWith('.')) queue.push(posix.normalize(posix.join(posix.dirname(file), spec)))
  }
  const files = listFiles(dir)
  const initialSizes = [...initial].map((f) => size(dir, f))
  const initialText = [...initial].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n')
  return {
    initial: initialSizes,
    initialBytes: initialSizes.reduce((a, c) => a + c.bytes, 0),
    initialGzip: initialSizes.reduce((a, c) => a + c.gzip, 0),
    lazy: files
      .filter((f) => f.endsWith('.js') && !initial.has(f))
      .map((f) => size(dir, f))
      .sort((a, b) => b.gzip - a.gzip),
    css: files.filter((f) => f.endsWith('.css')).map((f) => size(dir, f)),
    mockMarkers: MOCK_PATTERNS.filter((p) => p.test(initialText)).map(String),
    serviceWorker: [
      ...files.filter((f) => /mockServiceWorker|(^|\/)sw\.js$|service-?worker/i.test(f)),
      ...SW_PATTERNS.filter((p) => p.test(initialText)).map(String),
    ],
  }
}
