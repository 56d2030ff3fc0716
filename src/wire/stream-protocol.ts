/**
 * What the page and the stream worker say to each other (see stream-worker-host.ts and
 * worker-follow.ts). Failures cross as plain records and are rebuilt as the wire's error classes
 * on the page, so a stream read in the worker fails exactly as one read on the page would.
 */
import { MalformedPayloadError, RefusalError, RunEnded, StreamFailure, TransportError } from './errors'
import type { MessagePage, PageQuery, RunStatus, StreamFrame } from './types'
import type { LinkState, TerminalFrame } from './events'
import type { StreamTrees } from '../markdown/stream-trees'

/** Follow one run; `id` names this request in every answer. */
type FollowRequest = {
  type: 'follow'
  id: number
  /** The daemon's origin, as the page's client has it. */
  baseUrl: string
  sessionId: string
  runId: string
  lastEventId?: number
  maxReattach?: number
  maxLagged?: number
}

/** Read one page of a session's history (`GET …/messages?limit…`); `id` names it as a follow's does. */
export type PageReadRequest = {
  type: 'page'
  id: number
  baseUrl: string
  sessionId: string
  page: PageQuery
}

/**
 * The operator pressed a key, typed or clicked `agoMs` before this was sent: while they type, the
 * page commits every STREAM_FLUSH_GAP_MS, and the batches come as often (see stream-worker-host.ts).
 */
type InputNotice = { type: 'input'; agoMs: number }

export type ToWorker = FollowRequest | PageReadRequest | { type: 'abort'; id: number } | InputNotice

/** A failure, as data. */
export type WireFailure =
  | { kind: 'refusal'; status: number; code: string; message: string }
  | { kind: 'stream'; code: string | undefined; message: string }
  | { kind: 'transport'; message: string }
  | { kind: 'ended'; status: RunStatus; message: string }
  | { kind: 'malformed'; endpoint: string; message: string }
  | { kind: 'other'; name: string; message: string }

export type FromWorker =
  /** With the Markdown trees the worker parsed for them, when it did (see markdown/stream-trees.ts). */
  | { type: 'frames'; id: number; frames: StreamFrame[]; trees?: StreamTrees }
  /** The connection's state changed (after the frames before it). */
  | { type: 'link'; id: number; state: LinkState }
  /** One answer's `Date` header, for the page's estimate of the daemon's clock. */
  | { type: 'clock'; date: string | null; sentAt: number; receivedAt: number }
  | { type: 'end'; id: number; terminal: TerminalFrame; trees?: StreamTrees }
  /** A page read, its messages checked as the page's client checks them. */
  | { type: 'page'; id: number; page: MessagePage }
  /** A follow or a page read failed. */
  | { type: 'failed'; id: number; error: WireFailure }

/** `error` as data that survives `postMessage`. */
export function toFailure(error: unknown): WireFailure {
  if (error instanceof RefusalError) return { kind: 'refusal', status: error.status, code: error.code, message: error.message }
  if (error instanceof StreamFailure) return { kind: 'stream', code: error.code, message: error.message }
  if (error instanceof TransportError) return { kind: 'transport', message: error.message }
  if (error instanceof RunEnded) return { kind: 'ended', status: error.status, message: error.message }
  if (error instanceof MalformedPayloadError) return { kind: 'malformed', endpoint: error.endpoint, message: error.message }
  if (error instanceof Error) return { kind: 'other', name: error.name, message: error.message }
  return { kind: 'other', name: 'Error', message: String(error) }
}

/** The error class `failure` was made from. */
export function fromFailure(failure: WireFailure): Error {
  switch (failure.kind) {
    case 'refusal':
      return new RefusalError(failure.status, failure.code, failure.message)
    case 'stream':
      return new StreamFailure(failure.code, failure.message)
    case 'transport':
      return new TransportError(failure.message)
    case 'ended':
      return new RunEnded(failure.status, failure.message)
    case 'malformed': {
      const error = new MalformedPayloadError(failure.endpoint, '')
      error.message = failure.message
      return error
    }
    case 'other': {
      const error = new Error(failure.message)
      error.name = failure.name
      return error
    }
  }
}
