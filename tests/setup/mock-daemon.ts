import { afterAll, afterEach, beforeAll } from 'vitest'
import { createTestDaemon } from '../../mocks/node'

/**
 * Starts one mock daemon for the file: listening before all tests, refusing any request no
 * handler knows, reset after each test.
 */
export function startMockDaemonForFile(): ReturnType<typeof createTestDaemon> {
  const test = createTestDaemon()
  beforeAll(() => test.server.listen({ onUnhandledRequest: 'error' }))
  afterEach(() => {
    test.server.resetHandlers()
    test.daemon.reset()
  })
  afterAll(() => {
    test.daemon.dispose()
    test.server.close()
  })
  return test
}

