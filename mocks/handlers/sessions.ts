import { http, HttpResponse, type RequestHandler } from 'msw'
import { type MockDaemon, parseJsonBody } from '../model'

/** `GET` and `POST /api/v1/sessions`. */
export function sessionHandlers(daemon: MockDaemon): RequestHandler[] {
  return [
    http.get('*/api/v1/sessions', ({ request }) => {
      daemon.record(request.method, request.url)
      return HttpResponse.json({ sessions: daemon.listSessions() })
    }),

    http.post('*/api/v1/sessions', async ({ request }) => {
      daemon.record(request.method, request.url)
      const body = parseJsonBody(await request.text())
      const result = body.ok ? daemon.createSession(body.value) : body
      if (!result.ok) return HttpResponse.json(result.refusal.body, { status: result.refusal.status })
      return HttpResponse.json(result.value, { status: 201 })
    }),
  ]
}
