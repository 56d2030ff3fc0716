/**
 * What a run does after `start`: its script, one logged event a step, as a pure function of the
 * outcome, the prompt, the run's id and the operator's decisions, so a reload, a reattach and a
 * test all see the same run. A decision changes the script from the awaited tool on; the steps
 * before it are the same, so the run's log still indexes it.
 *
 * Tools are simulated: nothing outside the daemon is read or written.
 */
import { TOOL_OUTPUT_LIMIT, type ToolDecision, type ToolEffect, type Usage, type WireError } from '../src/wire/types'
import { type AgentOutcome, type Failure, type ParsedOutcome, type ProviderAnswer, failureForCode } from './faults'
import { DELTA_SIZE, SLOW_DELTA_SIZE, type DeltaSize, deltasOf, gistOf, isChinese, replyFor } from './replies'
import { tier1After } from './tier1'

export type Step = (
  /** Tier 1 failed an attempt before the first output and waits `waitMs` before attempt `attempt`. */
  | { kind: 'retry'; attempt: number; code: string; waitMs: number }
  | { kind: 'delta'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool_call'; id: string; name: string; effect: ToolEffect }
  | { kind: 'tool_input'; id: string; delta: string }
  /** The last step until the operator decides: the script then goes on from there. */
  | { kind: 'tool_approval'; id: string; reason: string }
  | { kind: 'tool_running'; id: string }
  /** `output` is the whole output; the daemon cuts what goes on the stream and in history. */
  | { kind: 'tool_result'; id: string; status: 'done' | 'failed' | 'denied'; output?: string; error?: WireError }
  | { kind: 'usage'; usage: Usage }
  | { kind: 'done' }
  | { kind: 'fail'; failure: (now: number) => Failure }
  | { kind: 'raw'; text: string }
) & {
  /** The pause before this step when it is not the script's own `delayMs`. */
  delayMs?: number
  /** Nothing goes on the stream during the pause before this step, not even a ping (`silent:S`). */
  quiet?: boolean
}

/**
 * A run's steps after `start`. `delayMs` is the pause before each step (a provider attempt, or
 * the next event); after a `retry` step the pause is the rest of the wait, then `delayMs`.
 */
export type Script = { steps: Step[]; delayMs: number; dropAfter?: number; lagAfter?: number }

export type ScriptInput = {
  outcome: ParsedOutcome | undefined
  prompt: string
  runId: string
  /** The operator's decisions on this run's tools, by tool call id. */
  decisions: Readonly<Record<string, ToolDecision>>
  deltaDelayMs: number
  slowDelayMs: number
}

/** Deltas streamed by `code:CODE`, `unknown_code` and `raw` before their error. */
export const DELTAS_BEFORE_ERROR = 3

/** `big_output`: what the tool returns, in UTF-8 bytes. */
export const BIG_OUTPUT_BYTES = 1024 * 1024
/** `big_input`: the tool's JSON input in bytes, and how long the model takes to write it. */
export const BIG_INPUT_BYTES = 200 * 1024
export const BIG_INPUT_MS = 10_000
const BIG_INPUT_PIECES = 100

const REASONING_SIZE: DeltaSize = { min: 24, max: 56 }
/** Tool inputs stream in small pieces, as a model writes JSON. */
const INPUT_PIECE = 16

const utf8 = new TextEncoder()
const bytesOf = (text: string) => utf8.encode(text).length

/**
 * The steps of a run whose provider answers attempt by attempt: tier 1 retries each failure as
 * `tier1After` decides (a `retry` step before each wait), then the reply streams or the run fails.
 * `published`: the run already put out a step, so tier 1 does not retry at all.
 */
function providerSteps(attempt: (n: number) => ProviderAnswer, reply: Step[], published = false): Step[] {
  const steps: Step[] = []
  for (let n = 1; ; n++) {
    const answer = attempt(n)
    if (answer === 'answer') return [...steps, ...reply, { kind: 'done' }]
    const { failure } = answer
    const decision = tier1After(n, answer.retryAfterMs, published)
    switch (decision.kind) {
      case 'wait':
        steps.push({ kind: 'retry', attempt: n + 1, code: failure.code, waitMs: decision.ms })
        continue
      case 'give_up':
        // The last failure's code and classification, as they came.
        return [...steps, { kind: 'fail', failure: () => structuredClone(failure) }]
      case 'hand_over':
        return [
          ...steps,
          {
            kind: 'fail',
            failure: (now) =>
              failure.retry
                ? { ...failure, retry: { ...failure.retry, retry_after_until: now + decision.retryAfterMs } }
                : structuredClone(failure),
          },
        ]
    }
  }
}

/** Splits a tool's JSON input into pieces of `size` code points, as a model streams it. */
function piecesOf(text: string, size: number): string[] {
  const points = Array.from(text)
  const pieces: string[] = []
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(''))
  return pieces
}

/**
 * The mock agent writing its steps: reasoning, text, tool calls and the usage after each model
 * call, in the operator's language (tool names and inputs stay as a model writes them).
 */
class Agent {
  readonly steps: Step[] = []
  readonly zh: boolean
  readonly gist: string
  private calls = 0
  /** Characters the current model call has written, for its output tokens. */
  private written = 0
  /** Tokens the next model call reads besides the prompt: what was written and read so far. */
  private context = 0
  private readonly total = { input_tokens: 0, output_tokens: 0 }

  constructor(
    readonly prompt: string,
    private readonly runId: string,
  ) {
    this.zh = isChinese(prompt)
    this.gist = gistOf(prompt, this.zh)
  }

  t(en: string, zh: string): string {
    return this.zh ? zh : en
  }

  reason(en: string, zh: string): void {
    const text = this.t(en, zh)
    for (const piece of deltasOf(text, REASONING_SIZE)) this.steps.push({ kind: 'reasoning', text: piece })
    this.written += text.length
  }

  say(text: string): void {
    for (const piece of deltasOf(text, DELTA_SIZE)) this.steps.push({ kind: 'delta', text: piece })
    this.written += text.length
  }

  answer(): void {
    this.say(replyFor(this.prompt))
  }

  /** Starts a tool call and streams its input; returns its id. */
  call(name: string, effect: ToolEffect, input: string, pieces = piecesOf(input, INPUT_PIECE), pieceDelayMs?: number): string {
    const id = `${this.runId.replace(/^run_/, 'call_')}_${++this.calls}`
    this.steps.push({ kind: 'tool_call', id, name, effect })
    for (const delta of pieces) this.steps.push({ kind: 'tool_input', id, delta, ...(pieceDelayMs === undefined ? {} : { delayMs: pieceDelayMs }) })
    this.written += input.length
    return id
  }

  ask(id: string, reason: string): void {
    this.steps.push({ kind: 'tool_approval', id, reason })
  }

  run(id: string): void {
    this.steps.push({ kind: 'tool_running', id })
  }

  result(id: string, result: { status: 'done' | 'failed' | 'denied'; output?: string; error?: WireError; delayMs?: number }): void {
    this.steps.push({ kind: 'tool_result', id, ...result })
    if (result.output !== undefined) this.context += Math.ceil(Math.min(bytesOf(result.output), TOOL_OUTPUT_LIMIT) / 4)
  }

  /** The end of a model call: the run's usage so far. */
  modelCall(): void {
    this.total.input_tokens += 400 + Math.ceil(this.prompt.length / 4) + this.context
    const output = Math.max(1, Math.ceil(this.written / 4))
    this.total.output_tokens += output
    this.context += output
    this.written = 0
    const cost = (this.total.input_tokens * 3 + this.total.output_tokens * 15) / 1e6
    this.steps.push({ kind: 'usage', usage: { ...this.total, cost_usd: Number(cost.toFixed(6)) } })
  }

  done(): Step[] {
    this.steps.push({ kind: 'done' })
    return this.steps
  }
}

/** A file name from the prompt's first Latin words, as an agent would name a note. */
function slugOf(prompt: string): string {
  return (prompt.toLowerCase().match(/[a-z0-9]+/g) ?? []).slice(0, 4).join('-') || 'note'
}

/** `ok`: a short reasoning, one `search_docs` call with its input and a short output, then the answer. */
function okSteps(agent: Agent): Step[] {
  agent.reason(
    `The question is about “${agent.gist}”. The docs should cover it: I will search them first, then answer.`,
    `问题是关于“${agent.gist}”的。文档里应该有，我先查一下文档再回答。`,
  )
  const id = agent.call('search_docs', 'read', JSON.stringify({ query: agent.gist, limit: 3 }))
  agent.modelCall()
  agent.run(id)
  agent.result(id, {
    status: 'done',
    output: agent.t(
      `3 results for “${agent.gist}”:\n1. docs/retries.md: Retries and backoff\n2. docs/streaming.md: Reading the event stream\n3. docs/errors.md: Error codes and what they mean`,
      `“${agent.gist}”的 3 条结果：\n1. docs/retries.md：重试与退避\n2. docs/streaming.md：读取事件流\n3. docs/errors.md：错误码及其含义`,
    ),
  })
  agent.answer()
  agent.modelCall()
  return agent.done()
}

const READ_TOOLS = ['search_docs', 'read_file', 'list_files', 'grep_code'] as const

/** Tool `i` (0-based) of `tools:N`: its name, JSON input and short output. */
function readTool(agent: Agent, i: number): { name: string; input: string; output: string } {
  const name = READ_TOOLS[i % READ_TOOLS.length]!
  const n = i + 1
  switch (name) {
    case 'search_docs':
      return {
        name,
        input: JSON.stringify({ query: agent.gist }),
        output: agent.t(`2 results:\n1. docs/guide-${n}.md\n2. docs/faq.md`, `2 条结果：\n1. docs/guide-${n}.md\n2. docs/faq.md`),
      }
    case 'read_file':
      return {
        name,
        input: JSON.stringify({ path: `docs/guide-${n}.md` }),
        output: agent.t(
          `# Guide ${n}\n\nRetries wait 2 s, then twice as long each time.`,
          `# 指南 ${n}\n\n重试先等 2 秒，之后每次加倍。`,
        ),
      }
    case 'list_files':
      return { name, input: JSON.stringify({ path: `src/part-${n}/` }), output: 'index.ts\nretry.ts\nstream.ts' }
    case 'grep_code':
      return {
        name,
        input: JSON.stringify({ pattern: 'retry_after', path: 'src/' }),
        output: `src/retry.ts:${10 + n}: const until = retry_after_until`,
      }
  }
}

/** `tools:N`: the first two tools run at once, each later one after a line of text, then the answer. */
function toolsSteps(agent: Agent, count: number): Step[] {
  agent.reason(
    `This needs a few sources: I will read ${count} of them, two at a time where I can.`,
    `这需要几处资料：我会查阅 ${count} 处，能同时查的就同时查。`,
  )
  const first = Array.from({ length: Math.min(2, count) }, (_, i) => {
    const tool = readTool(agent, i)
    return { ...tool, id: agent.call(tool.name, 'read', tool.input) }
  })
  agent.modelCall()
  for (const tool of first) agent.run(tool.id)
  for (const tool of first) agent.result(tool.id, { status: 'done', output: tool.output })
  for (let i = first.length; i < count; i++) {
    const tool = readTool(agent, i)
    agent.say(agent.t(`${i} of ${count} read. Next: ${tool.name}.\n\n`, `已查阅 ${i}/${count} 处。接下来：${tool.name}。\n\n`))
    const id = agent.call(tool.name, 'read', tool.input)
    agent.modelCall()
    agent.run(id)
    agent.result(id, { status: 'done', output: tool.output })
  }
  agent.say(agent.t(`All ${count} read. Here is the answer.\n\n`, `${count} 处都已查阅，下面是回答。\n\n`))
  agent.answer()
  agent.modelCall()
  return agent.done()
}

/** A note `write_file` writes: the question and the answer's first paragraph. */
function noteFor(agent: Agent): { path: string; input: string; bytes: number } {
  const path = `notes/${slugOf(agent.prompt)}.md`
  const content = `# ${agent.gist}\n\n${replyFor(agent.prompt).split('\n\n')[0] ?? ''}\n`
  return { path, input: JSON.stringify({ path, content }), bytes: bytesOf(content) }
}

const wrote = (agent: Agent, path: string, bytes: number) =>
  agent.t(`Wrote ${bytes} bytes to ${path}.`, `已写入 ${path}，共 ${bytes} 字节。`)

/** `approval` and `approval:auto`: a `write_file` call, asked about or not; approved it runs, denied the agent answers without it. */
function approvalSteps(agent: Agent, ask: boolean, decisions: ScriptInput['decisions']): Step[] {
  const note = noteFor(agent)
  agent.reason(`I will save a short note to ${note.path}, then answer.`, `我先把要点写进 ${note.path}，再回答。`)
  const id = agent.call('write_file', 'write', note.input)
  agent.modelCall()
  const decision = ask ? decisions[id] : 'approve'
  if (ask) agent.ask(id, agent.t(`write_file writes ${note.path} in the workspace.`, `write_file 会在工作区写入 ${note.path}。`))
  // Undecided: the script ends at the question, and the run waits as long as it takes.
  if (decision === undefined) return agent.steps
  if (decision === 'approve') {
    agent.run(id)
    agent.result(id, { status: 'done', output: wrote(agent, note.path, note.bytes) })
    agent.say(
      agent.t(
        `I wrote \`${note.path}\` (${note.bytes} bytes): the question and the first paragraph of the answer below.\n\n`,
        `我已写入 \`${note.path}\`（${note.bytes} 字节）：问题和下面回答的第一段。\n\n`,
      ),
    )
  } else {
    agent.result(id, { status: 'denied' })
    agent.say(agent.t('You declined the write, so nothing was saved. Here is the answer.\n\n', '你拒绝了写入，所以什么也没有保存。下面是回答。\n\n'))
  }
  agent.answer()
  agent.modelCall()
  return agent.done()
}

/** `tool_fail`: a `read_file` that fails `tool_failed`; the agent answers anyway. */
function toolFailSteps(agent: Agent): Step[] {
  const path = 'config/daemon.toml'
  agent.reason('The config file should say; I will read it.', '配置文件里应该写着，我读一下。')
  const id = agent.call('read_file', 'read', JSON.stringify({ path }))
  agent.modelCall()
  agent.run(id)
  agent.result(id, {
    status: 'failed',
    error: { code: 'tool_failed', message: `read_file failed: ENOENT: no such file or directory, open '${path}'` },
  })
  agent.say(
    agent.t(
      `I could not read \`${path}\` (the file does not exist), so this answer goes by the defaults.\n\n`,
      `无法读取 \`${path}\`（文件不存在），所以下面按默认值回答。\n\n`,
    ),
  )
  agent.answer()
  agent.modelCall()
  return agent.done()
}

/** A build log of exactly `BIG_OUTPUT_BYTES` (Chinese lines for a Chinese prompt, so a cut can fall inside a character). */
function bigLog(zh: boolean): string {
  const lines: string[] = []
  let bytes = 0
  for (let n = 1; ; n++) {
    const line = zh
      ? `第 ${n} 行：构建步骤 ${n % 97} 完成，用时 ${(n * 7) % 1000} 毫秒\n`
      : `line ${String(n).padStart(6, '0')}: build step ${n % 97} finished in ${(n * 7) % 1000} ms\n`
    const size = bytesOf(line)
    if (bytes + size > BIG_OUTPUT_BYTES) break
    lines.push(line)
    bytes += size
  }
  return lines.join('') + '.'.repeat(BIG_OUTPUT_BYTES - bytes)
}

/** `big_output`: a `read_file` whose output is 1 MiB. */
function bigOutputSteps(agent: Agent): Step[] {
  agent.reason('The build log has the details; I will read it whole.', '构建日志里有细节，我把它整个读一遍。')
  const id = agent.call('read_file', 'read', JSON.stringify({ path: 'logs/build.log' }))
  agent.modelCall()
  agent.run(id)
  agent.result(id, { status: 'done', output: bigLog(agent.zh) })
  agent.say(agent.t('The log is long (1 MiB); only its end matters here.\n\n', '日志很长（1 MiB），这里只有结尾要紧。\n\n'))
  agent.answer()
  agent.modelCall()
  return agent.done()
}

/** The JSON input of `big_input`: a `write_file` of a CSV fixture, exactly `BIG_INPUT_BYTES` long. */
function bigInput(): string {
  const path = 'data/fixture.json'
  const overhead = JSON.stringify({ path, content: '' }).length
  const rows: string[] = []
  // Escaped, a row's newline takes two characters.
  let length = overhead
  for (let n = 1; ; n++) {
    const row = `${n},item-${n},${(n * 37) % 1000}`
    if (length + row.length + 2 > BIG_INPUT_BYTES) break
    rows.push(row)
    length += row.length + 2
  }
  return JSON.stringify({ path, content: rows.join('\n') + '\n' + 'x'.repeat(BIG_INPUT_BYTES - length) })
}

/** `big_input`: a `write_file` whose 200 KiB input is written over 10 s, run without asking. */
function bigInputSteps(agent: Agent): Step[] {
  agent.reason('I will write the whole fixture to data/fixture.json; it is large.', '我把整个测试数据写进 data/fixture.json，它很大。')
  const input = bigInput()
  const pieceSize = Math.ceil(input.length / BIG_INPUT_PIECES)
  const id = agent.call('write_file', 'write', input, piecesOf(input, pieceSize), BIG_INPUT_MS / BIG_INPUT_PIECES)
  agent.modelCall()
  agent.run(id)
  const content = (JSON.parse(input) as { content: string }).content
  agent.result(id, { status: 'done', output: wrote(agent, 'data/fixture.json', bytesOf(content)) })
  agent.say(agent.t('The fixture is in `data/fixture.json`.\n\n', '测试数据已写入 `data/fixture.json`。\n\n'))
  agent.answer()
  agent.modelCall()
  return agent.done()
}

/**
 * `long_tool:S`: a command that runs S seconds before its result. `run_command` declares it
 * writes: a command can change anything, whatever this one happens to do.
 */
function longToolSteps(agent: Agent, seconds: number): Step[] {
  agent.reason('The test suite will tell; running it takes a while.', '跑一遍测试就知道了，需要一些时间。')
  const id = agent.call('run_command', 'write', JSON.stringify({ command: 'npm test', timeout_s: Math.ceil(seconds) + 60 }))
  agent.modelCall()
  agent.run(id)
  agent.result(id, {
    status: 'done',
    output: `Test Files  12 passed (12)\n     Tests  148 passed (148)\n  Duration  ${seconds} s`,
    delayMs: seconds * 1000,
  })
  agent.say(agent.t(`The tests pass (148 of 148, ${seconds} s).\n\n`, `测试全部通过（148/148，用时 ${seconds} 秒）。\n\n`))
  agent.answer()
  agent.modelCall()
  return agent.done()
}

/** `write_then_fail`: `write_file` runs unasked, then the model fails `model_unavailable`; tier 1 may not retry. */
function writeThenFailSteps(agent: Agent): Step[] {
  const note = noteFor(agent)
  agent.reason(`I will save the answer to ${note.path} first.`, `我先把回答保存到 ${note.path}。`)
  const id = agent.call('write_file', 'write', note.input)
  agent.modelCall()
  agent.run(id)
  agent.result(id, { status: 'done', output: wrote(agent, note.path, note.bytes) })
  const overloaded = { failure: failureForCode('model_unavailable') }
  return [...agent.steps, ...providerSteps(() => overloaded, [], true)]
}

/** `silent:S`: the `ok` run, with S seconds of silence after the answer's first delta. */
function silentSteps(agent: Agent, seconds: number): Step[] {
  const steps = okSteps(agent)
  const first = steps.findIndex((s) => s.kind === 'delta')
  const after = steps[first + 1]
  if (after) steps[first + 1] = { ...after, delayMs: seconds * 1000, quiet: true }
  return steps
}

function agentSteps(outcome: AgentOutcome, agent: Agent, decisions: ScriptInput['decisions']): Step[] {
  switch (outcome.kind) {
    case 'tools':
      return toolsSteps(agent, outcome.count)
    case 'approval':
      return approvalSteps(agent, outcome.ask, decisions)
    case 'tool_fail':
      return toolFailSteps(agent)
    case 'big_output':
      return bigOutputSteps(agent)
    case 'big_input':
      return bigInputSteps(agent)
    case 'long_tool':
      return longToolSteps(agent, outcome.seconds)
    case 'write_then_fail':
      return writeThenFailSteps(agent)
    case 'silent':
      return silentSteps(agent, outcome.seconds)
  }
}

export function scriptFor({ outcome, prompt, runId, decisions, deltaDelayMs, slowDelayMs }: ScriptInput): Script {
  const reply = (long = false): Step[] =>
    deltasOf(replyFor(prompt, long), long ? SLOW_DELTA_SIZE : DELTA_SIZE).map((text) => ({ kind: 'delta', text }))
  const agent = new Agent(prompt, runId)
  switch (outcome?.kind) {
    case 'plain':
      return { steps: [...reply(), { kind: 'done' }], delayMs: deltaDelayMs }
    case 'slow':
      return { steps: [...reply(true), { kind: 'done' }], delayMs: slowDelayMs }
    case 'hang':
      // Starts and then waits for ever; only a cancel ends it (the stream sends pings meanwhile).
      return { steps: [], delayMs: deltaDelayMs }
    case 'drop': {
      const deltas = reply()
      return { steps: [...deltas, { kind: 'done' }], delayMs: deltaDelayMs, dropAfter: Math.max(0, Math.floor(deltas.length / 2) - 1) }
    }
    case 'lag': {
      const deltas = reply()
      return { steps: [...deltas, { kind: 'done' }], delayMs: deltaDelayMs, lagAfter: Math.min(1, deltas.length - 1) }
    }
    case 'fail_before_delta':
      return { steps: [{ kind: 'fail', failure: outcome.failure }], delayMs: deltaDelayMs }
    case 'fail_after_deltas':
      return { steps: [...reply().slice(0, DELTAS_BEFORE_ERROR), { kind: 'fail', failure: outcome.failure }], delayMs: deltaDelayMs }
    case 'raw':
      return { steps: [...reply().slice(0, DELTAS_BEFORE_ERROR), { kind: 'raw', text: outcome.text }], delayMs: deltaDelayMs }
    case 'provider':
      return { steps: providerSteps(outcome.attempt, reply()), delayMs: deltaDelayMs }
    case 'tools':
    case 'approval':
    case 'tool_fail':
    case 'big_output':
    case 'big_input':
    case 'long_tool':
    case 'write_then_fail':
    case 'silent':
      return { steps: agentSteps(outcome, agent, decisions), delayMs: deltaDelayMs }
    default:
      // `ok`, and a send fault that somehow reached a run: both show their steps and complete.
      return { steps: okSteps(agent), delayMs: deltaDelayMs }
  }
}
