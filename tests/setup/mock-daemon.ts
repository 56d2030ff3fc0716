import { afterAll, afterEach, beforeAll } from 'vitest'
import { createTestDaemon } from '../../mocks/node'

/**
 * Starts one mock daemon for the file: listening before all tests, refusing any request no
 * handler knows, reset after each test.
 */
export function startMockDaemonForFile(options?: Parameters<typeof createTestDaemon>[0]): ReturnType<typeof createTestDaemon> {
  const test = createTestDaemon(options)
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

/**
 * `startMockDaemonForFile` with a daemon whose clock runs `skew.ms` off the browser's (positive:
 * ahead). A test sets `skew.ms`; it is back to 0 after each test.
 */
export function startSkewedDaemonForFile(): ReturnType<typeof createTestDaemon> & { skew: { ms: number } } {
  const skew = { ms: 0 }
  const test = startMockDaemonForFile({ now: () => Date.now() + skew.ms })
  afterEach(() => {
    skew.ms = 0
  })
  return { ...test, skew }
}
