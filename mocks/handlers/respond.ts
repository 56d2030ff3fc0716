import { HttpResponse, type JsonBodyType } from 'msw'
import type { MockDaemon, Refusal } from '../model'

/**
 * The standard `Date` header on the daemon's clock. Every response carries it, so a client can
 * estimate how far its own clock is from the daemon's (and place `retry_after_until` on its own).
 */
export function dateHeader(daemon: MockDaemon): Record<string, string> {
  return { date: new Date(daemon.now()).toUTCString() }
}

/** A JSON response with the daemon's `Date`. */
export function json(daemon: MockDaemon, body: JsonBodyType, status = 200): Response {
  return HttpResponse.json(body, { status, headers: dateHeader(daemon) })
}

/** A refusal: its status and `{ error, code }` body, with the daemon's `Date`. */
export function refused(daemon: MockDaemon, refusal: Refusal): Response {
  return json(daemon, refusal.body, refusal.status)
}

/** An empty response (204 and the like) with the daemon's `Date`. */
export function empty(daemon: MockDaemon, status = 204): Response {
  return new HttpResponse(null, { status, headers: dateHeader(daemon) })
}
