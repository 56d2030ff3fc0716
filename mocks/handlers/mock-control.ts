import { http, type RequestHandler } from 'msw'
import { UnknownOutcomeError } from '../faults'
import { type MockDaemon, parseJsonBody } from '../model'
import { json, refused } from './respond'

/**
 * The mock's own control surface (`/__mock/…`), for tests and tabs that reach the daemon over
 * HTTP. These requests are not in the request log: tests count the client's requests with it.
 */
export function mockControlHandlers(daemon: MockDaemon): RequestHandler[] {
  return [
    http.post('*/__mock/plan', async ({ request }) => {
      const body = parseJsonBody(await request.text())
      if (!body.ok) return refused(daemon, body.refusal)
      const faults = (body.value as { faults?: unknown } | undefined)?.faults
      if (!Array.isArray(faults)) {
        return json(daemon, { error: 'The body must be { "faults": [ ... ] }.', code: 'invalid_request' }, 422)
      }
      try {
        return json(daemon, { faults: daemon.plan(faults as string[]) })
      } catch (error) {
        if (!(error instanceof UnknownOutcomeError)) throw error
        return json(daemon, { error: error.message, code: 'invalid_request' }, 422)
      }
    }),

    http.get('*/__mock/state', () => json(daemon, daemon.state())),

    http.post('*/__mock/reset', () => {
      daemon.reset()
      return json(daemon, { reset: true })
    }),
  ]
}
