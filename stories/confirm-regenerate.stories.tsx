import type { Meta, StoryObj } from '@storybook/react-vite'
import { fn } from 'storybook/test'
import { ConfirmRegenerate } from '../src/chat/confirm-regenerate'

const meta = {
  title: 'Chat/Confirm regenerate',
  component: ConfirmRegenerate,
  args: { count: 3, onConfirm: fn(), onCancel: fn() },
} satisfies Meta<typeof ConfirmRegenerate>

export default meta
type Story = StoryObj<typeof meta>

/** Regenerating here would replace three later messages, operator messages among them. */
export const ReplacesThree: Story = { name: 'Replaces 3 messages' }
