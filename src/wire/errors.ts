/**
 * Failures on the wire are values with classes, checked with `instanceof`. None of them carries
 * display text for the operator: the client words each from its `code` (src/i18n/describe-failure.ts).
 * An abort is not among them: leaving a state is a state change, never an error to show.
 */
import type { RunStatus } from './types'

/** The daemon answered with a non-2xx status and a `{ error, code }` body (or something unreadable). */
export class RefusalError extends Error {
  override readonly name = 'RefusalError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** No response arrived: the connection failed, was reset, or the response was lost. */
export class TransportError extends Error {
  override readonly name = 'TransportError'
  readonly code = 'transport_failed'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** The daemon answered 2xx but the body is not what the wire promises. */
export class MalformedPayloadError extends Error {
  override readonly name = 'MalformedPayloadError'
  readonly code = 'payload_invalid'
  constructor(
    readonly endpoint: string,
    detail: string,
  ) {
    super(`The daemon sent a payload that does not match the wire (${endpoint}): ${detail}`)
  }
}

/**
 * A run's stream ended in failure: an `error` frame (coded, or plain text from an older daemon
 * with `code` undefined), or a connection that could not be reattached (`stream_ended`).
 */
export class StreamFailure extends Error {
  override readonly name = 'StreamFailure'
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message)
  }
}

/** True for the rejection an aborted `fetch` or an aborted wait produces. */
export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof DOMException && error.name === 'AbortError') ||
    (error instanceof Error && error.name === 'AbortError')
  )
}

/**
 * A run's stream could not be read to its end, and the daemon says the run has ended: its outcome
 * is history's to tell (the reply is never guessed failed for a connection that broke).
 */
export class RunEnded extends Error {
  override readonly name = 'RunEnded'
  constructor(
    readonly status: RunStatus,
    message = `The run ended (${status}) while its stream could not be read.`,
  ) {
    super(message)
  }
}
