import type { Meta, StoryObj } from '@storybook/react-vite'
import { useTranslation } from 'react-i18next'
import { expect, fn } from 'storybook/test'
import { OperatorMessage, type OperatorMessageProps } from '../src/chat/transcript/operator-message'
import { describeFailure, failureFromError } from '../src/i18n/describe-failure'
import { localized, SAMPLE } from './fixtures'

/**
 * Sample text follows the toolbar language (text edited in Controls is shown as typed). A refusal
 * of Send again is worded here as ChatView words it, since the message takes a finished sentence.
 */
function OperatorMessageStory({ refusal, ...props }: OperatorMessageProps & { refusal?: unknown }) {
  const { t, i18n } = useTranslation()
  const error = refusal === undefined ? props.error : t('composer.refused', { reason: describeFailure(t, failureFromError(refusal)).text })
  return <OperatorMessage {...props} content={localized(props.content, i18n.language)} error={error} />
}

const meta = {
  title: 'Chat/Operator message',
  component: OperatorMessage,
  args: {
    content: SAMPLE.question.en,
    delivery: 'sent',
    onSendAgain: fn(),
    onEdit: fn(),
  },
  render: (args, { parameters }) => <OperatorMessageStory {...args} refusal={parameters.refusal} />,
} satisfies Meta<typeof OperatorMessage>

export default meta
type Story = StoryObj<typeof meta>

/** On the wire: the text stays visible, dimmed, until the daemon accepts it. */
export const Sending: Story = { args: { delivery: 'sending' } }

/** Accepted by the daemon. */
export const Sent: Story = { args: { delivery: 'sent' } }

/** The send failed and was not accepted: the text is safe, with Send again and Edit. */
export const NotSent: Story = { args: { delivery: 'not_sent' } }

/** Send again was refused too: the reason is said under the text, which is still safe. */
export const NotSentRefused: Story = {
  name: 'Not sent, Send again refused',
  args: { delivery: 'not_sent' },
  parameters: { refusal: { status: 503, code: 'daemon_unavailable', message: 'The daemon is shutting down.' } },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole('alert')).toHaveTextContent(/\S/)
  },
}
