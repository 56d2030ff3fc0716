import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { defineConfig, loadEnv, type Plugin } from 'vite'
import react from '@vitejs/plugin-react'

const WORKER = 'mockServiceWorker.js'
const workerSource = () => readFileSync(new URL(`./mocks/public/${WORKER}`, import.meta.url), 'utf8')

/**
 * Serves MSW's worker in mock mode only. It lives outside `public/` so that the production
 * build carries no service worker at all.
 */
function mockWorker(enabled: boolean): Plugin {
  return {
    name: 'rebound-mock-worker',
    configureServer(server) {
      if (!enabled) return
      server.middlewares.use(`/${WORKER}`, (_req, res) => {
        res.setHeader('content-type', 'text/javascript')
        res.end(workerSource())
      })
    },
    generateBundle() {
      if (enabled) this.emitFile({ type: 'asset', fileName: WORKER, source: workerSource() })
    },
  }
}

/**
 * The Content-Security-Policy of a built page, as a `<meta>` in index.html. Scripts come from
 * the page's own origin only, and the build emits no inline script (checked by the tests). Styles
 * too: React's `style` props are set through the CSSOM (`element.style`), which CSP does not
 * govern, so no 'unsafe-inline' is needed. The page may talk to its own origin and, when the build
 * bakes an absolute daemon URL, to that origin alone.
 */
export function contentSecurityPolicy(daemonOrigin: string): string {
  const connect = daemonOrigin ? `'self' ${daemonOrigin}` : "'self'"
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    // The stream worker and the highlight worker; in the static demo build, the mock daemon's service worker too.
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
}

/** Adds the policy to the built page only: the dev server needs its inline React refresh preamble. */
function csp(daemonOrigin: string): Plugin {
  return {
    name: 'rebound-csp',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy(daemonOrigin) }, injectTo: 'head-prepend' }],
    },
  }
}

type ModuleGraph = { getModuleInfo(id: string): { importers: readonly string[]; isEntry: boolean } | null }

/** Modules found in the initial script so far (the graph is the build's; one build per process). */
const initialScript = new Set<string>()

/**
 * Whether the entry imports `id` statically, however indirectly: whether it belongs in the initial
 * script. Its importers are walked up; one already on the path is not walked again.
 */
function inInitialScript(id: string, graph: ModuleGraph, path = new Set<string>()): boolean {
  if (initialScript.has(id)) return true
  const info = graph.getModuleInfo(id)
  if (!info || path.has(id)) return false
  path.add(id)
  const found = info.isEntry || info.importers.some((importer) => inInitialScript(importer, graph, path))
  path.delete(id)
  if (found) initialScript.add(id)
  return found
}

/** The origin of a daemon URL ('' when unset or unreadable). */
function originOf(url: string): string {
  if (!url) return ''
  try {
    return new URL(url).origin
  } catch {
    return ''
  }
}

/**
 * The stream worker parses Markdown (src/markdown/stream-trees.ts), and a worker has no DOM. The
 * one package in that parser whose browser build needs it, `decode-named-character-reference`
 * (it decodes entities through a `<textarea>`), resolves in the worker's bundle to its own DOM-free
 * build, the one node uses. The page's bundle keeps the smaller browser build.
 */
function domFreeInWorkers(): Plugin {
  const domFree = createRequire(import.meta.url).resolve('decode-named-character-reference')
  return {
    name: 'rebound-dom-free-in-workers',
    enforce: 'pre',
    resolveId(id) {
      return id === 'decode-named-character-reference' ? domFree : null
    },
  }
}

export default defineConfig(({ command, mode }) => {
  const env = loadEnv(mode, process.cwd(), 'VITE_')
  const daemonUrl = env.VITE_DAEMON_URL ?? process.env.VITE_DAEMON_URL ?? ''
  // Mock mode: the dev server with no daemon URL, or an explicit `--mode mock` build (the static demo).
  const mock = mode === 'mock' || (command === 'serve' && mode !== 'production' && daemonUrl === '')
  // In dev the client always talks to its own origin; the dev server proxies to the daemon.
  const apiBase = command === 'build' && !mock ? daemonUrl.replace(/\/$/, '') : ''
  return {
    plugins: [react(), mockWorker(mock), csp(originOf(apiBase))],
    // Workers are ES modules (both are started with `type: 'module'`): the highlight worker loads
    // each grammar as a chunk of its own, the first time a block in that language asks for it.
    worker: { format: 'es', plugins: () => [domFreeInWorkers()] },
    define: {
      __MOCK_DAEMON__: JSON.stringify(mock),
      __API_BASE__: JSON.stringify(apiBase),
    },
    // The Markdown renderer, the highlighter and a reply's steps load lazily, so the dev server
    // would find their dependencies only when the first reply renders and then reload the page
    // mid-conversation: crawl the lazy modules up front instead.
    optimizeDeps: {
      entries: ['index.html', 'src/markdown/reply-markdown.tsx', 'src/markdown/highlighter.ts', 'src/markdown/languages.ts', 'src/chat/reply/steps/reply-parts.tsx'],
    },
    // React, TanStack Query, i18next and zod/mini together are ~150 kB gzipped; one chunk is fine.
    build: {
      chunkSizeWarningLimit: 600,
      rolldownOptions: {
        output: {
          // Everything the entry imports statically is one script. Left alone, Rolldown puts what
          // the entry shares with two or more lazy chunks (React, i18next, the wire's schemas) in
          // chunks of their own, which the page loads at once anyway: more requests, and more
          // bytes, since each file is compressed on its own.
          codeSplitting: { groups: [{ name: (id, graph) => (inInitialScript(id, graph) ? 'index' : null) }] },
        },
      },
    },
    server: {
      // REBOUND_PORT lets several checkouts run their dev servers (and end-to-end suites) side by side.
      port: Number(process.env.REBOUND_PORT) || 5173,
      strictPort: true,
      proxy: daemonUrl
        ? {
            '/api': { target: daemonUrl, changeOrigin: true },
            '/__mock': { target: daemonUrl, changeOrigin: true },
          }
        : undefined,
    },
  }
})
