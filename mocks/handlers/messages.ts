import { http, HttpResponse, type RequestHandler } from 'msw'
import { type MockDaemon, parseJsonBody } from '../model'
import { json, refused } from './respond'

type SessionParams = { sid: string }
type MessageParams = { sid: string; mid: string }

/** Listing (whole, by page, by client_message_id), searching and sending messages, and regenerating from an operator message. */
export function messageHandlers(daemon: MockDaemon): RequestHandler[] {
  return [
    http.get<SessionParams>('*/api/v1/sessions/:sid/messages', ({ request, params }) => {
      daemon.record(request.method, request.url)
      const query = new URL(request.url).searchParams
      const clientMessageId = query.get('client_message_id')
      if (clientMessageId !== null) {
        const found = daemon.findMessages(params.sid, clientMessageId)
        return found.ok ? json(daemon, { messages: found.value }) : refused(daemon, found.refusal)
      }
      if (['limit', 'before', 'after'].some((name) => query.has(name))) {
        const page = daemon.pageMessages(params.sid, {
          limit: query.get('limit') ?? undefined,
          before: query.get('before') ?? undefined,
          after: query.get('after') ?? undefined,
        })
        return page.ok ? json(daemon, page.value) : refused(daemon, page.refusal)
      }
      const result = daemon.listMessages(params.sid)
      if (!result.ok) return refused(daemon, result.refusal)
      return json(daemon, { messages: result.value })
    }),

    http.get<SessionParams>('*/api/v1/sessions/:sid/search', ({ request, params }) => {
      daemon.record(request.method, request.url)
      const query = new URL(request.url).searchParams
      const result = daemon.search(params.sid, query.get('q') ?? undefined, query.get('limit') ?? undefined)
      return result.ok ? json(daemon, result.value) : refused(daemon, result.refusal)
    }),

    http.post<SessionParams>('*/api/v1/sessions/:sid/messages', async ({ request, params }) => {
      daemon.record(request.method, request.url)
      const body = parseJsonBody(await request.text())
      const result = body.ok ? daemon.send(params.sid, body.value) : body
      if (!result.ok) return refused(daemon, result.refusal)
      // `accept_then_drop`: the message and its run exist, but the client sees a transport error.
      if (result.value.loseResponse) return HttpResponse.error()
      return json(daemon, result.value.receipt, 202)
    }),

    http.post<MessageParams>('*/api/v1/sessions/:sid/messages/:mid/regenerate', ({ request, params }) => {
      daemon.record(request.method, request.url)
      const result = daemon.regenerate(params.sid, params.mid)
      if (!result.ok) return refused(daemon, result.refusal)
      return json(daemon, result.value, 202)
    }),
  ]
}
