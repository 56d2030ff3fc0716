import { http, type RequestHandler } from 'msw'
import { type MockDaemon, parseJsonBody } from '../model'
import { empty, json, refused } from './respond'

type SessionParams = { sid: string }

/** `GET` and `POST /api/v1/sessions`, `PATCH` (rename) and `DELETE /api/v1/sessions/:sid`. */
export function sessionHandlers(daemon: MockDaemon): RequestHandler[] {
  return [
    http.get('*/api/v1/sessions', ({ request }) => {
      daemon.record(request.method, request.url)
      return json(daemon, { sessions: daemon.listSessions() })
    }),

    http.post('*/api/v1/sessions', async ({ request }) => {
      daemon.record(request.method, request.url)
      const body = parseJsonBody(await request.text())
      const result = body.ok ? daemon.createSession(body.value) : body
      if (!result.ok) return refused(daemon, result.refusal)
      return json(daemon, result.value, 201)
    }),

    http.patch<SessionParams>('*/api/v1/sessions/:sid', async ({ request, params }) => {
      daemon.record(request.method, request.url)
      const body = parseJsonBody(await request.text())
      const result = body.ok ? daemon.renameSession(params.sid, body.value) : body
      if (!result.ok) return refused(daemon, result.refusal)
      return json(daemon, result.value)
    }),

    http.delete<SessionParams>('*/api/v1/sessions/:sid', ({ request, params }) => {
      daemon.record(request.method, request.url)
      const result = daemon.deleteSession(params.sid)
      if (!result.ok) return refused(daemon, result.refusal)
      return empty(daemon)
    }),
  ]
}
