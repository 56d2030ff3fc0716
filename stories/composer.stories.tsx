import type { Meta, StoryObj } from '@storybook/react-vite'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { expect, fn } from 'storybook/test'
import { Composer, type ComposerProps } from '../src/chat/composer'
import { describeFailure, failureFromError } from '../src/i18n/describe-failure'
import { MAX_CONTENT_LENGTH } from '../src/wire/types'
import { localized, SAMPLE } from './fixtures'

/**
 * The composer is controlled; this keeps its text in local state so typing works in Storybook.
 * The refusal line is worded here, as ChatView words it (`composer.refused` around the failure),
 * because the composer takes it as a finished sentence.
 */
function ComposerStory({ refusal, ...props }: ComposerProps & { refusal?: unknown }) {
  const { t, i18n } = useTranslation()
  const [value, setValue] = useState(() => localized(props.value, i18n.language))
  const error = refusal === undefined ? props.error : t('composer.refused', { reason: describeFailure(t, failureFromError(refusal)).text })
  return (
    <Composer
      {...props}
      value={value}
      error={error}
      onChange={(next) => {
        setValue(next)
        props.onChange(next)
      }}
    />
  )
}

const meta = {
  title: 'Chat/Composer',
  component: Composer,
  args: { value: '', onChange: fn(), onSubmit: fn() },
  // Keyed by the text so editing `value` in Controls starts the box afresh.
  render: (args, { parameters }) => <ComposerStory key={args.value} {...args} refusal={parameters.refusal} />,
} satisfies Meta<typeof Composer>

export default meta
type Story = StoryObj<typeof meta>

/** Nothing typed: Send is disabled. */
export const Empty: Story = {}

/** Text ready to send. */
export const WithText: Story = { args: { value: SAMPLE.question.en } }

/** On the wire: the text stays in the box, read-only, until the daemon accepts it. */
export const Sending: Story = { args: { value: SAMPLE.question.en, sending: true } }

/** The daemon refused the send: the text stays, and the line under the box says why. */
export const Refused: Story = {
  args: { value: SAMPLE.question.en },
  parameters: { refusal: { status: 503, code: 'daemon_unavailable', message: 'The daemon is shutting down.' } },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole('alert')).toHaveTextContent(/\S/)
  },
}

const overBy = 120
const longText = 'The deploy log follows, line by line, so the agent can read all of it. '.repeat(Math.ceil((MAX_CONTENT_LENGTH + overBy) / 70)).slice(0, MAX_CONTENT_LENGTH + overBy)

/** Over the 32,000-character limit: how far over is said, and Send is disabled. */
export const OverLimit: Story = {
  name: 'Over the 32,000 limit',
  args: { value: longText },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole('textbox')).toHaveAttribute('aria-invalid', 'true')
    await expect(canvas.getByRole('textbox')).toHaveAccessibleDescription(new RegExp(String(overBy)))
  },
}
