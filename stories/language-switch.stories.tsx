import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect } from 'storybook/test'
import { LanguageSwitch } from '../src/app/language-switch'
import { HTML_LANG } from '../src/i18n/setup'
import { toLanguage } from '../src/i18n/resources'

const meta = {
  title: 'App/Language switch',
  component: LanguageSwitch,
} satisfies Meta<typeof LanguageSwitch>

export default meta
type Story = StoryObj<typeof meta>

/** The toolbar's language is the pressed one; pressing the other switches this story's words. */
export const Default: Story = {
  play: async ({ canvas, globals }) => {
    const expected = HTML_LANG[toLanguage(String(globals.locale)) ?? 'en']
    await expect(canvas.getByRole('button', { pressed: true })).toHaveAttribute('lang', expected)
  },
}
