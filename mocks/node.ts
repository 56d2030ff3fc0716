/**
 * The mock daemon for node and jsdom tests, in the mswjs/examples `with-vitest` style: the test
 * owns the server's lifecycle (`listen` with `onUnhandledRequest: 'error'`, `resetHandlers`,
 * `close`) and may override a handler with `server.use(...)`.
 */
import { setupServer, type SetupServer } from 'msw/node'
import { handlersFor } from './handlers/index'
import { createDaemon, type DaemonOptions, type MockDaemon } from './model'

/** Pause between deltas in tests unless the test asks otherwise: fast, but still streamed. */
const TEST_DELTA_DELAY_MS = 5

/** A fresh in-memory daemon and an MSW server bound to it (not yet listening). */
export function createTestDaemon(options: DaemonOptions = {}): { daemon: MockDaemon; server: SetupServer } {
  const daemon = createDaemon({ deltaDelayMs: TEST_DELTA_DELAY_MS, ...options })
  return { daemon, server: setupServer(...handlersFor(daemon)) }
}
