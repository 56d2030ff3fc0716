import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, fn } from 'storybook/test'
import { AgentReply, type ShownReply } from '../src/chat/reply/agent-reply'
import type { ToolPart } from '../src/wire/types'
import { agentReply, FIXED_NOW, localizedMessage, SAMPLE, wordsFor } from './fixtures'

/**
 * A streaming reply whose stream lost its connection. The run may well go on in the daemon, so
 * the reply stays "Writing…" with Stop, and says beside it that it reconnects (`lost`), or that
 * the daemon cannot be reached and it keeps trying (`unreachable`); never stopped or failed.
 */
const meta = {
  title: 'Chat/Connection',
  component: AgentReply,
  args: { message: agentReply({ content: SAMPLE.partial.en, status: 'streaming' }), onStop: fn(), onRegenerate: fn(), now: FIXED_NOW },
  render: (args, { globals }) => <AgentReply {...args} message={{ ...args.message, ...localizedMessage(args.message, globals.locale) }} />,
} satisfies Meta<typeof AgentReply>

export default meta
type Story = StoryObj<typeof meta>

const withConnection = (connection: ShownReply['connection'], overrides: Partial<ShownReply> = {}): ShownReply => ({
  ...agentReply({ content: SAMPLE.partial.en, status: 'streaming' }),
  connection,
  ...overrides,
})

/** Checks what every story here shows: the line in the locale's words, still writing, Stop offered, no end. */
async function expectStillWriting(canvasElement: HTMLElement, locale: unknown, state: 'lost' | 'unreachable') {
  const t = wordsFor(locale)
  const line = canvasElement.querySelector('[data-connection]')
  await expect(line).toHaveAttribute('data-connection', state)
  await expect(line).toHaveTextContent(t(state === 'lost' ? 'connection.lost' : 'connection.unreachable'))
  const article = canvasElement.querySelector('article')
  await expect(article).toHaveAttribute('data-status', 'streaming')
  await expect(article?.querySelector('.badge')).toHaveTextContent(t('status.streaming'))
  await expect(canvasElement).not.toHaveTextContent(t('status.cancelled'))
  await expect(canvasElement).not.toHaveTextContent(t('status.failed'))
  await expect(canvasElement.querySelector('.button--stop')).toHaveTextContent(t('actions.stop'))
  await expect(canvasElement.querySelector('.button--stop')).toBeEnabled()
}

/** The connection was found dead (45 s without a byte) or dropped: reattaching. */
export const Lost: Story = {
  args: { message: withConnection('lost') },
  play: async ({ canvasElement, globals }) => expectStillWriting(canvasElement, globals.locale, 'lost'),
}

/** Reattaching has failed for a while: the daemon cannot be reached, and the client keeps trying. */
export const Unreachable: Story = {
  args: { message: withConnection('unreachable') },
  play: async ({ canvasElement, globals }) => expectStillWriting(canvasElement, globals.locale, 'unreachable'),
}

const longTool: ToolPart = {
  type: 'tool',
  tool_call_id: 'tc_tests',
  name: 'run_command',
  effect: 'read',
  input: '{"command":"npm test","timeout_s":180}',
  status: 'running',
  started_at: FIXED_NOW - 95_000,
}

/** A tool running long (its elapsed time shows) while the connection is lost: nothing says it stopped. */
export const LostWhileAToolRuns: Story = {
  args: { message: withConnection('lost', { content: '', parts: [longTool] }) },
  play: async ({ canvasElement, globals }) => {
    await expectStillWriting(canvasElement, globals.locale, 'lost')
    await expect(canvasElement).toHaveTextContent('run_command')
    await expect(canvasElement.querySelector('.step__duration')).not.toBeNull()
  },
}
