import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, fn } from 'storybook/test'
import { AgentReply } from '../src/chat/reply/agent-reply'
import { ApprovalControls } from '../src/chat/reply/approval'
import type { LiveToolPart } from '../src/live/parts'
import type { DecisionView } from '../src/thread/decisions'
import type { Message, ToolDecision } from '../src/wire/types'
import { agentReply, FIXED_NOW } from './fixtures'

/**
 * A `write` tool waiting for the operator's decision (daemon-wire.md "Agent steps", Approval), in
 * each state of its decision: waiting with the daemon's reason, the decision on the wire, approved
 * or denied and waiting for the agent to go on, refused because the other decision was already
 * taken (it stands), refused for good, and not delivered (sent again with the same decision).
 * Sample text follows the toolbar language; the tool's name and input are the daemon's data.
 */

const SAMPLE = {
  intro: { en: 'I will save a short note first, then answer.', zh: '我先把要点写进笔记，再回答。' },
  reason: { en: 'write_file writes notes/retries.md in the workspace.', zh: 'write_file 会在工作区写入 notes/retries.md。' },
} as const

const pick = (text: { en: string; zh: string }, locale: unknown) => (locale === 'zh' ? text.zh : text.en)

const INPUT = JSON.stringify({ path: 'notes/retries.md', content: '# Retries\n\nTier 1 waits 1 s, then 2 s; tier 2 starts at 2 s and doubles up to 300 s.\n' })

function waitingTool(reason: string | undefined): LiveToolPart {
  return {
    type: 'tool',
    tool_call_id: 'tc_write',
    name: 'write_file',
    effect: 'write',
    input: INPUT,
    status: 'awaiting_approval',
    started_at: FIXED_NOW - 4_000,
    ...(reason === undefined ? {} : { reason }),
  }
}

function reply(locale: unknown): Message {
  const intro = pick(SAMPLE.intro, locale)
  return agentReply({ id: 'msg_approval', status: 'streaming', content: intro, parts: [{ type: 'text', text: intro }, waitingTool(undefined)] })
}

type ApprovalStoryProps = {
  view: DecisionView
  /** The daemon gave a reason for asking. */
  withReason: boolean
  onDecide: (decision: ToolDecision) => void
  locale?: unknown
}

/** The reply with its waiting tool, the approval in its slot as the chat view gives it. */
function ApprovalStory({ view, withReason, onDecide, locale }: ApprovalStoryProps) {
  const reason = withReason ? pick(SAMPLE.reason, locale) : undefined
  return (
    <AgentReply
      message={reply(locale)}
      now={FIXED_NOW}
      onStop={fn()}
      approval={(tool) => <ApprovalControls tool={{ ...tool, ...(reason === undefined ? {} : { reason }) }} view={view} onDecide={onDecide} buttonId="approve-story" />}
    />
  )
}

const meta = {
  title: 'Chat/Tool approval',
  component: ApprovalStory,
  args: { view: { kind: 'open' }, withReason: true, onDecide: fn() },
  render: (args, { globals }) => <ApprovalStory {...args} locale={globals.locale} />,
} satisfies Meta<typeof ApprovalStory>

export default meta
type Story = StoryObj<typeof meta>

/** Waiting: what will run (the input above, opened), why the daemon asks, Approve and Deny. */
export const WaitingWithReason: Story = {
  play: async ({ canvas, args }) => {
    const group = canvas.getByRole('group')
    await expect(group.querySelector('.approval__reason')).not.toBeNull()
    await expect(canvas.getByRole('button', { name: /^write_file/ })).toHaveAttribute('aria-expanded', 'true')
    const buttons = group.querySelectorAll('button')
    await expect(buttons).toHaveLength(2)
    ;(buttons[0] as HTMLButtonElement).click()
    await expect(args.onDecide).toHaveBeenCalledWith('approve')
  },
}

/** Waiting, and the daemon said nothing about why. */
export const WaitingWithoutReason: Story = {
  args: { withReason: false },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole('group').querySelector('.approval__reason')).toBeNull()
  },
}

/** Approve pressed: the decision is on the wire (here or in another tab); no button to press again. */
export const Deciding: Story = {
  args: { view: { kind: 'deciding', decision: 'approve' } },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole('group').querySelectorAll('button')).toHaveLength(0)
  },
}

/** Approved: the daemon has it; the agent has yet to run the tool. */
export const ApprovedWaitingForTheAgent: Story = {
  args: { view: { kind: 'taken', decision: 'approve' } },
}

/** Denied: the daemon has it; the agent will go on without the tool. */
export const DeniedWaitingForTheAgent: Story = {
  args: { view: { kind: 'taken', decision: 'deny' } },
}

/** Deny came too late: the tool was already approved (another tab, another operator), and that stands. */
export const ConflictRefused: Story = {
  args: { view: { kind: 'conflict', decision: 'deny', standing: 'approve' } },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole('group').querySelector('.approval__note')).not.toBeNull()
  },
}

/** Approve came too late the other way: the tool was already denied, and that stands. */
export const ConflictRefusedDenied: Story = {
  args: { view: { kind: 'conflict', decision: 'approve', standing: 'deny' } },
}

/** Refused for good: the run ended (Stop, another tab) before the decision reached the daemon. */
export const ErrorRefused: Story = {
  args: { view: { kind: 'refused', decision: 'approve', error: { code: 'tool_not_awaiting', message: 'The tool call is not waiting for a decision.' } } },
}

/** Not delivered (the network failed twice): the same decision can be sent again, and only that one. */
export const ErrorNotSent: Story = {
  args: { view: { kind: 'failed', decision: 'deny', error: { code: 'transport_failed', message: 'Failed to fetch' } } },
  play: async ({ canvas, args }) => {
    const buttons = canvas.getByRole('group').querySelectorAll('button')
    await expect(buttons).toHaveLength(1)
    ;(buttons[0] as HTMLButtonElement).click()
    await expect(args.onDecide).toHaveBeenCalledWith('deny')
  },
}

/** The daemon unavailable: worded from its code, and sent again on request. */
export const ErrorDaemonUnavailable: Story = {
  args: { view: { kind: 'failed', decision: 'approve', error: { code: 'daemon_unavailable', message: 'The daemon is restarting.' } } },
}
