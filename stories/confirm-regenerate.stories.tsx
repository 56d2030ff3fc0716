import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, fn, userEvent } from 'storybook/test'
import { ConfirmRegenerate } from '../src/chat/dialogs/confirm-regenerate'

const meta = {
  title: 'Chat/Confirm regenerate',
  component: ConfirmRegenerate,
  args: { count: 3, onConfirm: fn(), onCancel: fn() },
} satisfies Meta<typeof ConfirmRegenerate>

export default meta
type Story = StoryObj<typeof meta>

/**
 * Regenerating here would replace three later messages, operator messages among them. A modal
 * dialog with focus on the safe choice; Escape inside it keeps the messages.
 */
export const ReplacesThree: Story = {
  name: 'Replaces 3 messages',
  play: async ({ canvas, args }) => {
    const dialog = canvas.getByRole('alertdialog')
    await expect(dialog).toHaveAttribute('aria-modal', 'true')
    const buttons = canvas.getAllByRole('button')
    // The second button is the safe one (Keep them / 保留原消息), and it has focus.
    await expect(buttons[1]).toHaveFocus()
    await userEvent.keyboard('{Escape}')
    await expect(args.onCancel).toHaveBeenCalledTimes(1)
    await expect(args.onConfirm).not.toHaveBeenCalled()
  },
}
