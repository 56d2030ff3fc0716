import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, fn, userEvent } from 'storybook/test'
import { AgentReply } from '../src/chat/reply/agent-reply'
import { failureForCode } from '../mocks/faults'
import { agentReply, localizedMessage, SAMPLE } from './fixtures'

const rateLimited = failureForCode('model_rate_limited')

const meta = {
  title: 'Chat/Agent reply',
  component: AgentReply,
  args: { message: agentReply(), onStop: fn(), onRegenerate: fn() },
  // Sample text follows the toolbar language; text edited in Controls is shown as typed.
  render: (args, { globals }) => (
    <AgentReply {...args} message={localizedMessage(args.message, globals.locale)} earlier={args.earlier?.map((m) => localizedMessage(m, globals.locale))} />
  ),
} satisfies Meta<typeof AgentReply>

export default meta
type Story = StoryObj<typeof meta>

/** Accepted, waiting for the daemon to start the run; no queue position known yet. */
export const Queued: Story = { args: { message: agentReply({ content: '', status: 'queued' }) } }

/** Waiting behind other runs in this session, as the stream's `queued` event said. */
export const QueuedWithPosition: Story = { args: { message: agentReply({ content: '', status: 'queued' }), position: 2 } }

/** Text arriving: the caret shows it is still being written, and Stop is offered. */
export const Streaming: Story = { args: { message: agentReply({ content: SAMPLE.partial.en, status: 'streaming' }) } }

/** A finished reply, with Regenerate. */
export const Complete: Story = {}

/** Failed with a coded error: worded from the word table, with the code in small print. */
export const Failed: Story = {
  args: {
    message: agentReply({ content: '', status: 'failed', error: { code: rateLimited.code, message: rateLimited.message }, retry: rateLimited.retry }),
  },
}

/** Stopped by the operator: never shown as a failure. */
export const Cancelled: Story = { args: { message: agentReply({ content: SAMPLE.partial.en, status: 'cancelled' }) } }

const earlier = [
  agentReply({ id: 'msg_ag0a', run_id: 'run_0a', superseded: true, content: '', status: 'failed', error: { code: rateLimited.code, message: rateLimited.message } }),
  agentReply({ id: 'msg_ag0b', run_id: 'run_0b', superseded: true, content: SAMPLE.earlierFirst.en }),
]

/** Regenerated twice: the two replies it replaced are kept, folded away. */
export const WithEarlierVersions: Story = { args: { earlier } }

/** The same, with the earlier versions opened. */
export const EarlierVersionsOpened: Story = {
  args: { earlier },
  play: async ({ canvas }) => {
    // The only toggle in the reply; found by its state, not its words, so it works in both languages.
    await userEvent.click(canvas.getByRole('button', { expanded: false }))
    await expect(canvas.getByRole('button', { expanded: true })).toBeInTheDocument()
    await expect(canvas.getAllByRole('listitem')).toHaveLength(2)
  },
}

/** A long reply with line breaks, a list and an unbroken identifier: it wraps, never overflows. */
export const LongReply: Story = { args: { message: agentReply({ content: SAMPLE.long.en }) } }

const markup = 'Here is the tag you asked about: <img src=x onerror=alert(1)> and <script>alert("x")</script> <b>not bold</b>'

/** Daemon text that looks like HTML is shown as text: no element is created from it. */
export const HtmlLikeText: Story = {
  args: { message: agentReply({ content: markup }) },
  play: async ({ canvas, canvasElement }) => {
    await expect(canvas.getByText(markup)).toBeInTheDocument()
    await expect(canvasElement.querySelector('img, script, b')).toBeNull()
  },
}
