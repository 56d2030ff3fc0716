/**
 * A tool waiting for approval, in the chat view against the mock daemon (`approval`: a
 * `write_file` call the daemon asks about): the approval says what will run and why; Approve runs
 * it and the reply completes; Deny ends it denied and the reply completes; a double click or Enter
 * held down sends one decision; Stop while it waits cancels the tool and the run; the assertive
 * region says it once; focus moves to it only while the operator is not typing, and the shortcut
 * takes it there from the composer; in en and zh.
 */
import { act, fireEvent, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Language } from '../../src/i18n/resources'
import { requestApprovalFocus } from '../../src/attention/approval-focus'
import { KEY_GRACE_MS } from '../../src/thread/approvals'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null, advanceTimers: (ms) => vi.advanceTimersByTime(ms) })

const WORDS = {
  en: {
    message: 'Message',
    agent: 'Agent',
    group: 'Approval of write_file',
    question: 'Run write_file with the input above? It changes things outside the daemon.',
    reason: /^Why the daemon asks: write_file writes notes\/.+ in the workspace\.$/,
    approve: 'Approve',
    deny: 'Deny',
    approved: 'Approved — waiting for the agent',
    stop: 'Stop',
    alert: 'write_file is waiting for your approval.',
    write: 'Save a note about retries',
  },
  zh: {
    message: '消息',
    agent: '智能体',
    group: 'write_file 的批准',
    question: '要用上面的输入运行 write_file 吗？它会改动守护进程之外的内容。',
    reason: /^守护进程请求批准的原因：write_file 会在工作区写入 notes\/.+。$/,
    approve: '批准',
    deny: '拒绝',
    approved: '已批准，等待智能体继续',
    stop: '停止',
    alert: 'write_file 正在等待你的批准。',
    write: '把重试的要点记下来',
  },
} as const satisfies Record<Language, Record<string, string | RegExp>>

const decisions = () => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/decision'))
const cancels = () => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/cancel'))

function lastAgentReply(lng: Language): HTMLElement {
  return screen.getAllByRole('article', { name: WORDS[lng].agent }).at(-1)!
}
const lastStatus = (lng: Language) => screen.queryAllByRole('article', { name: WORDS[lng].agent }).at(-1)?.getAttribute('data-status')
const approval = (lng: Language) => screen.queryByRole('group', { name: WORDS[lng].group })
const toolStep = (lng: Language) => lastAgentReply(lng).querySelector<HTMLElement>('.step--tool[data-effect="write"]')!
const box = (lng: Language) => screen.getByRole('textbox', { name: WORDS[lng].message })

/** The session's assertive live region. */
function alertRegion(): HTMLElement {
  const regions = [...document.querySelectorAll<HTMLElement>('[aria-live="assertive"]')]
  expect(regions).toHaveLength(1)
  return regions[0]!
}

/**
 * Sends a message whose reply asks for approval, and waits until it does. With `typing`, the
 * operator has started the next message meanwhile (focus in the composer, text in it).
 */
async function askApproval(lng: Language = 'en', { typing = '', leaveComposer = false }: { typing?: string; leaveComposer?: boolean } = {}) {
  daemon.plan(['approval'])
  const sid = createSession(daemon)
  renderChat(sid, { lng })
  await advance(10)
  const region = alertRegion()
  const said: string[] = []
  const observer = new MutationObserver(() => said.push(region.textContent ?? ''))
  observer.observe(region, { childList: true, characterData: true, subtree: true })
  await user().type(box(lng), `${WORDS[lng].write}{Enter}`)
  if (typing) {
    // Once the send has emptied the box, before the agent gets to the tool.
    await advanceUntil(() => (box(lng) as HTMLTextAreaElement).value === '', 'the send')
    expect(approval(lng)).toBeNull()
    await user().type(box(lng), typing)
  }
  if (leaveComposer) {
    // The operator has left the box (focus on nothing) before the agent gets to the tool.
    await advanceUntil(() => (box(lng) as HTMLTextAreaElement).value === '', 'the send')
    expect(approval(lng)).toBeNull()
    act(() => box(lng).blur())
  }
  await advanceUntil(() => approval(lng) !== null, 'the approval')
  await advance(50)
  return { sid, said, stopListening: () => observer.disconnect() }
}

describe.each(['en', 'zh'] as const)('a tool waiting for approval (%s)', (lng) => {
  const w = WORDS[lng]

  it('says what will run and why the daemon asks, under its input; Approve runs it and the reply completes', async () => {
    const { said, stopListening } = await askApproval(lng)
    const step = toolStep(lng)
    expect(step).toHaveAttribute('data-status', 'awaiting_approval')
    // The step is open: the input, formatted, before the question.
    expect(within(step).getByRole('button', { name: /^write_file/ })).toHaveAttribute('aria-expanded', 'true')
    const input = step.querySelector('.step__body .step-code')!
    expect(input.textContent).toMatch(/^\{\n {2}"path": "notes\//)
    expect(input.compareDocumentPosition(approval(lng)!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    const group = within(approval(lng)!)
    expect(group.getByText(w.question)).toBeInTheDocument()
    expect(group.getByText(w.reason)).toBeInTheDocument()
    // Said once, assertively.
    expect(said.filter((text) => text === w.alert)).toHaveLength(1)

    await user().click(group.getByRole('button', { name: w.approve }))
    await advanceUntil(() => lastStatus(lng) === 'complete', 'the reply to complete')
    expect(toolStep(lng)).toHaveAttribute('data-status', 'done')
    expect(decisions()).toHaveLength(1)
    expect(daemon.state().messages.find((m) => m.role === 'agent')?.parts?.find((p) => p.type === 'tool')).toMatchObject({ status: 'done' })
    expect(said.filter((text) => text === w.alert)).toHaveLength(1)
    stopListening()
  })

  it('Deny ends the tool denied and the agent answers without it', async () => {
    await askApproval(lng)
    await user().click(within(approval(lng)!).getByRole('button', { name: w.deny }))
    await advanceUntil(() => lastStatus(lng) === 'complete', 'the reply to complete')
    expect(toolStep(lng)).toHaveAttribute('data-status', 'denied')
    expect(approval(lng)).toBeNull()
    expect(decisions()).toHaveLength(1)
  })

  it('a double click sends one decision; the approval says it was taken until the agent goes on', async () => {
    await askApproval(lng)
    const approve = within(approval(lng)!).getByRole('button', { name: w.approve })
    // Both clicks land before any answer can come back.
    act(() => {
      fireEvent.click(approve)
      fireEvent.click(approve)
    })
    await advanceUntil(() => lastStatus(lng) === 'complete', 'the reply to complete')
    expect(decisions()).toHaveLength(1)
    expect(toolStep(lng)).toHaveAttribute('data-status', 'done')
  })

  it('Stop while it waits cancels the tool, then the run', async () => {
    await askApproval(lng)
    await user().click(within(lastAgentReply(lng)).getByRole('button', { name: w.stop }))
    await advanceUntil(() => lastStatus(lng) === 'cancelled', 'the reply to be cancelled')
    expect(cancels()).toHaveLength(1)
    expect(decisions()).toHaveLength(0)
    expect(toolStep(lng)).toHaveAttribute('data-status', 'cancelled')
    expect(approval(lng)).toBeNull()
    expect(daemon.state().runs[0]?.status).toBe('cancelled')
  })
})

describe('the approval and the keyboard', () => {
  const w = WORDS.en

  it('leaves the focus in the empty composer: what the operator types next is a message, not a decision', async () => {
    await askApproval('en')
    expect(box('en')).toHaveFocus()
    // A space and Enter are what approved a write when the approval took the focus from the box.
    await user().keyboard('thanks, carry on')
    expect(box('en')).toHaveValue('thanks, carry on')
    await advance(100)
    expect(decisions()).toHaveLength(0)
    expect(approval('en')).not.toBeNull()
    expect(within(approval('en')!).getByRole('button', { name: w.approve })).not.toHaveFocus()
  })

  it('takes focus when it shows up with the focus on nothing; a key pressed as it arrives, or Enter held down, decides nothing', async () => {
    await askApproval('en', { leaveComposer: true })
    const approve = within(approval('en')!).getByRole('button', { name: w.approve })
    expect(approve).toHaveFocus()
    // A key pressed just as focus arrived was meant for the page, not a decision.
    await user().keyboard('{Enter}')
    await user().keyboard(' ')
    await advance(100)
    expect(decisions()).toHaveLength(0)
    expect(approval('en')).not.toBeNull()

    await advance(KEY_GRACE_MS)
    // Enter held down when the focus moved: its repeats land on Approve, and are
    // held back (a prevented keydown clicks nothing).
    expect(fireEvent.keyDown(approve, { key: 'Enter', repeat: true })).toBe(false)
    expect(fireEvent.keyDown(approve, { key: ' ', repeat: true })).toBe(false)
    expect(fireEvent.keyUp(approve, { key: ' ' })).toBe(false)
    await advance(100)
    expect(decisions()).toHaveLength(0)
    // A deliberate Enter approves.
    await user().keyboard('{Enter}')
    await advanceUntil(() => lastStatus('en') === 'complete', 'the reply to complete')
    expect(decisions()).toHaveLength(1)
  })

  it('leaves the focus in the composer while the operator types; Ctrl+Shift+Y goes to it, and Approve then takes a deliberate Enter', async () => {
    await askApproval('en', { typing: 'and then' })
    expect(box('en')).toHaveFocus()
    expect(box('en')).toHaveValue('and then')
    // A plain letter typed meanwhile goes to the composer and decides nothing.
    await user().keyboard('y')
    expect(box('en')).toHaveValue('and theny')
    await user().keyboard('{Control>}{Shift>}y{/Shift}{/Control}')
    const approve = within(approval('en')!).getByRole('button', { name: w.approve })
    expect(approve).toHaveFocus()
    expect(box('en')).toHaveValue('and theny')
    expect(decisions()).toHaveLength(0)
    await user().keyboard('{Enter}')
    // The buttons went away with the focus on them: it stays in the approval, on what it says now.
    expect(within(approval('en')!).getByText(/^(Approving…|Approved — waiting for the agent)$/)).toHaveFocus()
    await advance(0)
    expect(decisions()).toHaveLength(1)
    await advanceUntil(() => lastStatus('en') === 'complete', 'the reply to complete')
  })

  it('a clicked notification of the tool brings focus to Approve, even while the operator types', async () => {
    const { sid } = await askApproval('en', { typing: 'and then' })
    expect(box('en')).toHaveFocus()
    const reply = daemon.state().messages.find((m) => m.role === 'agent')!
    const tool = reply.parts!.find((p) => p.type === 'tool')!
    act(() => requestApprovalFocus({ sessionId: sid, runId: reply.run_id!, toolCallId: tool.type === 'tool' ? tool.tool_call_id : '' }))
    const approve = within(approval('en')!).getByRole('button', { name: w.approve })
    expect(approve).toHaveFocus()
    // The operator asked to come here: Enter acts at once.
    await user().keyboard('{Enter}')
    await advance(0)
    expect(decisions()).toHaveLength(1)
    await advanceUntil(() => lastStatus('en') === 'complete', 'the reply to complete')
  })

  it('the shortcut does nothing with no tool waiting, and leaves the key alone', async () => {
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await user().click(box('en'))
    const event = new KeyboardEvent('keydown', { key: 'Y', ctrlKey: true, shiftKey: true, bubbles: true, cancelable: true })
    act(() => void box('en').dispatchEvent(event))
    expect(event.defaultPrevented).toBe(false)
  })
})
