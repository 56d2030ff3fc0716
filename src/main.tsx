/**
 * Boot: the word tables, the query client, the daemon client, and — in mock mode only — the
 * in-browser mock daemon, started before the first request so nothing slips past it.
 */
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/app'
import { createQueryClient, Providers } from './app/providers'
import { createChatRuntime } from './chat/runtime'
import { createI18n } from './i18n/setup'
import { createDaemonClient } from './wire/http'
import './app/styles.css'

async function boot() {
  const i18n = createI18n({ detect: true })
  if (__MOCK_DAEMON__) {
    const { startMockDaemon } = await import('../mocks/browser')
    await startMockDaemon()
  }
  const runtime = createChatRuntime(createDaemonClient({ baseUrl: __API_BASE__ || window.location.origin }))
  const root = document.getElementById('root')
  if (!root) throw new Error('index.html has no #root')
  createRoot(root).render(
    <StrictMode>
      <Providers i18n={i18n} queryClient={createQueryClient()} runtime={runtime}>
        <App />
      </Providers>
    </StrictMode>,
  )
}

void boot()
