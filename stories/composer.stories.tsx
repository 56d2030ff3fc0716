import type { Meta, StoryObj } from '@storybook/react-vite'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { expect, fn } from 'storybook/test'
import { Composer, type ComposerProps, type DraftBinding } from '../src/chat/composer/composer'
import { describeFailure, failureFromError } from '../src/i18n/describe-failure'
import { MAX_CONTENT_LENGTH } from '../src/wire/types'
import { localized, SAMPLE } from './fixtures'

type StoryArgs = Omit<ComposerProps, 'draft'> & {
  /** The draft the box opens with. */
  text: string
  /** Each keystroke's text. */
  onType: (text: string) => void
}

/** A draft kept in memory, as the runtime's drafts keep a session's: what the box reads and types into. */
function memoryDraft(initial: string, onType: (text: string) => void): DraftBinding {
  let text = initial
  const listeners = new Set<() => void>()
  return {
    read: () => text,
    type: (next) => {
      text = next
      onType(next)
      for (const listener of [...listeners]) listener()
    },
    subscribe: (listener) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
  }
}

/**
 * The composer edits a draft; this keeps one in memory so typing works in Storybook. The refusal
 * line is worded here, as ChatView words it (`composer.refused` around the failure), because the
 * composer takes it as a finished sentence.
 */
function ComposerStory({ refusal, text, onType, ...props }: StoryArgs & { refusal?: unknown }) {
  const { t, i18n } = useTranslation()
  const [draft] = useState(() => memoryDraft(localized(text, i18n.language), onType))
  const error = refusal === undefined ? props.error : t('composer.refused', { reason: describeFailure(t, failureFromError(refusal)).text })
  return <Composer {...props} draft={draft} error={error} />
}

const meta = {
  title: 'Chat/Composer',
  component: ComposerStory,
  args: { text: '', onType: fn(), onSubmit: fn() },
  // Keyed by the text so editing `text` in Controls starts the box afresh.
  render: (args, { parameters }) => <ComposerStory key={args.text} {...args} refusal={parameters.refusal} />,
} satisfies Meta<typeof ComposerStory>

export default meta
type Story = StoryObj<typeof meta>

/** Nothing typed: Send is disabled. */
export const Empty: Story = {}

/** Text ready to send. */
export const WithText: Story = { args: { text: SAMPLE.question.en } }

/** On the wire: the text stays in the box, read-only, until the daemon accepts it. */
export const Sending: Story = { args: { text: SAMPLE.question.en, sending: true } }

/** The daemon refused the send: the text stays, and the line under the box says why. */
export const Refused: Story = {
  args: { text: SAMPLE.question.en },
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
  args: { text: longText },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole('textbox')).toHaveAttribute('aria-invalid', 'true')
    await expect(canvas.getByRole('textbox')).toHaveAccessibleDescription(new RegExp(String(overBy)))
  },
}
