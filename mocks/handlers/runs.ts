import { http, HttpResponse, type RequestHandler } from 'msw'
import { type StreamEventName, TERMINAL_EVENTS } from '../../src/wire/types'
import { type MockDaemon, parseJsonBody, type StreamEvent, type StreamSignal } from '../model'
import { dateHeader, json, refused } from './respond'

type RunParams = { sid: string; rid: string }
type ToolParams = RunParams & { tcid: string }

/** Idle time after which the stream writes a `: ping` comment, keeping proxies from closing it. */
export const PING_INTERVAL_MS = 15_000

/** The client's last seen event id: the `Last-Event-ID` header, else `?last_event_id=`, else 0. */
function lastEventIdOf(request: Request): number {
  const raw = request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('last_event_id') ?? ''
  const id = Number.parseInt(raw, 10)
  return Number.isFinite(id) && id > 0 ? id : 0
}

function frame(id: number, event: StreamEventName, data: string): string {
  const lines = data.split(/\r?\n/).map((line) => `data: ${line}`)
  return `id: ${id}\nevent: ${event}\n${lines.join('\n')}\n\n`
}

/**
 * The event stream of a run: the log after the client's last event id, then live events, closed
 * after a terminal event. Every exit (terminal, fault, client abort, stream cancel) goes through
 * one `close` that clears the ping timer and detaches from the run, so nothing leaks.
 */
function eventStream(daemon: MockDaemon, params: RunParams, request: Request): Response {
  const encoder = new TextEncoder()
  const afterId = lastEventIdOf(request)
  let close = () => {}

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false
      let lastId = afterId
      let ping: ReturnType<typeof setTimeout> | undefined
      let detach = () => {}

      const armPing = () => {
        clearTimeout(ping)
        ping = setTimeout(() => write(': ping\n\n'), PING_INTERVAL_MS)
      }
      const write = (text: string) => {
        if (closed) return
        controller.enqueue(encoder.encode(text))
        armPing()
      }
      // `silent:S`: not even a ping until the run's next event, which arms the pings again.
      const hush = () => {
        clearTimeout(ping)
        ping = undefined
      }
      const onAbort = () => close()
      close = () => {
        if (closed) return
        closed = true
        clearTimeout(ping)
        detach()
        request.signal.removeEventListener('abort', onAbort)
        try {
          controller.close()
        } catch {
          // Already cancelled by the reader: nothing left to close.
        }
      }
      const send = (event: StreamEvent) => {
        if (event.id <= lastId) return
        lastId = event.id
        write(frame(event.id, event.event, event.data))
        if (TERMINAL_EVENTS.has(event.event)) close()
      }
      const listener = (signal: StreamSignal) => {
        switch (signal.kind) {
          case 'event':
            return send(signal.event)
          case 'lag':
            // Not part of the log: it repeats the last id so a reattach resumes right after it.
            write(frame(lastId, 'error', JSON.stringify({ error: 'The connection fell behind the broadcast.', code: 'stream_lagged' })))
            return close()
          case 'drop':
          case 'close':
            return close()
          case 'silence':
            return hush()
        }
      }

      const attached = daemon.attach(params.sid, params.rid, afterId, listener)
      if (!attached.ok) return close()
      detach = attached.value.detach
      for (const event of attached.value.backlog) send(event)
      if (attached.value.ended) return close()
      if (request.signal.aborted) return close()
      request.signal.addEventListener('abort', onAbort)
      // A queued or hanging run may have sent nothing yet; it still gets its pings, unless it is silent.
      if (!closed) {
        if (attached.value.silent) hush()
        else armPing()
      }
    },
    cancel() {
      close()
    },
  })

  return new HttpResponse(body, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...dateHeader(daemon) },
  })
}

/** A run's record, its cancel, its event stream, and its tools' decisions and outputs. */
export function runHandlers(daemon: MockDaemon): RequestHandler[] {
  return [
    http.get<RunParams>('*/api/v1/sessions/:sid/runs/:rid', ({ request, params }) => {
      daemon.record(request.method, request.url)
      const result = daemon.getRun(params.sid, params.rid)
      if (!result.ok) return refused(daemon, result.refusal)
      return json(daemon, result.value)
    }),

    http.post<RunParams>('*/api/v1/sessions/:sid/runs/:rid/cancel', ({ request, params }) => {
      daemon.record(request.method, request.url)
      const result = daemon.cancel(params.sid, params.rid)
      if (!result.ok) return refused(daemon, result.refusal)
      return json(daemon, result.value)
    }),

    http.get<RunParams>('*/api/v1/sessions/:sid/runs/:rid/events', ({ request, params }) => {
      daemon.record(request.method, request.url)
      // Refuse before streaming: a 404 must be a JSON refusal, not an empty event stream.
      const run = daemon.getRun(params.sid, params.rid)
      if (!run.ok) return refused(daemon, run.refusal)
      return eventStream(daemon, params, request)
    }),

    http.post<ToolParams>('*/api/v1/sessions/:sid/runs/:rid/tools/:tcid/decision', async ({ request, params }) => {
      daemon.record(request.method, request.url)
      const body = parseJsonBody(await request.text())
      const result = body.ok ? daemon.decide(params.sid, params.rid, params.tcid, body.value) : body
      if (!result.ok) return refused(daemon, result.refusal)
      return json(daemon, result.value)
    }),

    http.get<ToolParams>('*/api/v1/sessions/:sid/runs/:rid/tools/:tcid/output', ({ request, params }) => {
      daemon.record(request.method, request.url)
      const result = daemon.toolOutput(params.sid, params.rid, params.tcid)
      if (!result.ok) return refused(daemon, result.refusal)
      return new HttpResponse(result.value, { headers: { 'content-type': 'text/plain; charset=utf-8', ...dateHeader(daemon) } })
    }),
  ]
}
