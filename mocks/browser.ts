/**
 * The mock daemon in the browser: an MSW service worker answering the page's own origin, with
 * state kept in localStorage so a reload replays streams and carries on interrupted runs.
 */
import { setupWorker } from 'msw/browser'
import { handleFor, type MockDaemonHandle } from './handle'
import { handlersFor } from './handlers/index'
import { createDaemon, type DaemonStorage, type MockDaemon } from './model'

/** The localStorage key of the daemon's state; bump the version when the saved shape changes. */
export const STORAGE_KEY = 'rebound.mock-daemon.v1'

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
 * Applies `?long=N` once: writes a session of N messages and opens it (its address replaces this
 * one, every other parameter kept), so history in pages can be tried without a daemon of its own.
 */
function applyQueryLongSession(handle: MockDaemonHandle): void {
  const url = new URL(window.location.href)
  const long = url.searchParams.get('long')
  if (long === null) return
  url.searchParams.delete('long')
  try {
    const id = handle.longSession(Number(long))
    url.pathname = `/sessions/${encodeURIComponent(id)}`
  } catch (error) {
    console.warn(`[mock daemon] ?long ignored: ${(error as Error).message}`)
  }
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`)
}

/**
 * Starts the in-browser mock daemon: loads its saved state (a corrupt save starts fresh), applies
 * `?faults=` and `?long=`, registers the worker, then carries on the runs a reload interrupted.
 */
export async function startMockDaemon(): Promise<MockDaemon> {
  const daemon = createDaemon({ storage: localStorageStorage(STORAGE_KEY) })
  applyQueryFaults(daemon)
  const handle = handleFor(daemon)
  applyQueryLongSession(handle)
  window.__mockDaemon = handle
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
