/**
 * Agent steps for the benchmark (daemon-wire.md, "Agent steps"): the streamed reply of issue 27
 * (text between many tool calls, some two at once, megabytes of tool input written as it
 * streams) and the steps a history reply holds. Deterministic by seed, like the rest of content.ts.
 */
import { cutText, FIRST_MARKER, LAST_MARKER, markdownProse, pick, rng, sentence, WORDS, type WirePart, type WireUsage } from './content'

/** One event of a run's stream, as the daemon sends it (`event:` and `data:`), after `start`. */
export type ReplyEvent = (
  | { event: 'delta'; data: { text: string } }
  | { event: 'reasoning'; data: { text: string } }
  | { event: 'tool_call'; data: { tool_call_id: string; name: string; effect: 'read' | 'write' } }
  | { event: 'tool_input'; data: { tool_call_id: string; delta: string } }
  | { event: 'tool_running'; data: { tool_call_id: string } }
  | { event: 'tool_result'; data: { tool_call_id: string; status: 'done'; output: string; output_bytes: number; output_truncated: boolean } }
  | { event: 'usage'; data: WireUsage }
) & {
  /** Wall time the daemon waits before this event, on top of the stream's pace (a tool running). */
  pauseMs?: number
}

/** The text stream: every event a `delta`. */
export function textEvents(deltas: readonly string[]): ReplyEvent[] {
  return deltas.map((text) => ({ event: 'delta', data: { text } }))
}

/** At most this much of a tool's output travels on the stream and in history (daemon-wire.md). */
const OUTPUT_CAP = 16 * 1024

const TOOLS: ReadonlyArray<{ name: string; effect: 'read' | 'write'; field: string }> = [
  { name: 'read_file', effect: 'read', field: 'ranges' },
  { name: 'search_docs', effect: 'read', field: 'query' },
  { name: 'run_command', effect: 'write', field: 'command' },
]

/**
 * JSON-escaped code of exactly `length` characters, to sit inside a JSON string: lines joined by
 * `\n` escapes, some `\"` quotes. Never ends inside an escape.
 */
function escapedCode(r: () => number, length: number): string {
  const pieces: string[] = []
  let n = 0
  let line = 0
  while (n < length) {
    const a = pick(r, WORDS)
    const b = pick(r, WORDS)
    const piece = `${'  '.repeat(line % 3)}const ${a}${line} = await ${b}(${line * 7}, \\"${a}\\")\\n`
    pieces.push(piece)
    n += piece.length
    line++
  }
  let text = pieces.join('').slice(0, length)
  const trailing = text.length - text.replace(/\\+$/, '').length
  if (trailing % 2 === 1) text = `${text.slice(0, -1)} `
  return text
}

/** A tool's JSON input of exactly `length` characters (at least 64): every third a file to write, the others a read, a search or a command. */
function toolInput(r: () => number, length: number, index: number): { name: string; effect: 'read' | 'write'; input: string } {
  if (index % 3 === 0) {
    const head = `{"path":"src/${pick(r, WORDS)}/${pick(r, WORDS)}-${index}.ts","content":"`
    return { name: 'write_file', effect: 'write', input: `${head}${escapedCode(r, Math.max(0, length - head.length - 2))}"}` }
  }
  const tool = TOOLS[(index + Math.floor(index / 3)) % TOOLS.length] as (typeof TOOLS)[number]
  const head = `{"${tool.field}":"`
  return { name: tool.name, effect: tool.effect, input: `${head}${escapedCode(r, Math.max(0, length - head.length - 2))}"}` }
}

/**
 * A tool's output, the first `bytes` characters (ASCII, so bytes) of a listing that depends only
 * on the seed: the same seed gives the same prefix whatever length is asked, so a part's first
 * 16 KiB and the whole output from GET …/tools/:tcid/output agree.
 */
export function toolOutput(seed: number, bytes: number): string {
  const r = rng(seed)
  const lines: string[] = []
  let n = 0
  for (let i = 1; n < bytes; i++) {
    const line = `${String(i).padStart(5)}  ${pick(r, WORDS)} ${pick(r, WORDS)}.${pick(r, ['ts', 'py', 'md', 'json'])} ${Math.floor(r() * 100_000)} ${sentence(r)}\n`
    lines.push(line)
    n += line.length
  }
  return lines.join('').slice(0, bytes)
}

export type StepsPlan = {
  /** Text deltas in all (at least 2 per text part). */
  textDeltas: number
  /** Tool calls in all. */
  tools: number
  /** Steps that call two tools at once (each counts two tools). */
  pairs: number
  /** Characters of tool input in all, streamed as `tool_input` deltas. */
  inputChars: number
  seed?: number
}

/**
 * Issue 27's reply: text parts between steps of one or two tool calls, each step opened by a few
 * pieces of reasoning; each tool's input streams in pieces of 128–384 characters, it runs for
 * 30–150 ms (a pause in the stream), its output (1–16 KiB) arrives with `tool_result`, and a
 * `usage` event follows each step. In a pair both tools open, their inputs interleave, both run,
 * and the second ends first. The first event is the `delta` FIRST_MARKER, the last the `delta`
 * LAST_MARKER.
 */
export function stepsEvents({ textDeltas, tools, pairs, inputChars, seed = 27 }: StepsPlan): { events: ReplyEvent[]; toolOutputs: Map<string, string> } {
  if (pairs * 2 > tools) throw new Error('more pairs than tools')
  const r = rng(seed)
  const steps = tools - pairs
  const segments = steps + 1
  if (textDeltas < segments * 2) throw new Error(`${textDeltas} deltas cannot make ${segments} text parts`)
  // Which steps call two tools: spread over the run.
  const paired = new Set(Array.from({ length: pairs }, (_, k) => Math.floor(((k + 0.5) * steps) / pairs)))

  const share = (total: number, count: number, min: number, weight: () => number) => {
    const weights = Array.from({ length: count }, weight)
    const sum = weights.reduce((a, b) => a + b, 0)
    const out = weights.map((w) => Math.max(min, Math.floor((w / sum) * total)))
    let left = total - out.reduce((a, b) => a + b, 0)
    for (let i = 0; left !== 0; i = (i + 1) % count) {
      if (left > 0) {
        out[i] = (out[i] as number) + 1
        left--
      } else if ((out[i] as number) > min) {
        out[i] = (out[i] as number) - 1
        left++
      }
    }
    return out
  }
  const segmentDeltas = share(textDeltas, segments, 2, () => 0.5 + r())
  // Every third call writes a file (most of the input); the others read, search or run a command with a few KiB.
  let call = 0
  const inputSizes = share(inputChars, tools, 64, () => (call++ % 3 === 0 ? 0.5 + r() : 0.005 + 0.02 * r()))

  const events: ReplyEvent[] = []
  const toolOutputs = new Map<string, string>()
  const text = (k: number) => {
    const count = segmentDeltas[k] as number
    const first = k === 0
    const last = k === segments - 1
    const pieces = count - (first ? 1 : 0) - (last ? 1 : 0)
    const tail = last ? '\n\nThat is the whole report, and the last word of it is ' : '\n\n'
    const body = `${first ? 'opens this report. ' : ''}${markdownProse(seed * 1000 + k, Math.max(8, pieces * 5 - tail.length))}${tail}`
    const cut = cutText(body, pieces, r)
    if (first) events.push({ event: 'delta', data: { text: `${FIRST_MARKER} ` } })
    for (const piece of cut) events.push({ event: 'delta', data: { text: piece } })
    if (last) events.push({ event: 'delta', data: { text: LAST_MARKER } })
  }
  let toolIndex = 0
  let inputTokens = 2000
  let outputTokens = 0
  for (let step = 0; step < steps; step++) {
    text(step)
    for (const piece of cutText(`${sentence(r)} ${sentence(r)}`, 4, r)) events.push({ event: 'reasoning', data: { text: piece } })
    const calls = Array.from({ length: paired.has(step) ? 2 : 1 }, () => {
      const k = toolIndex++
      const id = `tc-s-${k}`
      const { name, effect, input } = toolInput(r, inputSizes[k] as number, k)
      const deltas: string[] = []
      for (let from = 0; from < input.length; ) {
        const to = Math.min(input.length, from + 128 + Math.floor(r() * 257))
        deltas.push(input.slice(from, to))
        from = to
      }
      const output = toolOutput(seed * 1000 + k, 1024 + Math.floor(r() * (OUTPUT_CAP - 1024 + 1)))
      toolOutputs.set(id, output)
      outputTokens += Math.round(input.length / 4)
      return { id, name, effect, deltas, output }
    })
    for (const c of calls) events.push({ event: 'tool_call', data: { tool_call_id: c.id, name: c.name, effect: c.effect } })
    const longest = Math.max(...calls.map((c) => c.deltas.length))
    for (let i = 0; i < longest; i++) {
      for (const c of calls) if (i < c.deltas.length) events.push({ event: 'tool_input', data: { tool_call_id: c.id, delta: c.deltas[i] as string } })
    }
    for (const c of calls) events.push({ event: 'tool_running', data: { tool_call_id: c.id } })
    calls.reverse().forEach((c, i) => {
      const output = c.output
      events.push({
        event: 'tool_result',
        data: { tool_call_id: c.id, status: 'done', output, output_bytes: output.length, output_truncated: false },
        pauseMs: i === 0 ? 30 + Math.floor(r() * 121) : 5,
      })
      inputTokens += Math.round(output.length / 4)
    })
    events.push({ event: 'usage', data: { input_tokens: inputTokens, output_tokens: outputTokens, cost_usd: Math.round((inputTokens * 3 + outputTokens * 15) / 1000) / 1000 } })
  }
  text(segments - 1)
  return { events, toolOutputs }
}

/**
 * The steps of a history reply (message `index` of its session): reasoning, text, one or two
 * tool calls with their input and output, and the answer. One tool in 50 returned more than
 * OUTPUT_CAP: its part holds the first 16 KiB (`output_truncated`) and GET …/output the rest.
 */
export function historySteps(r: () => number, index: number, at: number, answer: string): { parts: WirePart[]; usage: WireUsage } {
  const parts: WirePart[] = [{ type: 'reasoning', text: `${sentence(r)} ${sentence(r)}` }, { type: 'text', text: `${sentence(r)}\n\n` }]
  const count = 1 + Math.floor(r() * 2)
  let inputTokens = 1500
  let outputTokens = 0
  for (let k = 0; k < count; k++) {
    const { name, effect, input } = toolInput(r, 80 + Math.floor(r() * 520), index + k)
    const big = r() < 0.02
    const bytes = big ? 64 * 1024 + Math.floor(r() * 192 * 1024) : 128 + Math.floor(r() * 1408)
    const output = toolOutput(outputSeed(index, k), Math.min(bytes, OUTPUT_CAP))
    parts.push({
      type: 'tool',
      tool_call_id: `tc-${index}-${k}`,
      name,
      effect,
      input,
      status: 'done',
      output,
      output_bytes: bytes,
      output_truncated: bytes > OUTPUT_CAP,
      started_at: at + k * 2000,
      ended_at: at + k * 2000 + 800,
    })
    inputTokens += Math.round(output.length / 4)
    outputTokens += Math.round(input.length / 4)
  }
  parts.push({ type: 'text', text: answer })
  return { parts, usage: { input_tokens: inputTokens, output_tokens: outputTokens + Math.round(answer.length / 4), cost_usd: Math.round((inputTokens * 3 + outputTokens * 15) / 1000) / 1000 } }
}

/** The seed of the output of tool `k` of message `index`: GET …/output regenerates it from the id alone. */
export function outputSeed(index: number, k: number): number {
  return (index * 31 + k * 7919 + 17) >>> 0
}
