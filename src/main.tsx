/**
 * Boot: the word tables, the query client, the daemon client, and — in mock mode only — the
 * in-browser mock daemon, started before the first request so nothing slips past it.
 */
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/app'
import { AppErrorBoundary } from './app/error-boundary'
import { AttentionProvider } from './app/attention'
import { createQueryClient, Providers } from './app/providers'
import { createChatRuntime } from './thread/runtime'
import { createAppI18n } from './i18n/setup'
import { createDaemonClient } from './wire/http'
import { followOnPage, loadPageReader } from './wire/follow-on-page'
import { browserInput } from './live/pacing'
import { loadReplyMarkdown } from './markdown/lazy-reply-markdown'
import type { FollowRun, ReadPage, WorkerFollow } from './wire/worker-follow'
import { whenIdle } from './workers/idle'
import './app/styles.css'

async function boot() {
  const i18n = await createAppI18n()
  const root = document.getElementById('root')
  if (!root) throw new Error('index.html has no #root')
  if (__MOCK_DAEMON__) {
    try {
      const { startMockDaemon } = await import('../mocks/browser')
      await startMockDaemon()
    } catch (error) {
      // Without the worker every request would go to a daemon that is not there: say so plainly.
      createRoot(root).render(<BootFailure title={i18n.t('app.bootFailed')} detail={i18n.t('app.bootMockFailed')} cause={error} />)
      return
    }
  }
  const baseUrl = __API_BASE__ || window.location.origin
  const client = createDaemonClient({ baseUrl })
  // Against a real daemon, runs' event streams are read in a worker, off the main thread. The
  // in-browser mock daemon answers the page's own requests only, so in mock mode they stay here.
  const follow =
    __MOCK_DAEMON__ || typeof Worker === 'undefined'
      ? undefined
      : lazyWorkerFollow(async () => {
          const [{ createWorkerFollow }, { offerTrees }] = await Promise.all([import('./wire/worker-follow'), import('./markdown/worker-trees')])
          return createWorkerFollow({ spawn: spawnStreamWorker, baseUrl, daemonClock: client.daemonClock, onTrees: offerTrees, input: browserInput() })
        })
  // Once the worker's code is here, pages of history are read there too (see readPage).
  const pagedClient = follow ? { ...client, listMessagesPage: follow.readPage(client.listMessagesPage) } : client
  const runtime = createChatRuntime(pagedClient, undefined, follow ? { follow } : {})
  // The worker's script loads on its own thread: start it once the page has settled, so the first
  // reply's stream does not wait for it. Built pages only: under the dev server the worker is a
  // graph of modules fetched one by one, which at idle competed with the page's own lazy chunks
  // (a renderer chunk still loading when the network dropped failed to load).
  if (follow && import.meta.env.PROD) whenIdle(() => follow.warm(), { fallback: 1_000 })
  // Without the worker (the in-browser mock daemon, a browser with no workers) runs are read on the
  // page: its reader is fetched at idle too, so the first reply does not wait for it.
  if (!follow) whenIdle(() => void loadPageReader().catch(() => undefined), { fallback: 1_000 })
  createRoot(root).render(
    <StrictMode>
      <AppErrorBoundary i18n={i18n}>
        <Providers i18n={i18n} queryClient={createQueryClient()} runtime={runtime}>
          <AttentionProvider>
            <App />
          </AttentionProvider>
        </Providers>
      </AppErrorBoundary>
    </StrictMode>,
  )
  // The Markdown renderer's chunk, fetched beside the first reads rather than after them: the
  // replies of the session opened paint as Markdown at once, not as plain text first.
  void loadReplyMarkdown()
}

type LazyWorkerFollow = FollowRun & {
  warm(): void
  /** `read` through the worker once its code is here; before that (the session's first page at boot), `read` itself, waiting on nothing. */
  readPage(read: ReadPage): ReadPage
}

/**
 * The worker's follow, its code fetched with the worker (at idle) or by the first run followed,
 * whichever comes first: it is not part of the first screen. If that code cannot be fetched, runs
 * and pages are read on the page, as they are when the worker cannot start.
 */
function lazyWorkerFollow(load: () => Promise<WorkerFollow>): LazyWorkerFollow {
  let loading: Promise<WorkerFollow | undefined> | undefined
  let ready: WorkerFollow | undefined
  const loaded = () =>
    (loading ??= load().then(
      (worker) => (ready = worker),
      () => undefined,
    ))
  const follow = (options: Parameters<WorkerFollow>[0]) => loaded().then((worker) => (worker ?? followOnPage)(options))
  const readPage =
    (read: ReadPage): ReadPage =>
    (...args) =>
      ready ? ready.readPage(read, ...args) : read(...args)
  return Object.assign(follow, { warm: () => void loaded().then((worker) => worker?.warm()), readPage })
}

function spawnStreamWorker(): Worker {
  return new Worker(new URL('./wire/stream.worker.ts', import.meta.url), { type: 'module', name: 'rebound-streams' })
}

function BootFailure({ title, detail, cause }: { title: string; detail: string; cause: unknown }) {
  return (
    <div className="failure" role="alert" style={{ margin: 24 }}>
      <p className="failure__text">
        <strong>{title}</strong> {detail}
      </p>
      <p className="failure__code">{cause instanceof Error ? cause.message : String(cause)}</p>
    </div>
  )
}

void boot()
