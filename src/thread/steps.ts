/**
 * An agent reply's steps (its `parts`, daemon-wire.md "Agent steps") as the operator sees them,
 * without React: which step is still being written, which show open, how a tool's input and
 * output read, and how long a step took. The step components render what these say.
 */
import type { Part, ToolPart, ToolStatus } from '../wire/types'

/**
 * Most of a streaming tool input shown, in characters: its tail, wrapped, with its newest line at
 * the bottom of the box. An input can be hundreds of KiB written over a minute; re-rendering all
 * of it on every delta would stall the page. About a box and a half of wrapped lines (the box
 * shows 15 lines of some 80 to 140 characters); the whole input is there once it is written, and
 * Copy copies all of it meanwhile.
 */
export const INPUT_TAIL_CHARS = 2048

/**
 * Most of a complete tool input shown before the operator asks for the rest, in characters: its
 * head. A tool that writes a file takes hundreds of KiB of input, much of it one line (a JSON
 * string); laying that line out takes longer than a frame, and a tool shows its input open the
 * moment it starts running, in the middle of the stream.
 */
export const INPUT_HEAD_CHARS = 16_384

/**
 * The index of the part still being written, or -1: only the last part of a streaming reply
 * grows (a delta after a tool starts a new text part), so only it gets the caret or "Thinking…".
 */
export function livePartIndex(parts: readonly Part[], streaming: boolean): number {
  return streaming ? parts.length - 1 : -1
}

/**
 * Whether a tool shows its input and output before the operator asks: open while its input is
 * written, while it waits for a decision (the operator needs its input to decide) and while it
 * runs, and when it failed; folded once done, denied or cancelled. An earlier version's steps
 * are all folded: it is history.
 */
export function toolOpenByDefault(status: ToolStatus, earlier: boolean): boolean {
  if (earlier) return false
  return status === 'input' || status === 'awaiting_approval' || status === 'running' || status === 'failed'
}

/** Reasoning is open while it is written and folds to one line once the next step (the answer, a tool) starts. */
export function reasoningOpenByDefault(live: boolean, earlier: boolean): boolean {
  return live && !earlier
}

/** A tool's input or output as shown: the text, the language it is highlighted in (a fence-style tag), and what is left out. */
export type ShownCode = {
  text: string
  /** `json`, a file extension (`ts`, `py`), `sh` or `diff`; undefined: plain text. */
  tag: string | undefined
  /** Characters not shown: the head of an input still being written, the rest of a long one once complete. */
  omitted: number
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** The last `limit` characters of `text`, never starting inside a surrogate pair. */
function tail(text: string, limit: number): string {
  if (text.length <= limit) return text
  let start = text.length - limit
  if (isLowSurrogate(text.charCodeAt(start))) start += 1
  return text.slice(start)
}

/** The first `limit` characters of `text`, never ending inside a surrogate pair. */
function head(text: string, limit: number): string {
  if (text.length <= limit) return text
  return text.slice(0, isLowSurrogate(text.charCodeAt(limit)) ? limit - 1 : limit)
}

/**
 * `compute` remembered by its text: what is shown is made once however often it is shown
 * (running, then done, then opened again; in the live reply, then in history), oldest dropped
 * first. Bounded by characters (`size` counts a text and what was made of it): one file a tool
 * wrote is hundreds of KiB.
 */
function memoByText<T>(compute: (text: string) => T, size: (text: string, made: T) => number, limitChars = 4_000_000): (text: string) => T {
  const made = new Map<string, T>()
  let chars = 0
  return (text) => {
    if (made.has(text)) return made.get(text) as T
    const value = compute(text)
    made.set(text, value)
    chars += size(text, value)
    for (const [oldest, held] of made) {
      if (chars <= limitChars || oldest === text) break
      made.delete(oldest)
      chars -= size(oldest, held)
    }
    return value
  }
}

/** `text` pretty-printed when it is a JSON object or array, else undefined. */
const prettyJson = memoByText(
  (text: string): string | undefined => {
    const trimmed = text.trim()
    if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined
    try {
      return JSON.stringify(JSON.parse(trimmed), null, 2)
    } catch {
      return undefined
    }
  },
  (text, pretty) => text.length + (pretty?.length ?? 0),
)

/**
 * A tool's input as shown. While the model writes it (`input`) it is not JSON yet: its tail, as
 * it came, so a huge input costs the same per delta as a small one. Once complete it is
 * pretty-printed JSON when it parses, else the text as written; past INPUT_HEAD_CHARS, its head
 * only, unless the operator asked for all of it (`whole`).
 */
export function shownToolInput(input: string, status: ToolStatus, whole = false): ShownToolInput {
  if (status === 'input') {
    const text = tail(input, INPUT_TAIL_CHARS)
    return { text, tag: undefined, omitted: input.length - text.length }
  }
  const split = textFieldsOf(input)
  if (split !== undefined) {
    const cut = (text: string) => (whole ? text : head(text, INPUT_HEAD_CHARS))
    const rest = cut(split.rest)
    const fields = split.fields.map(({ name, value }) => {
      // The extension from the parse the split already made, not a parse of the input per field.
      const shown = shownText(value, false, () => split.extension)
      const text = cut(shown.text)
      return { name, lines: lineCount(value), text, tag: shown.tag, omitted: shown.text.length - text.length }
    })
    const omitted = split.rest.length - rest.length + fields.reduce((sum, field) => sum + field.omitted, 0)
    return { text: rest, tag: 'json', omitted, fields }
  }
  const pretty = prettyJson(input)
  const all = pretty ?? input
  const text = whole ? all : head(all, INPUT_HEAD_CHARS)
  return { text, tag: pretty === undefined ? undefined : 'json', omitted: all.length - text.length }
}

/**
 * A string at the top of a complete input that holds lines of text (the file a `write_file`
 * writes, a script, a patch): shown as the text it is, under its field's name, rather than as one
 * JSON line of `\n` escapes the operator scrolls sideways through before approving it.
 */
type InputTextField = ShownCode & { name: string; lines: number }

/** A tool's input as shown: `text` is the JSON of the fields that are not `fields` (empty when there are none). */
export type ShownToolInput = ShownCode & { fields?: InputTextField[] }

/** Lines in `text`, a final line break not counting as the start of another. */
function lineCount(text: string): number {
  let lines = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lines += 1
  return lines
}

/** Text fields shown apart at most: an input of thousands of them (a model gone wrong) shows the rest as JSON, not a box each. */
export const MAX_TEXT_FIELDS = 8

type TextFieldSplit = { rest: string; fields: Array<{ name: string; value: string }>; extension: string | undefined }

/**
 * A JSON object's string fields that hold a line break, apart from the rest of it (pretty-printed,
 * empty when nothing else is left), in the object's order; undefined when the input is not an
 * object or none of its strings does.
 */
const textFieldsOf = memoByText(
  (input: string): TextFieldSplit | undefined => {
    if (!input.trimStart().startsWith('{')) return undefined
    const value = parseObject(input)
    if (value === undefined) return undefined
    // No prototype: a field named `__proto__` is kept as a field, not taken as the object's prototype.
    const rest: Record<string, unknown> = Object.create(null) as Record<string, unknown>
    const fields: TextFieldSplit['fields'] = []
    for (const [name, field] of Object.entries(value)) {
      if (typeof field === 'string' && field.includes('\n') && fields.length < MAX_TEXT_FIELDS) fields.push({ name, value: field })
      else rest[name] = field
    }
    return fields.length > 0 ? { rest: Object.keys(rest).length > 0 ? JSON.stringify(rest, null, 2) : '', fields, extension: extensionOf(value) } : undefined
  },
  (input, split) => input.length + (split ? split.rest.length + split.fields.reduce((chars, field) => chars + field.value.length, 0) : 0),
)

/** Input fields that name the file a tool read, whose extension says what its output is. */
const PATH_FIELDS = ['path', 'file_path', 'filePath', 'file', 'filename']

/** `text` parsed when it is a JSON object, else undefined. */
function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

/** The extension of the file a tool's (complete, parsed) input names, lower case, or undefined. */
function extensionOf(input: Record<string, unknown> | undefined): string | undefined {
  if (input === undefined) return undefined
  for (const field of PATH_FIELDS) {
    const path = input[field]
    if (typeof path !== 'string') continue
    const name = path.split(/[\\/]/).pop() ?? ''
    const dot = name.lastIndexOf('.')
    return dot > 0 ? name.slice(dot + 1).toLowerCase() : undefined
  }
  return undefined
}

/**
 * A tool's output as shown, and what it is written in, so code and JSON are highlighted:
 * - JSON (an object or array that parses) is pretty-printed; a cut one (`truncated`) that opens
 *   like JSON is highlighted as JSON as it is (it cannot parse);
 * - a script (`#!`) is shell, or Python when its interpreter is;
 * - a unified diff is a diff;
 * - else the extension of the file the input names (`read_file {"path": "src/a.ts"}` → `ts`);
 * - else plain text.
 * The text itself is never changed but for the JSON pretty-printing.
 */
export function shownToolOutput(output: string, truncated: boolean, input: string): ShownCode {
  return shownText(output, truncated, () => extensionOf(parseObject(input)))
}

/** shownToolOutput, with the input's file extension asked for only when nothing else names the language. */
function shownText(output: string, truncated: boolean, extension: () => string | undefined): ShownCode {
  const pretty = truncated ? undefined : prettyJson(output)
  if (pretty !== undefined) return { text: pretty, tag: 'json', omitted: 0 }
  const head = output.trimStart()
  if (truncated && (head.startsWith('{') || head.startsWith('['))) return { text: output, tag: 'json', omitted: 0 }
  if (head.startsWith('#!')) return { text: output, tag: /^#![^\n]*python/.test(head) ? 'python' : 'sh', omitted: 0 }
  if (head.startsWith('diff --git ') || /^--- [^\n]*\n\+\+\+ /.test(head)) return { text: output, tag: 'diff', omitted: 0 }
  return { text: output, tag: extension(), omitted: 0 }
}

/** A tool's duration from the daemon's own times (no clock skew in it), once it has ended. */
export function toolDurationMs(part: ToolPart): number | undefined {
  return part.ended_at === undefined ? undefined : Math.max(0, part.ended_at - part.started_at)
}

/**
 * How long the reasoning at `index` took, as far as the daemon's times tell: from the end of the
 * tool before it to the start of the tool after it. The wire has no times for reasoning itself,
 * so reasoning with anything else on either side has no known span (a client that watched it
 * stream measures it instead).
 */
export function reasoningSpanMs(parts: readonly Part[], index: number): number | undefined {
  const before = parts[index - 1]
  const after = parts[index + 1]
  if (before?.type !== 'tool' || after?.type !== 'tool' || before.ended_at === undefined) return undefined
  return Math.max(0, after.started_at - before.ended_at)
}

/** The browser's own timing of a run's first thinking, as the live-run store observed its stream. */
export type ThinkingTimes = { startedAt: number | undefined; endedAt: number | undefined }

/**
 * How long the reasoning at `index` took, or undefined when nothing tells: the daemon's times
 * around it (reasoningSpanMs) first; else, for the reply's first reasoning, the stream's timing of
 * it (first reasoning event to the first event after it), which a reload keeps.
 */
export function reasoningDurationMs(parts: readonly Part[], index: number, thinking: ThinkingTimes): number | undefined {
  const span = reasoningSpanMs(parts, index)
  if (span !== undefined) return span
  const { startedAt, endedAt } = thinking
  if (startedAt === undefined || endedAt === undefined) return undefined
  return parts.findIndex((part) => part.type === 'reasoning') === index ? Math.max(0, endedAt - startedAt) : undefined
}

/**
 * How long a tool runs before its input is highlighted. Most tools end sooner, and fold as they
 * end: highlighting their input (up to INPUT_HEAD_CHARS of it, thousands of coloured spans) would
 * be drawn for a moment and thrown away. One that runs longer is read while it runs, in colour.
 */
export const HIGHLIGHT_RUNNING_AFTER_MS = 1_000

/** Whether a tool's complete input is highlighted, `ranMs` after the tool started: at once unless it is running, then once it has run HIGHLIGHT_RUNNING_AFTER_MS. */
export function highlightsInput(status: ToolStatus, ranMs: number): boolean {
  return status !== 'running' || ranMs >= HIGHLIGHT_RUNNING_AFTER_MS
}

/** Milliseconds until a running tool that has run `ranMs` has its input highlighted; null once it has. */
export function inputHighlightIn(ranMs: number): number | null {
  return highlightsInput('running', ranMs) ? null : HIGHLIGHT_RUNNING_AFTER_MS - ranMs
}

/** Milliseconds until a clock that has run `elapsedMs` shows its next whole second. */
export function nextSecondIn(elapsedMs: number): number {
  if (!Number.isFinite(elapsedMs) || elapsedMs < 0) return 1000
  return 1000 - (elapsedMs % 1000)
}

/** The size of `text` in UTF-8 bytes, the unit of `output_bytes` and of the daemon's 16 KiB limit. */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i += 1
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}
