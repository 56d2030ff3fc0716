import type { Meta, StoryObj } from '@storybook/react-vite'
import { fn } from 'storybook/test'
import { OperatorMessage } from '../src/chat/operator-message'

const meta = {
  title: 'Chat/Operator message',
  component: OperatorMessage,
  args: {
    content: 'Summarise the deploy log from last night and list anything that failed.',
    delivery: 'sent',
    onSendAgain: fn(),
    onEdit: fn(),
  },
} satisfies Meta<typeof OperatorMessage>

export default meta
type Story = StoryObj<typeof meta>

/** On the wire: the text stays visible, dimmed, until the daemon accepts it. */
export const Sending: Story = { args: { delivery: 'sending' } }

/** Accepted by the daemon. */
export const Sent: Story = { args: { delivery: 'sent' } }

/** The send failed and was not accepted: the text is safe, with Send again and Edit. */
export const NotSent: Story = { args: { delivery: 'not_sent' } }
