import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { AgentReply } from '../../src/chat/reply/agent-reply'
import type { Message, Part, ToolPart, Usage } from '../../src/wire/types'
import { INPUT_HEAD_CHARS, INPUT_TAIL_CHARS } from '../../src/thread/steps'
import { renderWithProviders } from './harness'
import { renderInLanguage } from './markdown-helpers'

// Every render of a tool's input or output, counted, so a test can tell which steps a delta re-rendered; and the last one's props.
const codeRenders = vi.hoisted(() => ({ count: 0, last: undefined as { highlight?: boolean | undefined } | undefined }))
vi.mock('../../src/chat/reply/steps/step-code', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/chat/reply/steps/step-code')>()
  return {
    StepCode: (props: Parameters<typeof original.StepCode>[0]) => {
      codeRenders.count += 1
      codeRenders.last = props
      return original.StepCode(props)
    },
  }
})

beforeAll(async () => {
  // The Markdown renderer is a lazy chunk: loaded first, so text parts render through it.
  await import('../../src/markdown/reply-markdown')
})

/**
 * Waits for every tool input and output being highlighted to finish, so no highlighting lands
 * after its test (outside act) or in the next one.
 */
async function settleHighlighting(): Promise<void> {
  await waitFor(
    () => {
      for (const pre of document.querySelectorAll('.step-code:not([data-language="text"])')) expect(pre).toHaveAttribute('data-highlighted', 'true')
    },
    { timeout: 10_000 },
  )
}

afterEach(async () => {
  await settleHighlighting()
  Object.defineProperty(window.navigator, 'clipboard', { configurable: true, value: undefined })
  vi.useRealTimers()
})

const T0 = new Date(2026, 10, 30, 14, 0, 0).getTime()

const tool = (overrides: Partial<ToolPart> = {}): ToolPart => ({
  type: 'tool',
  tool_call_id: 'tc_1',
  name: 'search_docs',
  effect: 'read',
  input: '{"query":"deploy timeout","limit":5}',
  status: 'done',
  output: 'Three pages mention the timeout.',
  output_bytes: 31,
  output_truncated: false,
  started_at: T0,
  ended_at: T0 + 1_200,
  ...overrides,
})

const text = (value: string): Part => ({ type: 'text', text: value })
const reasoning = (value: string): Part => ({ type: 'reasoning', text: value })

function reply(parts: Part[], overrides: Partial<Message> = {}): Message {
  return {
    id: 'msg_ag1',
    session_id: 'ses_1',
    role: 'agent',
    content: parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
    created_at: T0 - 5_000,
    superseded: false,
    run_id: 'run_1',
    status: 'complete',
    parts,
    ...overrides,
  }
}

/** The disclosure button of each step, in page order. */
const toggles = (container: HTMLElement) => [...container.querySelectorAll<HTMLButtonElement>('.step__toggle')]
const toolToggle = (name = 'search_docs') => screen.getByRole('button', { name: new RegExp(`^${name}`) })

function setClipboard(writeText: (value: string) => Promise<void>) {
  Object.defineProperty(window.navigator, 'clipboard', { configurable: true, value: { writeText } })
}

describe('a reply with steps', () => {
  it('shows its parts in the order the agent took them, each by its own kind', () => {
    const { container } = renderInLanguage(
      <AgentReply message={reply([reasoning('Look it up first.'), tool(), text('The timeout is 30 s.'), tool({ tool_call_id: 'tc_2', name: 'read_file' }), text(' Raise it.')])} />,
    )
    const steps = [...container.querySelector('.steps')!.children].map((el) =>
      el.classList.contains('step--reasoning') ? 'reasoning' : el.classList.contains('step--tool') ? `tool:${el.querySelector('.step__name')!.textContent}` : `text:${el.textContent?.trim()}`,
    )
    expect(steps).toEqual(['reasoning', 'tool:search_docs', 'text:The timeout is 30 s.', 'tool:read_file', 'text:Raise it.'])
  })

  it('reads exactly as before when the reply has no parts', () => {
    const { container } = renderInLanguage(<AgentReply message={{ ...reply([]), parts: undefined, content: 'Just the answer.' }} />)
    expect(container.querySelector('.steps')).toBeNull()
    expect(container.querySelector('.message__body')).toHaveTextContent('Just the answer.')
  })

  it('gives only the last text part of a streaming reply the caret, and none while a tool is the last step', () => {
    const { container, rerender } = renderInLanguage(<AgentReply message={reply([text('First.'), tool(), text('Second')], { status: 'streaming' })} />)
    const carets = container.querySelectorAll('.caret')
    expect(carets).toHaveLength(1)
    expect(carets[0]!.closest('.message__body')).toHaveTextContent('Second')
    expect(container.querySelectorAll('[aria-busy="true"]')).toHaveLength(1)

    rerender(<AgentReply message={reply([text('First.'), tool({ status: 'running', ended_at: undefined })], { status: 'streaming' })} now={T0 + 3_000} />)
    expect(container.querySelector('.caret')).toBeNull()
  })

  it('copies the answer (the text parts joined), not the steps', async () => {
    const writeText = vi.fn(() => Promise.resolve())
    setClipboard(writeText)
    renderInLanguage(<AgentReply message={reply([reasoning('Hidden thoughts.'), tool(), text('The answer'), text(' continues.')])} />)
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy' }))
    })
    expect(writeText).toHaveBeenCalledWith('The answer continues.')
  })

  it('re-renders only the step that grew: a delta to the text leaves the tools alone', () => {
    const parts: Part[] = [tool({ status: 'failed', input: 'plain input', error: { code: 'tool_failed', message: 'x' } }), text('Partial')]
    const { rerender } = renderInLanguage(<AgentReply message={reply(parts, { status: 'streaming' })} />)
    // The failed tool is open: its input and output render.
    const before = codeRenders.count
    expect(before).toBeGreaterThan(0)
    // The live store keeps unchanged parts the same objects; only the text part is new.
    for (const grown of ['Partial answer', 'Partial answer, longer', 'Partial answer, longer still']) {
      rerender(<AgentReply message={reply([parts[0]!, text(grown)], { status: 'streaming' })} />)
    }
    expect(codeRenders.count).toBe(before)
    // A new tool object does re-render it, which is what makes the count above mean something.
    rerender(<AgentReply message={reply([{ ...parts[0]! }, text('Partial answer, longer still')], { status: 'streaming' })} />)
    expect(codeRenders.count).toBeGreaterThan(before)
  })
})

describe('reasoning', () => {
  it('is open while it is written, then folds to "Thought for N s" once the answer starts', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 })
    const thinking = reasoning('Check the logs, then the config.')
    const { container, rerender } = renderInLanguage(<AgentReply message={reply([thinking], { id: 'msg_think', status: 'streaming' })} />)
    const [toggle] = toggles(container)
    expect(toggle).toHaveAttribute('aria-expanded', 'true')
    expect(toggle).toHaveTextContent('Thinking…')
    expect(screen.getByText('Check the logs, then the config.')).toBeInTheDocument()

    act(() => vi.advanceTimersByTime(4_000))
    rerender(<AgentReply message={reply([thinking, text('The answer')], { id: 'msg_think', status: 'streaming' })} />)
    expect(toggles(container)[0]).toHaveAttribute('aria-expanded', 'false')
    expect(toggles(container)[0]).toHaveTextContent('Thought for 4 s')
    expect(screen.queryByText('Check the logs, then the config.')).toBeNull()

    // Opened on request, it shows the reasoning again, apart from the answer.
    fireEvent.click(toggles(container)[0]!)
    expect(toggles(container)[0]).toHaveAttribute('aria-expanded', 'true')
    expect(container.querySelector('.step__reasoning')).toHaveTextContent('Check the logs, then the config.')
    expect(container.querySelector('.step__reasoning')!.closest('.message__body')).toBeNull()
  })

  it('takes its time from the tools around it when the page did not watch it, in Chinese too', () => {
    const parts = [tool({ ended_at: T0 + 1_000 }), reasoning('Now the config.'), tool({ tool_call_id: 'tc_2', started_at: T0 + 5_000, ended_at: T0 + 6_000 })]
    renderInLanguage(<AgentReply message={reply(parts)} />, 'zh')
    expect(screen.getByRole('button', { name: '思考了 4 秒' })).toHaveAttribute('aria-expanded', 'false')
  })

  it('takes the first reasoning’s time from what the stream timed, which a reload keeps', () => {
    const message = { ...reply([reasoning('First.'), text('Answer.'), reasoning('Second.'), text(' More.')]), reasoningStartedAt: T0, reasoningEndedAt: T0 + 6_600 }
    const { container } = renderInLanguage(<AgentReply message={message} />)
    expect(toggles(container).map((toggle) => toggle.textContent)).toEqual(['Thought for 7 s', 'Reasoning'])
  })

  it('says "Reasoning" without a time when nothing tells it, and shows markup in it as text', () => {
    const { container } = renderInLanguage(<AgentReply message={reply([reasoning('<img src=x onerror=alert(1)> **not bold**'), text('Answer.')])} />)
    fireEvent.click(screen.getByRole('button', { name: 'Reasoning' }))
    expect(container.querySelector('.step__reasoning')).toHaveTextContent('<img src=x onerror=alert(1)> **not bold**')
    expect(container.querySelector('.step__reasoning img, .step__reasoning strong')).toBeNull()
  })
})

describe('a tool call', () => {
  it('is folded once done, with its name, effect, status and duration in the header', () => {
    renderInLanguage(<AgentReply message={reply([tool()])} />)
    const toggle = toolToggle()
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(toggle).toHaveTextContent(/search_docs\s*read-only\s*Done\s*1.2 s/)
    expect(screen.queryByText('Input')).toBeNull()
  })

  it('opens on request with its input as formatted JSON and its output', () => {
    const { container } = renderInLanguage(<AgentReply message={reply([tool()])} />)
    fireEvent.click(toolToggle())
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'true')
    const body = document.getElementById(toolToggle().getAttribute('aria-controls')!)!
    const [input, output] = [...body.querySelectorAll('pre')]
    expect(input!.textContent).toBe('{\n  "query": "deploy timeout",\n  "limit": 5\n}')
    expect(output!.textContent).toBe('Three pages mention the timeout.')
    expect(container.querySelector('.step--tool')).toHaveAttribute('data-status', 'done')
  })

  it('is open while it runs, with the time so far, and folds when it is done', () => {
    const running = tool({ status: 'running', ended_at: undefined, output: undefined, output_bytes: undefined })
    const { rerender } = renderInLanguage(<AgentReply message={reply([running], { status: 'streaming' })} now={T0 + 12_400} />)
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'true')
    expect(toolToggle()).toHaveTextContent(/Running\s*12 s/)
    expect(screen.getByText('Input')).toBeInTheDocument()

    rerender(<AgentReply message={reply([tool({ ended_at: T0 + 13_000 })], { status: 'streaming' })} now={T0 + 13_000} />)
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'false')
    expect(toolToggle()).toHaveTextContent(/Done\s*13 s/)
  })

  it('ticks its elapsed time on the runtime’s clock while it runs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 + 2_500 })
    const running = tool({ status: 'running', ended_at: undefined, output: undefined })
    renderWithProviders(<AgentReply message={reply([running], { status: 'streaming' })} />)
    expect(toolToggle()).toHaveTextContent(/Running\s*2 s/)
    await act(() => vi.advanceTimersByTimeAsync(499))
    expect(toolToggle()).toHaveTextContent(/Running\s*2 s/)
    await act(() => vi.advanceTimersByTimeAsync(1))
    expect(toolToggle()).toHaveTextContent(/Running\s*3 s/)
    await act(() => vi.advanceTimersByTimeAsync(60_000))
    expect(toolToggle()).toHaveTextContent(/Running\s*1 min 3 s/)
  })

  it('highlights a running tool’s input only once it has run a second', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 + 200 })
    const running = tool({ status: 'running', ended_at: undefined, output: undefined })
    renderWithProviders(<AgentReply message={reply([running], { status: 'streaming' })} />)
    const input = () => document.querySelector('.step-code')!
    expect(input()).toHaveAttribute('data-language', 'json')
    expect(input().textContent).toBe('{\n  "query": "deploy timeout",\n  "limit": 5\n}')
    expect(codeRenders.last?.highlight).toBe(false)
    await act(() => vi.advanceTimersByTimeAsync(799))
    expect(codeRenders.last?.highlight).toBe(false)
    expect(input()).toHaveAttribute('data-highlighted', 'false')
    await act(() => vi.advanceTimersByTimeAsync(1))
    expect(codeRenders.last?.highlight).toBe(true)
    vi.useRealTimers()
    await settleHighlighting()
    expect(input().querySelector('span[style]')).not.toBeNull()
    expect(input().textContent).toBe('{\n  "query": "deploy timeout",\n  "limit": 5\n}')
  })

  it('is open when it failed, with its error worded from the code, in English and Chinese', () => {
    const failed = tool({ status: 'failed', output: undefined, error: { code: 'tool_timeout', message: 'deadline exceeded after 30s' } })
    renderInLanguage(<AgentReply message={reply([failed, text('It timed out; I answer without it.')])} />)
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'true')
    expect(toolToggle()).toHaveTextContent('Failed')
    expect(screen.getByText('The tool ran past its time limit and was stopped.')).toBeInTheDocument()
    expect(screen.getByText('Code: tool_timeout')).toBeInTheDocument()
    expect(screen.queryByText(/deadline exceeded/)).toBeNull()
    // The tool failing does not fail the reply.
    expect(document.querySelector('article')).toHaveAttribute('data-status', 'complete')
  })

  it('words the error in Chinese for the Chinese interface', () => {
    const failed = tool({ status: 'failed', output: undefined, error: { code: 'tool_not_found', message: 'no such tool' } })
    renderInLanguage(<AgentReply message={reply([failed])} />, 'zh')
    expect(screen.getByRole('button', { name: /^search_docs/ })).toHaveTextContent('失败')
    expect(screen.getByText('智能体调用了守护进程中不存在的工具。')).toBeInTheDocument()
  })

  it('says it waits for approval, and leaves the decision to the slot it is given', () => {
    const waiting = tool({ effect: 'write', name: 'write_file', status: 'awaiting_approval', ended_at: undefined, output: undefined })
    const message = reply([waiting], { status: 'streaming' })
    const { unmount } = renderInLanguage(<AgentReply message={message} now={T0 + 1_000} />)
    expect(toolToggle('write_file')).toHaveTextContent(/write_file\s*writes\s*Waiting for approval/)
    expect(toolToggle('write_file')).toHaveAttribute('aria-expanded', 'true')
    expect(screen.getByText('The agent waits for your decision before it runs this tool.')).toBeInTheDocument()
    unmount()
    // With a slot, the slot says it (and decides): given the tool and its reply's run.
    const approval = vi.fn((part: ToolPart) => <button type="button">Decide {part.tool_call_id}</button>)
    renderInLanguage(<AgentReply message={message} approval={approval} now={T0 + 1_000} />)
    expect(screen.getByRole('button', { name: 'Decide tc_1' })).toBeInTheDocument()
    expect(approval).toHaveBeenCalledWith(waiting, message.run_id)
  })

  it.each([
    ['denied', 'Denied'],
    ['cancelled', 'Cancelled'],
  ] as const)('is folded and says so when %s', (status, words) => {
    renderInLanguage(<AgentReply message={reply([tool({ status, output: undefined })])} />)
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'false')
    expect(toolToggle()).toHaveTextContent(words)
  })

  it('shows only the tail of a huge input while it is written, as plain text, and says how much there is', () => {
    const input = `{"path":"big.txt","content":"${'abcdefgh'.repeat(25_600)}`
    renderInLanguage(<AgentReply message={reply([tool({ input, status: 'input', ended_at: undefined, output: undefined })], { status: 'streaming' })} />)
    expect(toolToggle()).toHaveTextContent('Writing input…')
    const pre = document.querySelector('.step-code')!
    expect(pre.textContent).toBe(input.slice(-INPUT_TAIL_CHARS))
    expect(pre).toHaveAttribute('data-highlighted', 'false')
    expect(pre).toHaveAttribute('data-writing', '')
    expect(screen.getByText(`Still being written: the last ${INPUT_TAIL_CHARS.toLocaleString('en')} of ${input.length.toLocaleString('en')} characters.`)).toBeInTheDocument()
  })

  it('shows the head of a long input once it is complete, says how much there is, and all of it on request', () => {
    const content = 'const a = 1\n'.repeat(3_000)
    const input = JSON.stringify({ path: 'src/big.ts', content })
    renderInLanguage(<AgentReply message={reply([tool({ name: 'write_file', input, status: 'running', ended_at: undefined, output: undefined })], { status: 'streaming' })} now={T0 + 1_000} />)
    const pres = () => [...document.querySelectorAll('.step-code')]
    const rest = '{\n  "path": "src/big.ts"\n}'
    expect(pres().map((pre) => pre.textContent!.length)).toEqual([rest.length, 16_384])
    expect(pres()[0]).toHaveTextContent(/^\{ "path": "src\/big\.ts" \}$/)
    expect(pres()[1]!.textContent!.startsWith('const a = 1\nconst a = 1\n')).toBe(true)
    expect(screen.getByText(`The first ${(rest.length + 16_384).toLocaleString('en')} of ${(rest.length + content.length).toLocaleString('en')} characters.`)).toBeInTheDocument()
    fireEvent.click(screen.getByRole('button', { name: 'Show the whole input' }))
    expect(pres()[1]!.textContent).toBe(content)
    expect(screen.queryByRole('button', { name: 'Show the whole input' })).toBeNull()
  })

  it.each([
    ['en', 'content', '3 lines'],
    ['zh', 'content', '3 行'],
  ] as const)('shows a text field of a complete input as its lines, under its name (%s)', (lng, name, lines) => {
    const content = '# Notes\n\nShip it on **Friday**.'
    const input = JSON.stringify({ path: 'notes/plan.md', content, mode: 0o644 })
    const { container } = renderInLanguage(<AgentReply message={reply([tool({ name: 'write_file', input, status: 'awaiting_approval', ended_at: undefined, output: undefined })], { status: 'streaming' })} />, lng)
    const [json, text] = [...container.querySelectorAll('.step-code')] as HTMLElement[]
    // The rest stays JSON; the text is shown as the lines it holds, not as one escaped line.
    expect(json!.textContent).toBe('{\n  "path": "notes/plan.md",\n  "mode": 420\n}')
    expect(json!.dataset.language).toBe('json')
    expect(text!.textContent).toBe(content)
    expect(text!.dataset.language).toBe('markdown')
    // A note is prose: its lines wrap; the JSON keeps its lines.
    expect(text).toHaveAttribute('data-prose')
    expect(json).not.toHaveAttribute('data-prose')
    const title = container.querySelector('.step__field-title')!
    expect(title.querySelector('code')).toHaveTextContent(name)
    expect(title).toHaveTextContent(lines)
    // Copy input still copies what the tool was given.
    expect(screen.getByRole('button', { name: lng === 'en' ? 'Copy input' : '复制输入' })).toBeInTheDocument()
  })

  it('highlights JSON output once done, and code by the extension of the file it read', async () => {
    const { container } = renderInLanguage(
      <AgentReply
        message={reply([
          tool({ status: 'failed', error: { code: 'tool_failed', message: '' }, output: '{"hits":[{"id":1}]}' }),
          tool({ tool_call_id: 'tc_2', name: 'read_file', status: 'failed', error: { code: 'tool_failed', message: '' }, input: '{"path":"src/app.ts"}', output: 'export const answer: number = 42' }),
        ])}
      />,
    )
    const outputs = [...container.querySelectorAll('.step--tool')].map((step) => [...step.querySelectorAll('pre')][1]!)
    expect(outputs.map((pre) => pre.dataset.language)).toEqual(['json', 'typescript'])
    expect(outputs[0]!.textContent).toBe('{\n  "hits": [\n    {\n      "id": 1\n    }\n  ]\n}')
    await settleHighlighting()
    for (const pre of outputs) expect(pre).toHaveAttribute('data-highlighted', 'true')
    expect(outputs[1]!.querySelector('span[style]')).not.toBeNull()
    expect(outputs[1]!.textContent).toBe('export const answer: number = 42')
  })

  it('wraps prose it read (Markdown, a text file) and keeps code on its lines', () => {
    const read = (id: string, path: string, output: string) =>
      tool({ tool_call_id: id, name: 'read_file', status: 'failed', error: { code: 'tool_failed', message: '' }, input: JSON.stringify({ path }), output })
    const { container } = renderInLanguage(
      <AgentReply message={reply([read('tc_1', 'README.md', '# Rebound\n\nA long paragraph.'), read('tc_2', 'notes.txt', 'plain words'), read('tc_3', 'src/app.py', 'print(1)')])} />,
    )
    const outputs = [...container.querySelectorAll('.step--tool')].map((step) => [...step.querySelectorAll('pre')][1]!)
    expect(outputs.map((pre) => [pre.dataset.language, pre.hasAttribute('data-prose')])).toEqual([
      ['markdown', true],
      ['text', true],
      ['python', false],
    ])
  })

  it('copies its input and its output, each with its own button', async () => {
    const writeText = vi.fn(() => Promise.resolve())
    setClipboard(writeText)
    renderInLanguage(<AgentReply message={reply([tool()])} />)
    fireEvent.click(toolToggle())
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy input' }))
    })
    expect(writeText).toHaveBeenLastCalledWith('{"query":"deploy timeout","limit":5}')
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy output' }))
    })
    expect(writeText).toHaveBeenLastCalledWith('Three pages mention the timeout.')
  })
})

describe('a cut output', () => {
  const cut = tool({ output: 'line\n'.repeat(3_000), output_bytes: 1024 * 1024, output_truncated: true })

  it('says how much there is in all and loads the rest through the callback it is given', async () => {
    let resolve: (value: string) => void = () => undefined
    const onLoadOutput = vi.fn(() => new Promise<string>((r) => (resolve = r)))
    renderInLanguage(<AgentReply message={reply([cut])} onLoadOutput={onLoadOutput} />)
    fireEvent.click(toolToggle())
    expect(screen.getByText('The first 15 kB of 1 MB.')).toBeInTheDocument()

    fireEvent.click(screen.getByRole('button', { name: 'Load full output' }))
    expect(onLoadOutput).toHaveBeenCalledWith('tc_1', 'run_1')
    expect(screen.getByRole('button', { name: 'Loading full output…' })).toBeDisabled()

    await act(async () => resolve('the whole output'))
    expect(screen.queryByRole('button', { name: /full output/ })).toBeNull()
    expect(screen.getByText('Full output, 1 MB.')).toBeInTheDocument()
    expect(document.querySelectorAll('.step-code')[1]).toHaveTextContent('the whole output')
  })

  it('words a failed load and offers it again', async () => {
    const onLoadOutput = vi.fn(() => Promise.reject({ code: 'tool_call_not_found', message: 'gone' }))
    renderInLanguage(<AgentReply message={reply([cut])} onLoadOutput={onLoadOutput} />, 'zh')
    fireEvent.click(screen.getByRole('button', { name: /^search_docs/ }))
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: '加载完整输出' }))
    })
    const alert = screen.getByRole('alert')
    expect(within(alert).getByText('无法加载完整输出。')).toBeInTheDocument()
    expect(within(alert).getByText('此运行中已找不到该工具调用。')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: '加载完整输出' })).toBeEnabled()
  })

  it('offers no button without a way to load', () => {
    renderInLanguage(<AgentReply message={reply([cut])} />)
    fireEvent.click(toolToggle())
    expect(screen.getByText('The first 15 kB of 1 MB.')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Load full output' })).toBeNull()
  })
})

describe('a reply mounted again (scrolled out of the windowed transcript and back)', () => {
  it('keeps the steps the operator opened open, and folds none they did not', () => {
    const parts = [reasoning('Looked at the logs first.'), tool(), tool({ tool_call_id: 'tc_2', name: 'read_file' }), text('Done.')]
    const first = renderInLanguage(<AgentReply message={reply(parts)} />)
    fireEvent.click(screen.getByRole('button', { name: 'Reasoning' }))
    fireEvent.click(toolToggle())
    first.unmount()

    renderInLanguage(<AgentReply message={reply(parts)} />)
    expect(screen.getByRole('button', { name: 'Reasoning' })).toHaveAttribute('aria-expanded', 'true')
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'true')
    expect(toolToggle('read_file')).toHaveAttribute('aria-expanded', 'false')
  })

  it('keeps them by reply: the same steps in another reply start folded', () => {
    const parts = [tool(), text('Done.')]
    const first = renderInLanguage(<AgentReply message={reply(parts)} />)
    fireEvent.click(toolToggle())
    first.unmount()
    renderInLanguage(<AgentReply message={reply(parts, { id: 'msg_ag2' })} />)
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'false')
  })

  it('keeps a loaded whole output without loading it again, and the whole input shown', async () => {
    const longInput = JSON.stringify({ path: 'x'.repeat(INPUT_HEAD_CHARS + 500) })
    const cut = tool({ input: longInput, output: 'line\n'.repeat(3_000), output_bytes: 1024 * 1024, output_truncated: true })
    const onLoadOutput = vi.fn(() => Promise.resolve('the whole output'))
    const first = renderInLanguage(<AgentReply message={reply([cut])} onLoadOutput={onLoadOutput} />)
    fireEvent.click(toolToggle())
    fireEvent.click(screen.getByRole('button', { name: 'Show the whole input' }))
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Load full output' }))
    })
    expect(screen.getByText('Full output, 1 MB.')).toBeInTheDocument()
    first.unmount()

    renderInLanguage(<AgentReply message={reply([cut])} onLoadOutput={onLoadOutput} />)
    expect(toolToggle()).toHaveAttribute('aria-expanded', 'true')
    expect(screen.getByText('Full output, 1 MB.')).toBeInTheDocument()
    expect(document.querySelectorAll('.step-code')[1]).toHaveTextContent('the whole output')
    expect(screen.queryByRole('button', { name: 'Show the whole input' })).toBeNull()
    expect(onLoadOutput).toHaveBeenCalledTimes(1)
  })
})

describe('usage', () => {
  const usage: Usage = { input_tokens: 12_345, output_tokens: 1, cost_usd: 0.0123 }

  it('shows tokens in and out and the cost in the operator’s number format', () => {
    const { container } = renderInLanguage(<AgentReply message={reply([text('Answer.')], { usage })} />)
    expect(container.querySelector('.usage')).toHaveTextContent(/^12,345 tokens in1 token outcost \$0\.0123$/)
  })

  it('says the same in Chinese', () => {
    const { container } = renderInLanguage(<AgentReply message={reply([text('回答。')], { usage })} />, 'zh')
    expect([...container.querySelectorAll('.usage__item')].map((el) => el.textContent)).toEqual(['输入 12,345 个词元', '输出 1 个词元', '费用 US$0.0123'])
  })

  it('leaves the cost out when the daemon does not know it, and shows nothing without usage', () => {
    const { container, rerender } = renderInLanguage(<AgentReply message={reply([text('Answer.')], { usage: { input_tokens: 10, output_tokens: 20 } })} />)
    expect([...container.querySelectorAll('.usage__item')].map((el) => el.textContent)).toEqual(['10 tokens in', '20 tokens out'])
    rerender(<AgentReply message={reply([text('Answer.')])} />)
    expect(container.querySelector('.usage')).toBeNull()
  })
})

describe('earlier versions', () => {
  it('show their steps too, all folded, even a failed tool', () => {
    const earlier = reply([reasoning('Old thoughts.'), tool({ status: 'failed', error: { code: 'tool_failed', message: '' } }), text('Old answer.')], {
      id: 'msg_old',
      run_id: 'run_old',
      superseded: true,
    })
    const { container } = renderInLanguage(<AgentReply message={reply([text('New answer.')])} earlier={[earlier]} />)
    fireEvent.click(screen.getByRole('button', { name: '1 earlier version' }))
    const item = container.querySelector('.earlier__item')!
    const stepToggles = toggles(item as HTMLElement)
    expect(stepToggles).toHaveLength(2)
    for (const toggle of stepToggles) expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(item).toHaveTextContent('The tool failed.')
    expect(item).toHaveTextContent('Old answer.')
  })
})
