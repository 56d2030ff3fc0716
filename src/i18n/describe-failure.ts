/**
 * The one function that words a failure for the operator. Every channel comes through here: a
 * refused request, an `error` frame on a new or a reattached stream, a failed message from
 * history. The daemon produces no display text: a known code is worded from `errors.<code>`; the
 * daemon's English sentence is shown only when the code is one this client has no words for, and
 * plain text from an older daemon is shown as it came. It returns text; the component renders it
 * as text, never as HTML.
 */
import type { TFunction } from 'i18next'
import type { WireError } from '../wire/types'
import { errorTable, retryClassTable, type KnownErrorCode, type KnownRetryClass } from './resources'

/** Longest daemon text shown as it came; longer text is cut here and ends in "…". */
export const VERBATIM_LIMIT = 500

/**
 * What went wrong, before wording:
 * - `coded`: the daemon's envelope (`code`, and its English `message` for logs and unknown codes);
 * - `raw`: text that is not an envelope (an older daemon's plain-text frame, an unreadable body);
 * - `none`: nothing to go on.
 */
export type FailureInput =
  | { kind: 'coded'; code?: string | undefined; message?: string | undefined }
  | { kind: 'raw'; text: string }
  | { kind: 'none' }

/** A worded failure: the text to show, and the code to show beside it (undefined when there is none). */
export type FailureDescription = { text: string; code: string | undefined }

/** True when this client has words for `code` (an own key of the English error table). */
export function isKnownErrorCode(code: string): code is KnownErrorCode {
  // hasOwn, not `in`: "constructor" or "toString" from a daemon must not count as known.
  return Object.hasOwn(errorTable, code)
}

/** True when this client has words for the retry class `retryClass`. */
function isKnownRetryClass(retryClass: string): retryClass is KnownRetryClass {
  return Object.hasOwn(retryClassTable, retryClass)
}

/**
 * Words a failure in the language of `t`. The chain, first match wins:
 * 1. a known code → its `errors.<code>` entry (the daemon's sentence is not shown);
 * 2. an unknown (or empty) code with a non-empty sentence → the sentence as the daemon wrote it;
 * 3. an unknown code with no sentence → `failure.unknown`, naming the code;
 * 4. raw text → the text as it came, trimmed, cut at VERBATIM_LIMIT with "…";
 * 5. nothing at all (or only whitespace) → `failure.generic`.
 * `code` in the result is the daemon's code whenever there is one, known or not.
 */
export function describeFailure(t: TFunction, failure: FailureInput): FailureDescription {
  switch (failure.kind) {
    case 'coded': {
      const code = failure.code || undefined
      if (code !== undefined && isKnownErrorCode(code)) return { text: t(`errors.${code}`), code }
      // A code this client does not know: the daemon's sentence is the best words there are.
      const sentence = verbatim(failure.message)
      if (sentence) return { text: sentence, code }
      if (code !== undefined) return { text: t('failure.unknown', { code }), code }
      return { text: t('failure.generic'), code: undefined }
    }
    case 'raw': {
      const text = verbatim(failure.text)
      return { text: text || t('failure.generic'), code: undefined }
    }
    case 'none':
      return { text: t('failure.generic'), code: undefined }
  }
}

/**
 * True when describeFailure shows the daemon's own words rather than a table entry, so the
 * component can mark it as untranslated (`failure.raw`).
 */
export function isVerbatimFailure(failure: FailureInput): boolean {
  switch (failure.kind) {
    case 'coded':
      return !(failure.code && isKnownErrorCode(failure.code)) && verbatim(failure.message) !== ''
    case 'raw':
      return verbatim(failure.text) !== ''
    case 'none':
      return false
  }
}

/**
 * A failure as a persisted or streamed `{ code, message }` (a failed message's `error`, or the
 * live store's copy of an `error` frame). A code-less error is a plain-text frame from an older
 * daemon, shown as it came.
 */
export function failureOfWireError(error: WireError | undefined): FailureInput {
  if (!error) return { kind: 'none' }
  if (!error.code) return error.message ? { kind: 'raw', text: error.message } : { kind: 'none' }
  return { kind: 'coded', code: error.code, message: error.message }
}

/**
 * Any thrown or stored failure as a FailureInput, read structurally (no classes imported):
 * - an object with a non-empty string `code` → coded, with `message` (or `error`) as its sentence.
 *   This covers RefusalError, StreamFailure, TransportError, a failed message's `error`
 *   (`{ code, message }`), a refusal body (`{ error, code }`) and a stream error frame;
 * - an object with a `code` property that is empty or undefined (an unreadable refusal body, a
 *   plain-text frame the wire already unwrapped) → raw, its `message`/`error` shown as it came;
 * - anything else, including an Error with no `code` (its message is the runtime's English, not
 *   the daemon's) → none.
 * An abort is a state change and should not reach here; if it does it reads as none.
 */
export function failureFromError(e: unknown): FailureInput {
  if (typeof e !== 'object' || e === null || !('code' in e)) return { kind: 'none' }
  const message = firstText('message' in e ? e.message : undefined, 'error' in e ? e.error : undefined)
  if (typeof e.code === 'string' && e.code !== '') return { kind: 'coded', code: e.code, message }
  if (message !== undefined) return { kind: 'raw', text: message }
  return { kind: 'none' }
}

/**
 * Words a retry class for the classification line. A class this client does not know still reads
 * (`failure.unclassified`, naming it); no class at all (a coarse failure) → undefined, no line.
 */
export function describeRetryClass(t: TFunction, retryClass: string | undefined): string | undefined {
  if (!retryClass) return undefined
  if (isKnownRetryClass(retryClass)) return t(`retryClass.${retryClass}`)
  return t('failure.unclassified', { retryClass })
}

/** The first argument that is a string with something besides whitespace in it. */
function firstText(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') return value
  return undefined
}

/** Daemon text as shown: trimmed, and cut at VERBATIM_LIMIT (never inside a surrogate pair). */
function verbatim(text: string | undefined): string {
  const trimmed = text?.trim() ?? ''
  if (trimmed.length <= VERBATIM_LIMIT) return trimmed
  let cut = trimmed.slice(0, VERBATIM_LIMIT)
  const last = cut.charCodeAt(cut.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1)
  return `${cut}…`
}
