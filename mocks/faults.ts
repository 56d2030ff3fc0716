/**
 * Fault outcomes of the mock daemon: parsing a plan entry, and what each failure puts on the
 * wire (code, English sentence, retry classification) as `shared/design/daemon-wire.md` says.
 */
import type { ErrorCode, RetryClassification } from '../src/wire/types.ts'

/** Outcomes that apply to a send (POST messages) rather than to a run. */
const SEND_FAULTS = ['accept_then_drop', 'send_error'] as const
export type SendFault = (typeof SEND_FAULTS)[number]

/** Outcomes taking no argument, in the order the design page lists them. */
export const SIMPLE_OUTCOMES = [
  'ok',
  'slow',
  'hang',
  'rate_limited',
  'overloaded',
  'unreachable',
  'out_of_credit',
  'auth_failed',
  'credentials_unresolved',
  'spend_limit',
  'context_overflow',
  'hard_quota',
  'unknown_code',
  'raw',
  'drop',
  'lag',
  ...SEND_FAULTS,
] as const

/** Outcomes taking no argument that show an agent's steps (tools, decisions) rather than a failure path. */
export const STEP_OUTCOMES = ['plain', 'approval', 'approval:auto', 'tool_fail', 'big_output', 'big_input', 'write_then_fail'] as const

/** Every accepted outcome form, for error messages and the simulator panel. */
export const OUTCOME_FORMS = [
  ...SIMPLE_OUTCOMES,
  ...STEP_OUTCOMES,
  'rate_limited:S',
  'tier1:N',
  'quota:M',
  'code:CODE',
  'tools:N',
  'long_tool:S',
  'silent:S',
] as const

/**
 * A plan entry that is not an outcome. It carries the entry and its position (0-based) so the
 * simulator panel words it in the operator's language; `message` is the English for logs.
 */
export class UnknownOutcomeError extends Error {
  override readonly name = 'UnknownOutcomeError'
  constructor(
    readonly entry: unknown,
    readonly position: number,
  ) {
    super(`Unknown fault outcome ${JSON.stringify(entry)} at position ${position}; expected one of ${OUTCOME_FORMS.join(', ')}.`)
  }
}

/** What a failure writes: the stream's `error` event and the persisted `error` and `retry`. */
export type Failure = {
  code: string
  message: string
  /** Absent for a coarse failure the client must never retry on its own. */
  retry?: RetryClassification
}

/**
 * One provider error as tier 1 sees it: the failure the run would end with, and the provider's
 * Retry-After, if it sent one.
 */
type ProviderError = { failure: Failure; retryAfterMs?: number }

/** What the provider does on attempt `n` of a run: answer (the reply streams), or fail before the first delta. */
export type ProviderAnswer = 'answer' | ProviderError

/**
 * The agent steps an outcome shows (`mocks/script.ts` writes them): tools, a decision, a failing
 * or huge tool, a tool that runs a while, a failure after a tool changed something, a silence.
 */
export type AgentOutcome =
  | { kind: 'tools'; count: number }
  | { kind: 'approval'; ask: boolean }
  | { kind: 'tool_fail' | 'big_output' | 'big_input' | 'write_then_fail' }
  | { kind: 'long_tool' | 'silent'; seconds: number }

/** A plan entry read into what the run (or send) does. */
export type ParsedOutcome =
  | { kind: 'ok' | 'plain' | 'slow' | 'hang' | 'drop' | 'lag' }
  | AgentOutcome
  | { kind: 'send'; fault: SendFault }
  /** Fails where the run would have written its first delta (tier 1 gave up). */
  | { kind: 'fail_before_delta'; failure: (now: number) => Failure }
  /** Streams a few deltas, then fails with a coded `error` event. */
  | { kind: 'fail_after_deltas'; failure: (now: number) => Failure }
  /** Streams a few deltas, then an `error` event whose data is this plain text. */
  | { kind: 'raw'; text: string }
  /** The provider answers attempt by attempt, and tier 1 (mocks/tier1.ts) retries its errors. */
  | { kind: 'provider'; attempt: (n: number) => ProviderAnswer }

/** The plain-text `error` data of the `raw` outcome (an older daemon's frame). */
export const RAW_ERROR_TEXT = 'upstream exploded: bad gateway'

/** The code `unknown_code` sends: no table in the client knows it. */
export const UNKNOWN_CODE = 'flux_capacitor_depleted'

const answer: RetryClassification = { retryable: false, retry_class: 'answer' }

/**
 * The retry class each code carries on a failed message (the design page's error table). A
 * `satisfies` over every `ErrorCode` makes a code added to the wire fail here until it is placed.
 * The client-side codes carry none: a run that failed with them is a coarse failure.
 */
const CLASS_BY_CODE = {
  answer_empty: answer,
  answer_tool_text: answer,
  answer_tool_call: answer,
  answer_too_long: answer,
  answer_failed: answer,
  answer_not_saved: answer,
  search_failed: answer,
  stream_ended: undefined,
  stream_lagged: undefined,
  model_out_of_credit: { retryable: false, retry_class: 'spend_limit_exceeded' },
  model_rate_limited: { retryable: true, retry_class: 'rate_limited' },
  model_unavailable: { retryable: true, retry_class: 'overloaded' },
  model_unreachable: { retryable: true, retry_class: 'network' },
  model_rejected: { retryable: false, retry_class: 'rejected' },
  context_overflow: { retryable: false, retry_class: 'context_overflow' },
  credentials_unresolved: { retryable: false, retry_class: 'credentials_unresolved' },
  spend_limit_exceeded: { retryable: false, retry_class: 'spend_limit_exceeded' },
  quota_exhausted: { retryable: false, retry_class: 'quota_exhausted' },
} satisfies Record<ErrorCode, RetryClassification | undefined>

/** The English sentence (for logs) of each code, as a real daemon would write it. */
const SENTENCE_BY_CODE = {
  answer_empty: 'The model returned an empty answer.',
  answer_tool_text: 'The model wrote a tool call as text instead of answering.',
  answer_tool_call: 'The model called a tool after its tool budget ran out.',
  answer_too_long: 'The answer passed its size bound.',
  answer_failed: 'The final answer failed.',
  answer_not_saved: 'The answer could not be saved.',
  search_failed: 'The documents could not be searched.',
  stream_ended: 'The live connection ended early.',
  stream_lagged: 'The connection fell behind the broadcast.',
  model_out_of_credit: 'The model provider account is out of credit (402).',
  model_rate_limited: 'The model provider rate-limited the request (429).',
  model_unavailable: 'The model provider is overloaded or down (503).',
  model_unreachable: 'The model provider could not be reached.',
  model_rejected: 'The model provider refused the request.',
  context_overflow: 'The conversation no longer fits the model context window.',
  credentials_unresolved: 'The daemon has no credentials for the model provider.',
  spend_limit_exceeded: 'The session spend limit is reached.',
  quota_exhausted: 'The model provider quota is exhausted and names no reset time.',
} satisfies Record<ErrorCode, string>

function isKnownCode(code: string): code is ErrorCode {
  return Object.hasOwn(CLASS_BY_CODE, code)
}

/** The failure a run ends with when it fails with `code` (a code from the table or any other). */
export function failureForCode(code: string): Failure {
  if (!isKnownCode(code)) {
    return { code, message: `The run failed with code ${code}.` }
  }
  const retry = CLASS_BY_CODE[code]
  return retry ? { code, message: SENTENCE_BY_CODE[code], retry: { ...retry } } : { code, message: SENTENCE_BY_CODE[code] }
}

function fixed(code: ErrorCode, retry: RetryClassification, message = SENTENCE_BY_CODE[code]): () => Failure {
  return () => ({ code, message, retry: { ...retry } })
}

/** Failures that happen before the first delta, by simple outcome name. */
const MODEL_FAILURES: Record<string, (now: number) => Failure> = {
  rate_limited: fixed('model_rate_limited', { retryable: true, retry_class: 'rate_limited' }),
  overloaded: fixed('model_unavailable', { retryable: true, retry_class: 'overloaded' }),
  unreachable: fixed('model_unreachable', { retryable: true, retry_class: 'network' }),
  out_of_credit: fixed('model_out_of_credit', { retryable: false, retry_class: 'spend_limit_exceeded' }),
  auth_failed: fixed(
    'model_rejected',
    { retryable: false, retry_class: 'auth_failed' },
    'The model provider refused the credentials (401).',
  ),
  credentials_unresolved: fixed('credentials_unresolved', { retryable: false, retry_class: 'credentials_unresolved' }),
  spend_limit: fixed('spend_limit_exceeded', { retryable: false, retry_class: 'spend_limit_exceeded' }),
  context_overflow: fixed('context_overflow', { retryable: false, retry_class: 'context_overflow' }),
  hard_quota: fixed('quota_exhausted', { retryable: false, retry_class: 'quota_exhausted' }),
}

const NUMBER = String.raw`(\d+(?:\.\d+)?)`
const RATE_LIMITED_S = new RegExp(`^rate_limited:${NUMBER}$`)
const TIER1_N = /^tier1:([1-9]\d*)$/
const QUOTA_M = new RegExp(`^quota:${NUMBER}$`)
const CODE_X = /^code:([A-Za-z][A-Za-z0-9_.-]*)$/
/** At most this many tools in one `tools:N` run: enough for any screen, few enough to read. */
const MAX_TOOLS = 50
const TOOLS_N = /^tools:([1-9]\d*)$/
const LONG_TOOL_S = new RegExp(`^long_tool:${NUMBER}$`)
const SILENT_S = new RegExp(`^silent:${NUMBER}$`)

/** The outcomes that show agent steps, or `undefined` when `entry` is none of them. */
function agentOutcome(entry: string): AgentOutcome | undefined {
  switch (entry) {
    case 'approval':
      return { kind: 'approval', ask: true }
    case 'approval:auto':
      return { kind: 'approval', ask: false }
    case 'tool_fail':
    case 'big_output':
    case 'big_input':
    case 'write_then_fail':
      return { kind: entry }
  }
  const tools = TOOLS_N.exec(entry)
  if (tools && Number(tools[1]) <= MAX_TOOLS) return { kind: 'tools', count: Number(tools[1]) }
  const longTool = LONG_TOOL_S.exec(entry)
  if (longTool) return { kind: 'long_tool', seconds: Number(longTool[1]) }
  const silent = SILENT_S.exec(entry)
  if (silent) return { kind: 'silent', seconds: Number(silent[1]) }
  return undefined
}

/**
 * Reads one plan entry. Returns `undefined` for an entry that is not an outcome, so callers
 * decide whether that is an error (a plan) or a skip.
 */
export function parseOutcome(outcome: string): ParsedOutcome | undefined {
  const entry = outcome.trim()
  switch (entry) {
    case 'ok':
    case 'plain':
    case 'slow':
    case 'hang':
    case 'drop':
    case 'lag':
      return { kind: entry }
    case 'accept_then_drop':
    case 'send_error':
      return { kind: 'send', fault: entry }
    case 'raw':
      return { kind: 'raw', text: RAW_ERROR_TEXT }
    case 'unknown_code':
      // A code from a newer daemon: the client must show the English sentence as it came.
      return {
        kind: 'fail_after_deltas',
        failure: () => ({ code: UNKNOWN_CODE, message: 'The flux capacitor is depleted; the run cannot go on.' }),
      }
  }
  const model = Object.hasOwn(MODEL_FAILURES, entry) ? MODEL_FAILURES[entry] : undefined
  if (model) return { kind: 'fail_before_delta', failure: model }
  const agent = agentOutcome(entry)
  if (agent) return agent

  const rateLimited = RATE_LIMITED_S.exec(entry)
  if (rateLimited) {
    const seconds = Number(rateLimited[1])
    // Every attempt gets the same 429: tier 1 waits it out within its window, or hands over.
    const error: ProviderError = {
      failure: {
        code: 'model_rate_limited',
        message: `The model provider rate-limited the request (429) with Retry-After ${seconds} s.`,
        retry: { retryable: true, retry_class: 'rate_limited' },
      },
      retryAfterMs: seconds * 1000,
    }
    return { kind: 'provider', attempt: () => error }
  }
  const tier1 = TIER1_N.exec(entry)
  if (tier1) {
    const failures = Number(tier1[1])
    const error: ProviderError = {
      failure: { code: 'model_unavailable', message: SENTENCE_BY_CODE.model_unavailable, retry: { ...CLASS_BY_CODE.model_unavailable } },
    }
    return { kind: 'provider', attempt: (n) => (n <= failures ? error : 'answer') }
  }
  const quota = QUOTA_M.exec(entry)
  if (quota) {
    const minutes = Number(quota[1])
    return {
      kind: 'fail_before_delta',
      failure: (now) => ({
        code: 'model_rate_limited',
        message: `The model provider quota is used up for the next ${minutes} min.`,
        retry: { retryable: true, retry_class: 'rate_limited', retry_after_until: now + minutes * 60_000 },
      }),
    }
  }
  const code = CODE_X.exec(entry)?.[1]
  if (code !== undefined) return { kind: 'fail_after_deltas', failure: () => failureForCode(code) }
  return undefined
}

/** Whether the entry is a send fault (consumed by POST messages, not by a run). */
export function isSendFault(outcome: string): outcome is SendFault {
  return (SEND_FAULTS as readonly string[]).includes(outcome.trim())
}

/**
 * Checks a whole plan and returns it normalized (entries trimmed). Throws an
 * `UnknownOutcomeError` naming the first entry that is not an outcome and its position, so a
 * typo in `?faults=` or a test is loud.
 */
export function validatePlan(faults: readonly unknown[]): string[] {
  return faults.map((fault, index) => {
    if (typeof fault !== 'string' || parseOutcome(fault) === undefined) throw new UnknownOutcomeError(fault, index)
    return fault.trim()
  })
}
