import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, fn, userEvent, waitFor } from 'storybook/test'
import { AgentReply } from '../src/chat/reply/agent-reply'
import type { Message, Part, ToolPart, Usage } from '../src/wire/types'
import { INPUT_TAIL_CHARS } from '../src/thread/steps'
import { agentReply, FIXED_NOW } from './fixtures'

/**
 * An agent reply's steps (daemon-wire.md "Agent steps"): reasoning, tool calls in every status,
 * usage, and replies that mix them with text. Sample reasoning and answers follow the toolbar
 * language; tool names, inputs and outputs are the daemon's data, shown as they came. Times are
 * fixed (`now`), so a running tool reads the same in every run.
 */

/** Sample words in each interface language, by their English. */
const WORDS: Record<string, string> = {
  'The operator asks about failing health checks. Search the docs for the timeout first, then read the check itself.':
    '操作员问的是健康检查失败的问题。先在文档里查超时设置，再读一下检查本身的代码。',
  'The docs say 30 s. Now the code, to see whether it honours that.': '文档写的是 30 秒。接下来看代码，确认它是否遵守这个值。',
  'The runbook gives the health check 30 s.': '运行手册给健康检查的时间是 30 秒。',
  ' The check itself aborts at the same limit, so a cold cache after a migration is enough to fail it. Raise the timeout to 45 s or warm the cache first.':
    '检查代码本身也在同样的时限中止，所以迁移之后缓存未预热就足以让它失败。请把超时提高到 45 秒，或先预热缓存。',
  ' The check itself aborts at the same limit, so a cold cache': '检查代码本身也在同样的时限中止，所以迁移之后',
  'I will write the new timeout into the config.': '我会把新的超时写进配置文件。',
  'The search tool timed out, so I answer from what I know: raise the health check timeout to 45 s.':
    '搜索工具超时了，所以我根据已知信息回答：把健康检查超时提高到 45 秒。',
}

const word = (text: string, locale: unknown) => (locale === 'zh' ? (WORDS[text] ?? text) : text)

/** The message with its sample reasoning and text in the story's locale; `content` stays the text parts joined. */
function localizedSteps(message: Message, locale: unknown): Message {
  if (!message.parts) return message
  const parts = message.parts.map((part): Part => (part.type === 'tool' ? part : { ...part, text: word(part.text, locale) }))
  return { ...message, parts, content: parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') }
}

const THINK = 'The operator asks about failing health checks. Search the docs for the timeout first, then read the check itself.'
const THINK_AGAIN = 'The docs say 30 s. Now the code, to see whether it honours that.'
const ANSWER_1 = 'The runbook gives the health check 30 s.'
const ANSWER_2 = ' The check itself aborts at the same limit, so a cold cache after a migration is enough to fail it. Raise the timeout to 45 s or warm the cache first.'

const SEARCH_OUTPUT = JSON.stringify({
  hits: [
    { title: 'Health checks', path: 'docs/health.md', line: 42, excerpt: 'timeout: 30s' },
    { title: 'Deploy runbook', path: 'docs/deploy-runbook.md', line: 7, excerpt: 'wait for the health check' },
  ],
  total: 2,
})

const CODE_OUTPUT = [
  'export async function healthCheck(url: string, timeoutMs = 30_000): Promise<boolean> {',
  '  const controller = new AbortController()',
  '  const timer = setTimeout(() => controller.abort(), timeoutMs)',
  '  try {',
  '    const response = await fetch(url, { signal: controller.signal })',
  '    return response.ok',
  '  } finally {',
  '    clearTimeout(timer)',
  '  }',
  '}',
].join('\n')

/** A 200 KiB input being written: a runbook rewritten whole, as JSON with its text escaped. */
const BIG_INPUT = (() => {
  const lines: string[] = []
  for (let step = 1; lines.join('\\n').length < 200 * 1024; step++) lines.push(`## Step ${step}`, `Run the health check on node ${step} and wait up to 45 s before moving on.`)
  return `{"path":"docs/deploy-runbook.md","content":"${lines.join('\\n')}`
})()

/** A log of about 1 MiB, of which the first 16 KiB came with the reply. */
const LOG_LINE = '2026-11-30T02:06:14Z api-2 health check GET /healthz 200 in 31 ms\n'
const CUT_OUTPUT = LOG_LINE.repeat(Math.floor((16 * 1024) / LOG_LINE.length))

function tool(overrides: Partial<ToolPart> = {}): ToolPart {
  return {
    type: 'tool',
    tool_call_id: 'tc_search',
    name: 'search_docs',
    effect: 'read',
    input: '{"query":"health check timeout","limit":5}',
    status: 'done',
    output: SEARCH_OUTPUT,
    output_bytes: SEARCH_OUTPUT.length,
    output_truncated: false,
    started_at: FIXED_NOW - 40_000,
    ended_at: FIXED_NOW - 39_200,
    ...overrides,
  }
}

const readFile = (overrides: Partial<ToolPart> = {}) =>
  tool({
    tool_call_id: 'tc_read',
    name: 'read_file',
    input: '{"path":"src/health/check.ts"}',
    output: CODE_OUTPUT,
    output_bytes: CODE_OUTPUT.length,
    started_at: FIXED_NOW - 35_000,
    ended_at: FIXED_NOW - 34_700,
    ...overrides,
  })

/** A tool that has not ended: no end time, no output yet. */
const open = { ended_at: undefined, output: undefined, output_bytes: undefined } as const
const running = { ...open, status: 'running' } as const

/** A reply made of `parts`, its `content` their text joined as the daemon keeps it. */
function withSteps(parts: Part[], overrides: Partial<Message> = {}): Message {
  return agentReply({ content: parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''), parts, ...overrides })
}

const USAGE: Usage = { input_tokens: 18_342, output_tokens: 1_207, cost_usd: 0.0734 }

const meta = {
  title: 'Chat/Agent steps',
  component: AgentReply,
  args: { message: withSteps([{ type: 'text', text: ANSWER_1 }]), now: FIXED_NOW, onStop: fn(), onRegenerate: fn() },
  render: (args, { globals }) => (
    <AgentReply {...args} message={localizedSteps(args.message, globals.locale)} earlier={args.earlier?.map((m) => localizedSteps(m, globals.locale))} />
  ),
} satisfies Meta<typeof AgentReply>

export default meta
type Story = StoryObj<typeof meta>

/** The toggle of the tool called `name`. */
const toolToggle = (canvas: { getByRole: (role: 'button', options: { name: RegExp }) => HTMLElement }, name: string) => canvas.getByRole('button', { name: new RegExp(`^${name}`) })

/** Waits until every tool input and output in the story that has a language is highlighted. */
async function highlighted(canvasElement: HTMLElement): Promise<void> {
  await waitFor(
    () => {
      for (const pre of canvasElement.querySelectorAll('.step-code:not([data-language="text"])')) expect(pre).toHaveAttribute('data-highlighted', 'true')
    },
    { timeout: 10_000 },
  )
}

/** Reasoning as it is written: open, muted, apart from the answer still to come. */
export const ReasoningStreaming: Story = {
  args: { message: withSteps([{ type: 'reasoning', text: THINK }], { id: 'msg_steps_think', status: 'streaming' }) },
}

/** Reasoning between two tools, once the next step started: one line with how long it took (from the tools' times). */
export const ReasoningFolded: Story = {
  args: { message: withSteps([tool(), { type: 'reasoning', text: THINK_AGAIN }, readFile(), { type: 'text', text: ANSWER_1 }]) },
  play: async ({ canvasElement }) => {
    const toggle = canvasElement.querySelector('.step--reasoning .step__toggle')
    await expect(toggle).toHaveAttribute('aria-expanded', 'false')
    await expect(toggle?.textContent).toMatch(/4/)
  },
}

/** Reasoning opened by the operator after the answer: its text, muted, apart from the answer. */
export const ReasoningOpened: Story = {
  args: { message: withSteps([{ type: 'reasoning', text: THINK }, { type: 'text', text: ANSWER_1 }], { id: 'msg_steps_opened' }) },
  play: async ({ canvasElement }) => {
    await userEvent.click(canvasElement.querySelector('.step--reasoning .step__toggle')!)
    await expect(canvasElement.querySelector('.step__reasoning')).not.toBeNull()
  },
}

/** A 200 KiB input being written: its tail only, plain, with how much there is. */
export const ToolInputStreamingBig: Story = {
  name: 'Tool input streaming (200 KiB)',
  args: {
    message: withSteps([tool({ tool_call_id: 'tc_write', name: 'write_file', effect: 'write', input: BIG_INPUT, ...open, status: 'input' })], { status: 'streaming' }),
  },
  play: async ({ canvasElement }) => {
    const pre = canvasElement.querySelector('.step-code')
    await expect(pre?.textContent).toHaveLength(INPUT_TAIL_CHARS)
    await expect(pre).toHaveAttribute('data-writing', '')
    await expect(pre).toHaveAttribute('data-highlighted', 'false')
  },
}

/** A `write` tool waiting for the operator's decision; the decision's controls go in the `approval` slot. */
export const ToolAwaitingApproval: Story = {
  args: {
    message: withSteps(
      [{ type: 'text', text: 'I will write the new timeout into the config.' }, tool({ tool_call_id: 'tc_write', name: 'write_file', effect: 'write', input: '{"path":"config/health.yaml","content":"timeout: 45s\\n"}', ...open, status: 'awaiting_approval' })],
      { status: 'streaming' },
    ),
  },
}

/** A tool running for 12 s so far (the clock ticks in the app; fixed here). */
export const ToolRunning: Story = {
  args: { message: withSteps([tool({ ...running, started_at: FIXED_NOW - 12_400 })], { status: 'streaming' }) },
  play: async ({ canvas }) => {
    await expect(toolToggle(canvas, 'search_docs')).toHaveAttribute('aria-expanded', 'true')
    await expect(toolToggle(canvas, 'search_docs').textContent).toMatch(/12/)
  },
}

/** Done, opened: the input as formatted JSON, the JSON output highlighted, each with its Copy. */
export const ToolDoneJsonOutput: Story = {
  name: 'Tool done, JSON output',
  args: { message: withSteps([tool(), { type: 'text', text: ANSWER_1 }]) },
  play: async ({ canvas, canvasElement }) => {
    await expect(toolToggle(canvas, 'search_docs')).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(toolToggle(canvas, 'search_docs'))
    await highlighted(canvasElement)
    await expect(canvasElement.querySelectorAll('.step-code[data-language="json"]')).toHaveLength(2)
  },
}

/** Done, opened: a file read as code, highlighted by its extension. */
export const ToolDoneCodeOutput: Story = {
  name: 'Tool done, code output',
  args: { message: withSteps([readFile(), { type: 'text', text: ANSWER_2.trim() }]) },
  play: async ({ canvas, canvasElement }) => {
    await userEvent.click(toolToggle(canvas, 'read_file'))
    await highlighted(canvasElement)
    await expect(canvasElement.querySelector('.step-code[data-language="typescript"] span[style]')).not.toBeNull()
  },
}

/** An output cut at 16 KiB of about 1 MiB: it says so, and offers the rest. */
export const ToolTruncatedOutput: Story = {
  name: 'Tool done, output cut',
  args: {
    message: withSteps([tool({ tool_call_id: 'tc_log', name: 'read_log', input: '{"node":"api-2"}', output: CUT_OUTPUT, output_bytes: 1_048_576, output_truncated: true })]),
    onLoadOutput: fn(() => Promise.resolve(LOG_LINE.repeat(200))),
  },
  play: async ({ canvas }) => {
    await userEvent.click(toolToggle(canvas, 'read_log'))
    await expect(canvas.getAllByRole('button').some((b) => b.classList.contains('step__load'))).toBe(true)
  },
}

/** A tool that ran past its time: open, its error worded from `tool_timeout`; the agent answered anyway. */
export const ToolFailed: Story = {
  args: {
    message: withSteps([
      tool({ status: 'failed', output: undefined, output_bytes: 0, ended_at: FIXED_NOW - 10_000, error: { code: 'tool_timeout', message: 'tool exceeded 30s' } }),
      { type: 'text', text: 'The search tool timed out, so I answer from what I know: raise the health check timeout to 45 s.' },
    ]),
  },
  play: async ({ canvas, canvasElement }) => {
    await expect(toolToggle(canvas, 'search_docs')).toHaveAttribute('aria-expanded', 'true')
    await expect(canvasElement.querySelector('.step__failure')?.textContent).toContain('tool_timeout')
  },
}

/** The operator denied a `write` tool; the agent carried on without it. */
export const ToolDenied: Story = {
  args: {
    message: withSteps([
      tool({ tool_call_id: 'tc_write', name: 'write_file', effect: 'write', input: '{"path":"config/health.yaml","content":"timeout: 45s\\n"}', status: 'denied', output: undefined, output_bytes: 0 }),
      { type: 'text', text: ANSWER_1 },
    ]),
  },
}

/** The run was stopped while a tool waited: the tool ends cancelled, then the reply. */
export const ToolCancelled: Story = {
  args: {
    message: withSteps([tool({ tool_call_id: 'tc_write', name: 'write_file', effect: 'write', status: 'cancelled', output: undefined, output_bytes: 0 })], { status: 'cancelled', content: '' }),
  },
}

/** Tools called in parallel: two running at once, one already done. */
export const ParallelTools: Story = {
  args: {
    message: withSteps(
      [
        { type: 'reasoning', text: THINK },
        tool({ ...running, started_at: FIXED_NOW - 3_000 }),
        readFile({ ...running, started_at: FIXED_NOW - 2_900 }),
        tool({ tool_call_id: 'tc_list', name: 'list_files', input: '{"dir":"src/health"}', output: 'check.ts\nindex.ts\n', output_bytes: 18, started_at: FIXED_NOW - 2_800, ended_at: FIXED_NOW - 2_750 }),
      ],
      { status: 'streaming' },
    ),
  },
}

/** What the run spent, in the reply's footer: tokens in and out and the cost. */
export const UsageWithCost: Story = {
  args: { message: withSteps([{ type: 'text', text: ANSWER_1 }], { usage: USAGE }) },
}

/** A daemon that does not know the cost: tokens only. */
export const UsageWithoutCost: Story = {
  args: { message: withSteps([{ type: 'text', text: ANSWER_1 }], { usage: { input_tokens: 1, output_tokens: 2_048 } }) },
}

/** A whole reply: reasoning, a search, reasoning, a file read, and the answer written around them, with usage. */
export const MixedReply: Story = {
  name: 'Reply mixing text and tools',
  args: {
    message: withSteps(
      [{ type: 'reasoning', text: THINK }, tool(), { type: 'text', text: ANSWER_1 }, { type: 'reasoning', text: THINK_AGAIN }, readFile(), { type: 'text', text: ANSWER_2 }],
      { id: 'msg_steps_mixed', usage: USAGE },
    ),
  },
}

/** The same reply still being written: only its last text part has the caret. */
export const MixedReplyStreaming: Story = {
  name: 'Reply mixing text and tools, streaming',
  args: {
    message: withSteps([{ type: 'reasoning', text: THINK }, tool(), { type: 'text', text: ANSWER_1 }, readFile(), { type: 'text', text: ' The check itself aborts at the same limit, so a cold cache' }], {
      id: 'msg_steps_streaming',
      status: 'streaming',
      usage: { input_tokens: 9_120, output_tokens: 402 },
    }),
  },
}

/** An earlier version keeps its steps, folded, even its failed tool. */
export const EarlierVersionWithSteps: Story = {
  args: {
    message: withSteps([tool(), { type: 'text', text: ANSWER_1 }]),
    earlier: [
      withSteps(
        [
          tool({ status: 'failed', output: undefined, error: { code: 'tool_failed', message: 'index unavailable' } }),
          { type: 'text', text: 'The search tool timed out, so I answer from what I know: raise the health check timeout to 45 s.' },
        ],
        { id: 'msg_ag0', run_id: 'run_0', superseded: true },
      ),
    ],
  },
  play: async ({ canvasElement }) => {
    await userEvent.click(canvasElement.querySelector('.message__actions .button--link')!)
    const earlier = canvasElement.querySelector('.earlier__item')!
    for (const toggle of earlier.querySelectorAll('.step__toggle')) await expect(toggle).toHaveAttribute('aria-expanded', 'false')
  },
}
