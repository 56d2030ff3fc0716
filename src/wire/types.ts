/**
 * The daemon wire: records, receipts and codes, as `shared/design/daemon-wire.md` defines them.
 * The schemas check every payload at the boundary; the types are inferred from them so the two
 * cannot drift. `mocks/` imports only the types and the code lists from here.
 */
import { z } from 'zod/mini'

/** Classes the tier 2 scheduler may retry on its own. */
export const TRANSIENT_RETRY_CLASSES = ['rate_limited', 'overloaded', 'unavailable', 'network', 'timeout'] as const
/** Classes that are never retried automatically, whatever `retryable` says. */
const TERMINAL_RETRY_CLASSES = [
  'context_overflow',
  'auth_failed',
  'credentials_unresolved',
  'spend_limit_exceeded',
  'quota_exhausted',
  'rejected',
  'answer',
] as const
export const RETRY_CLASSES = [...TRANSIENT_RETRY_CLASSES, ...TERMINAL_RETRY_CLASSES] as const
export type RetryClass = (typeof RETRY_CLASSES)[number]

/** Codes carried by stream `error` events and failed messages (the design page's error table). */
export const ERROR_CODES = [
  'answer_empty',
  'answer_tool_text',
  'answer_tool_call',
  'answer_too_long',
  'answer_failed',
  'answer_not_saved',
  'search_failed',
  'stream_ended',
  'stream_lagged',
  'model_out_of_credit',
  'model_rate_limited',
  'model_unavailable',
  'model_unreachable',
  'model_rejected',
  'context_overflow',
  'credentials_unresolved',
  'spend_limit_exceeded',
  'quota_exhausted',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Codes on a tool part's `error`, not a run's: the tool failed, ran past its time, or does not exist; the run goes on. */
export type ToolErrorCode = 'tool_failed' | 'tool_timeout' | 'tool_not_found'

/** Codes carried by refused requests (the endpoint table, plus the ones any endpoint may answer). */
export const REFUSAL_CODES = [
  'invalid_request',
  'session_not_found',
  'message_duplicate',
  'content_empty',
  'content_too_long',
  'message_not_found',
  'not_operator_message',
  'run_not_found',
  'unauthorized',
  'internal_error',
  'daemon_unavailable',
  'title_empty',
  'title_too_long',
  'tool_call_not_found',
  'decision_conflict',
  'tool_not_awaiting',
] as const
export type RefusalCode = (typeof REFUSAL_CODES)[number]

/** Longest operator message the daemon accepts, in characters. */
export const MAX_CONTENT_LENGTH = 32_000
/** Longest session title the daemon accepts, in characters. */
export const MAX_TITLE_LENGTH = 200
/** Longest title the daemon derives from a first message (its first line). */
export const DERIVED_TITLE_LENGTH = 80
/** Tier 1 (the daemon's own in-run retry): attempts in all, and the longest provider wait it absorbs. */
export const TIER1_MAX_ATTEMPTS = 3
export const TIER1_WINDOW_MS = 30_000

const id = z.string().check(z.minLength(1))
/**
 * The last instant a JavaScript `Date` can hold (±8.64e15 ms, the spec's limit). A time past it
 * is not a time: Intl throws on it in the middle of a render.
 */
const MAX_DATE_MS = 8.64e15
/** True for a number that is a time a `Date` can hold (and so Intl can format). */
export function isValidTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_DATE_MS
}
const epochMs = z.number().check(z.refine(isValidTime, 'not a time a Date can hold'))

export const sessionSchema = z.object({
  id,
  title: z.string(),
  status: z.enum(['idle', 'running']),
  created_at: epochMs,
  updated_at: epochMs,
})
export type Session = z.infer<typeof sessionSchema>

/**
 * A retry classification as persisted on a failed message or run. `retry_class` is kept as a
 * string: a class this client does not know must still load (and must never arm tier 2).
 * `retry_after_until` is kept loose for the same reason; the schedule decides what to trust.
 */
const retryClassificationSchema = z.object({
  retryable: z.boolean(),
  retry_class: z.string(),
  // null, a string or a number JSON turns into Infinity must not cost the operator the whole
  // conversation: it reads as "no provider time", and the normal wait applies.
  // A time past the last valid Date (quota:200000000000) is no time either.
  retry_after_until: z.catch(z.optional(epochMs), undefined),
})
export type RetryClassification = z.infer<typeof retryClassificationSchema>

const wireErrorSchema = z.object({ code: z.string(), message: z.string() })
export type WireError = z.infer<typeof wireErrorSchema>

const messageStatusSchema = z.enum(['queued', 'streaming', 'complete', 'failed', 'cancelled'])
export type MessageStatus = z.infer<typeof messageStatusSchema>

/** Reads `items[from, to)` with `item`, pushing each record that reads into `kept`. */
function readInto<T>(item: z.ZodMiniType, items: readonly unknown[], from: number, to: number, kept: T[]): void {
  for (let i = from; i < to; i++) {
    const parsed = item.safeParse(items[i])
    if (parsed.success) kept.push(parsed.data as T)
  }
}

/** What a tool declares about itself: whether running it changes anything outside the daemon. */
const TOOL_EFFECTS = ['read', 'write'] as const
export type ToolEffect = (typeof TOOL_EFFECTS)[number]
export const TOOL_STATUSES = ['input', 'awaiting_approval', 'running', 'done', 'failed', 'denied', 'cancelled'] as const
export type ToolStatus = (typeof TOOL_STATUSES)[number]
/** The statuses a tool ends in, as a `tool_result` event carries them. */
export const TOOL_RESULT_STATUSES = ['done', 'failed', 'denied', 'cancelled'] as const
/** Most of a tool's output that travels on the stream and in history, in UTF-8 bytes. */
export const TOOL_OUTPUT_LIMIT = 16 * 1024

const count = z.int().check(z.minimum(0))

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() })
const reasoningPartSchema = z.object({ type: z.literal('reasoning'), text: z.string() })
const toolPartSchema = z.object({
  type: z.literal('tool'),
  tool_call_id: id,
  name: z.string(),
  effect: z.enum(TOOL_EFFECTS),
  input: z.string(),
  status: z.enum(TOOL_STATUSES),
  output: z.optional(z.string()),
  output_bytes: z.optional(count),
  output_truncated: z.optional(z.boolean()),
  error: z.optional(wireErrorSchema),
  started_at: epochMs,
  ended_at: z.optional(epochMs),
})
export type TextPart = z.infer<typeof textPartSchema>
export type ReasoningPart = z.infer<typeof reasoningPartSchema>
export type ToolPart = z.infer<typeof toolPartSchema>
export type Part = TextPart | ReasoningPart | ToolPart
const partSchema = z.discriminatedUnion('type', [textPartSchema, reasoningPartSchema, toolPartSchema])

/** A message's parts, read part by part: one that cannot be read is left out, the rest still show. */
const partListSchema = z.pipe(
  z.array(z.unknown()),
  z.transform((items: unknown[]) => {
    const kept: Part[] = []
    readInto(partSchema, items, 0, items.length, kept)
    return kept
  }),
)

export const usageSchema = z.object({ input_tokens: count, output_tokens: count, cost_usd: z.optional(z.number().check(z.minimum(0))) })
export type Usage = z.infer<typeof usageSchema>

const messageSchema = z.object({
  id,
  session_id: id,
  role: z.enum(['operator', 'agent']),
  content: z.string(),
  created_at: epochMs,
  superseded: z.boolean(),
  client_message_id: z.optional(z.string()),
  reply_to: z.optional(z.string()),
  run_id: z.optional(z.string()),
  status: z.optional(messageStatusSchema),
  error: z.optional(wireErrorSchema),
  // A classification that cannot be read is no classification: the reply loads, and never arms tier 2.
  retry: z.catch(z.optional(retryClassificationSchema), undefined),
  seq: z.optional(z.number()),
  // Steps and usage that cannot be read cost the operator the steps, never the answer (`content`).
  parts: z.catch(z.optional(partListSchema), undefined),
  usage: z.catch(z.optional(usageSchema), undefined),
})
export type Message = z.infer<typeof messageSchema>

const runStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled'])
export type RunStatus = z.infer<typeof runStatusSchema>

export const runSchema = z.object({
  id,
  session_id: id,
  anchor_message_id: id,
  reply_message_id: id,
  status: runStatusSchema,
  error: z.optional(wireErrorSchema),
  retry: z.optional(retryClassificationSchema),
  usage: z.catch(z.optional(usageSchema), undefined),
})
export type Run = z.infer<typeof runSchema>

/**
 * A list read item by item: one record that cannot be read is skipped and counted instead of
 * costing the operator every other one (a whole session hidden by one bad message).
 */
function lenientList<S extends z.ZodMiniType>(item: S) {
  return z.pipe(
    z.array(z.unknown()),
    z.transform((items: unknown[]) => {
      const kept: z.infer<S>[] = []
      readInto(item, items, 0, items.length, kept)
      return { items: kept, skipped: items.length - kept.length }
    }),
  )
}

export const sessionListSchema = z.pipe(
  z.object({ sessions: lenientList(sessionSchema) }),
  z.transform(({ sessions }: { sessions: { items: Session[]; skipped: number } }) => ({ sessions: sessions.items, skipped: sessions.skipped })),
)

const messageListShape = z.object({ messages: z.array(z.unknown()) })

/** Messages read between two pauses of `readMessageList`: a few milliseconds of work. */
export const MESSAGE_SLICE = 1000

/**
 * A session's history, read record by record as `lenientList` reads (a bad record is skipped and
 * counted), a slice of messages at a time with `pause` between slices: over 10,000 messages one
 * pass was a task of tens of milliseconds, in which the page could not answer a key or paint a
 * frame. Returns the first issue's words when the body is not a message list.
 */
export async function readMessageList(
  body: unknown,
  pause: () => Promise<void>,
  slice = MESSAGE_SLICE,
): Promise<{ ok: true; messages: Message[]; skipped: number } | { ok: false; issue: string }> {
  const shape = messageListShape.safeParse(body)
  if (!shape.success) return { ok: false, issue: shape.error.issues[0]?.message ?? 'invalid' }
  const items = shape.data.messages
  const messages: Message[] = []
  for (let from = 0; from < items.length; from += slice) {
    if (from > 0) await pause()
    readInto(messageSchema, items, from, Math.min(items.length, from + slice), messages)
  }
  return { ok: true, messages, skipped: items.length - messages.length }
}
export const sendReceiptSchema = z.object({ message_id: id, run_id: id, queued: z.boolean() })
export type SendReceipt = z.infer<typeof sendReceiptSchema>
export const regenerateReceiptSchema = z.object({ run_id: id, superseded: z.array(z.string()), queued: z.boolean() })
export type RegenerateReceipt = z.infer<typeof regenerateReceiptSchema>
export const cancelReceiptSchema = z.object({ run_id: id, status: runStatusSchema })
export type CancelReceipt = z.infer<typeof cancelReceiptSchema>

/** The body of every refusal, and of a JSON stream `error` event. */
export const refusalBodySchema = z.object({ error: z.string(), code: z.string() })
export type RefusalBody = z.infer<typeof refusalBodySchema>

export type SendBody = { content: string; client_message_id: string }

export const TOOL_DECISIONS = ['approve', 'deny'] as const
export type ToolDecision = (typeof TOOL_DECISIONS)[number]
export const decisionReceiptSchema = z.object({ tool_call_id: id, status: z.enum(TOOL_STATUSES) })
export type DecisionReceipt = z.infer<typeof decisionReceiptSchema>

/** Which page of history to read: the newest `limit`, the `limit` before `before`, or those after `after`. */
export type PageQuery = { limit?: number; before?: number; after?: number }

/** A page of history (`?limit=N`, with `before` or `after`): messages oldest first, and whether more lie beyond. */
export type MessagePage = { messages: Message[]; has_more: boolean; skipped: number }
const searchHitSchema = z.object({ message_id: id, seq: z.number(), snippet: z.string() })
export type SearchHit = z.infer<typeof searchHitSchema>
export const searchResultSchema = z.object({ hits: lenientList(searchHitSchema), has_more: z.boolean() })

/** Data of each stream event, by event name. */
export const streamEventSchemas = {
  queued: z.object({ position: z.number() }),
  start: z.object({ message_id: id }),
  retrying: z.object({
    attempt: z.int().check(z.minimum(2)),
    max_attempts: z.int().check(z.minimum(1)),
    retry_at: epochMs,
    code: z.string(),
  }),
  delta: z.object({ text: z.string() }),
  reasoning: z.object({ text: z.string() }),
  tool_call: z.object({ tool_call_id: id, name: z.string(), effect: z.enum(TOOL_EFFECTS) }),
  tool_input: z.object({ tool_call_id: id, delta: z.string() }),
  tool_approval: z.object({ tool_call_id: id, reason: z.optional(z.string()) }),
  tool_running: z.object({ tool_call_id: id }),
  tool_result: z.object({
    tool_call_id: id,
    status: z.enum(TOOL_RESULT_STATUSES),
    output: z.optional(z.string()),
    output_bytes: z.optional(count),
    output_truncated: z.optional(z.boolean()),
    error: z.optional(wireErrorSchema),
  }),
  usage: usageSchema,
  done: z.object({ message_id: id }),
  cancelled: z.object({ message_id: id }),
} as const

export type StreamFrame =
  | { type: 'queued'; id: number; position: number }
  | { type: 'start'; id: number; message_id: string }
  /** Tier 1 waits until `retry_at` (the daemon's clock) before attempt `attempt` of `max_attempts`. */
  | { type: 'retrying'; id: number; attempt: number; max_attempts: number; retry_at: number; code: string }
  | { type: 'delta'; id: number; text: string }
  | { type: 'reasoning'; id: number; text: string }
  | { type: 'tool_call'; id: number; tool_call_id: string; name: string; effect: ToolEffect }
  | { type: 'tool_input'; id: number; tool_call_id: string; delta: string }
  | { type: 'tool_approval'; id: number; tool_call_id: string; reason?: string }
  | { type: 'tool_running'; id: number; tool_call_id: string }
  | ({ type: 'tool_result'; id: number } & z.infer<typeof streamEventSchemas.tool_result>)
  | ({ type: 'usage'; id: number } & Usage)
  | { type: 'done'; id: number; message_id: string }
  | { type: 'cancelled'; id: number; message_id: string }
  | { type: 'error'; id: number; code: string | undefined; message: string }

export type StreamEventName = StreamFrame['type']
/** Every event name the stream may carry, in the order the wire page lists them. */
export const STREAM_EVENT_NAMES = [
  'queued',
  'start',
  'retrying',
  'delta',
  'reasoning',
  'tool_call',
  'tool_input',
  'tool_approval',
  'tool_running',
  'tool_result',
  'usage',
  'done',
  'cancelled',
  'error',
] as const satisfies readonly StreamEventName[]
export const TERMINAL_EVENTS: ReadonlySet<StreamEventName> = new Set(['done', 'cancelled', 'error'])

/** All paths are under this prefix. */
export const API_PREFIX = '/api/v1'
