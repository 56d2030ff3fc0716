import { http, HttpResponse, type RequestHandler } from 'msw'
import { type MockDaemon, parseJsonBody } from '../model'

/**
 * The mock's own control surface (`/__mock/…`), for tests and tabs that reach the daemon over
 * HTTP. These requests are not in the request log: tests count the client's requests with it.
 */
export function mockControlHandlers(daemon: MockDaemon): RequestHandler[] {
  return [
    http.post('*/__mock/plan', async ({ request }) => {
      const body = parseJsonBody(await request.text())
      if (!body.ok) return HttpResponse.json(body.refusal.body, { status: body.refusal.status })
      const faults = (body.value as { faults?: unknown } | undefined)?.faults
      if (!Array.isArray(faults)) {
        return HttpResponse.json(
          { error: 'The body must be { "faults": [ ... ] }.', code: 'invalid_request' },
          { status: 422 },
        )
      }
      try {
        return HttpResponse.json({ faults: daemon.plan(faults as string[]) })
      } catch (error) {
        return HttpResponse.json({ error: (error as Error).message, code: 'invalid_request' }, { status: 422 })
      }
    }),

    http.get('*/__mock/state', () => HttpResponse.json(daemon.state())),

    http.post('*/__mock/reset', () => {
      daemon.reset()
      return HttpResponse.json({ reset: true })
    }),
  ]
}
