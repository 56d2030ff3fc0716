/**
 * The mock daemon in the browser: an MSW service worker answering the page's own origin, with
 * state kept in localStorage so a reload replays streams and carries on interrupted runs.
 */
import { setupWorker } from 'msw/browser'
import { handlersFor } from './handlers/index'
import { createDaemon, type DaemonState, type DaemonStorage, type MockDaemon } from './model'

/** The localStorage key of the daemon's state; bump the version when the saved shape changes. */
export const STORAGE_KEY = 'rebound.mock-daemon.v1'

/** What the page exposes as `window.__mockDaemon` for the console and end-to-end tests. */
export type MockDaemonHandle = {
  plan(faults: readonly string[]): string[]
  state(): DaemonState
  reset(): void
}

declare global {
  interface Window {
    __mockDaemon?: MockDaemonHandle
  }
}

function localStorageStorage(key: string): DaemonStorage {
  return {
    load() {
      try {
        return window.localStorage.getItem(key)
      } catch {
        return null
      }
    },
    save(state) {
      window.localStorage.setItem(key, state)
    },
  }
}

/**
 * Applies `?faults=a,b,c` once and takes it out of the address bar, keeping every other
 * parameter, so a reload does not plan the same faults again.
 */
function applyQueryFaults(daemon: MockDaemon): void {
  const url = new URL(window.location.href)
  const faults = url.searchParams.get('faults')
  if (faults === null) return
  url.searchParams.delete('faults')
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`)
  const entries = faults
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  try {
    daemon.plan(entries)
  } catch (error) {
    console.warn(`[mock daemon] ?faults ignored: ${(error as Error).message}`)
  }
}

/**
 * Starts the in-browser mock daemon: loads its saved state (a corrupt save starts fresh), applies
 * `?faults=`, registers the worker, then carries on the runs a reload interrupted.
 */
export async function startMockDaemon(): Promise<MockDaemon> {
  const daemon = createDaemon({ storage: localStorageStorage(STORAGE_KEY) })
  applyQueryFaults(daemon)
  window.__mockDaemon = {
    plan: (faults) => daemon.plan(faults),
    state: () => daemon.state(),
    reset: () => daemon.reset(),
  }
  // Saves are coalesced per task; a closing tab must not lose the last one.
  window.addEventListener('pagehide', () => daemon.flush())
  const worker = setupWorker(...handlersFor(daemon))
  await worker.start({
    onUnhandledRequest: 'bypass',
    quiet: true,
    serviceWorker: { url: '/mockServiceWorker.js' },
  })
  daemon.resume()
  return daemon
}
