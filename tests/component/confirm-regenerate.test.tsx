/**
 * The regenerate question as a modal dialog: focus starts on the safe choice, Tab and Shift+Tab
 * stay inside, Escape is heard inside the dialog only, and focus goes back to the opener, or to a
 * fallback when the opener is gone or disabled (always after Replace, which retires it).
 *
 * jsdom 29 has HTMLDialogElement without showModal()/close(), so these run the aria-modal path;
 * the showModal path runs in Chromium (tests/e2e/a11y.spec.ts).
 */
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { StrictMode, useRef, useState } from 'react'
import { I18nextProvider } from 'react-i18next'
import { describe, expect, it, vi } from 'vitest'
import { ConfirmRegenerate } from '../../src/chat/dialogs/confirm-regenerate'
import { createI18n, resources } from '../../src/i18n/bundled'
import { type Language } from '../../src/i18n/resources'

type HostProps = {
  lng?: Language
  /** Pass a fallback (the reply) to the dialog. */
  withFallback?: boolean
  /** What Replace does to the opener, as a regenerate does to its Regenerate button. */
  afterConfirm?: 'disable' | 'remove' | 'nothing'
  /** Called when the question is answered with Keep (or Escape). */
  onCancelSpy?: () => void
}

/** A reply with its Regenerate button, a message box below, and the question when asked. */
function Host({ lng = 'en', withFallback = false, afterConfirm = 'disable', onCancelSpy }: HostProps) {
  const [asking, setAsking] = useState(false)
  const [opener, setOpener] = useState<'enabled' | 'disabled' | 'removed'>('enabled')
  const replyRef = useRef<HTMLElement>(null)
  return (
    <I18nextProvider i18n={createI18n({ lng })}>
      <article ref={replyRef} tabIndex={-1} aria-label="reply">
        {opener === 'removed' ? null : (
          <button type="button" disabled={opener === 'disabled'} onClick={() => setAsking(true)}>
            Regenerate
          </button>
        )}
        <button type="button" onClick={() => setOpener('removed')}>
          Remove opener
        </button>
      </article>
      {asking ? (
        <ConfirmRegenerate
          count={3}
          onConfirm={() => {
            setAsking(false)
            // A mutation's pending state reaches the button a render later, as TanStack Query's does.
            if (afterConfirm === 'disable') setTimeout(() => setOpener('disabled'), 0)
            if (afterConfirm === 'remove') setOpener('removed')
          }}
          onCancel={() => {
            onCancelSpy?.()
            setAsking(false)
          }}
          fallbackFocus={withFallback ? () => replyRef.current : undefined}
        />
      ) : null}
      <textarea id="composer-input" aria-label="Message" />
    </I18nextProvider>
  )
}

const en = resources.en.translation
const zh = resources.zh.translation

function renderHost(props: HostProps = {}) {
  const user = userEvent.setup()
  render(
    <StrictMode>
      <Host {...props} />
    </StrictMode>,
  )
  return user
}

async function openQuestion(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: 'Regenerate' }))
  return screen.getByRole('alertdialog', { name: en.regenerate.confirmTitle })
}

describe('the regenerate question', () => {
  it('is a modal dialog, named and described, with focus on the safe choice', async () => {
    const user = renderHost()
    const dialog = await openQuestion(user)
    expect(dialog.tagName).toBe('DIALOG')
    expect(dialog).toHaveAttribute('open')
    expect(dialog).toHaveAttribute('aria-modal', 'true')
    expect(dialog).toHaveAccessibleDescription(en.regenerate.confirmBody_other.replace('{{count}}', '3'))
    expect(screen.getByRole('button', { name: en.actions.cancel })).toHaveFocus()
  })

  it('keeps Tab and Shift+Tab inside', async () => {
    const user = renderHost()
    await openQuestion(user)
    const keep = screen.getByRole('button', { name: en.actions.cancel })
    const replace = screen.getByRole('button', { name: en.actions.confirm })
    await user.tab()
    expect(replace).toHaveFocus()
    await user.tab()
    expect(keep).toHaveFocus()
    await user.tab({ shift: true })
    expect(replace).toHaveFocus()
    await user.tab({ shift: true })
    expect(keep).toHaveFocus()
    for (let i = 0; i < 5; i += 1) {
      await user.tab()
      expect([keep, replace]).toContain(document.activeElement)
    }
  })

  it('Escape inside keeps the messages and gives focus back to Regenerate', async () => {
    const onCancel = vi.fn()
    const user = renderHost({ onCancelSpy: onCancel })
    await openQuestion(user)
    await user.keyboard('{Escape}')
    expect(onCancel).toHaveBeenCalledTimes(1)
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(screen.getByRole('button', { name: 'Regenerate' })).toHaveFocus()
  })

  it('Escape in the message box does not close it', async () => {
    const onCancel = vi.fn()
    const user = renderHost({ onCancelSpy: onCancel })
    await openQuestion(user)
    screen.getByRole('textbox', { name: 'Message' }).focus()
    await user.keyboard('{Escape}')
    expect(onCancel).not.toHaveBeenCalled()
    expect(screen.getByRole('alertdialog')).toBeInTheDocument()
  })

  it('Keep gives focus back to Regenerate', async () => {
    const user = renderHost()
    await openQuestion(user)
    await user.click(screen.getByRole('button', { name: en.actions.cancel }))
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(screen.getByRole('button', { name: 'Regenerate' })).toHaveFocus()
  })

  it('Replace sends focus to the fallback it was given, not to the retired Regenerate', async () => {
    const user = renderHost({ withFallback: true })
    await openQuestion(user)
    await user.click(screen.getByRole('button', { name: en.actions.confirm }))
    expect(screen.queryByRole('alertdialog')).toBeNull()
    await waitFor(() => expect(screen.getByRole('button', { name: 'Regenerate' })).toBeDisabled())
    expect(screen.getByRole('article', { name: 'reply' })).toHaveFocus()
  })

  it('Replace without a fallback sends focus to the message box', async () => {
    const user = renderHost({ afterConfirm: 'remove' })
    await openQuestion(user)
    await user.click(screen.getByRole('button', { name: en.actions.confirm }))
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull()
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus()
  })

  it('Keep after the opener was removed sends focus to the fallback', async () => {
    const user = renderHost({ withFallback: true })
    await openQuestion(user)
    // The reply re-rendered without its button while the question was open.
    await user.click(screen.getByRole('button', { name: 'Remove opener' }))
    await user.click(screen.getByRole('button', { name: en.actions.cancel }))
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(screen.getByRole('article', { name: 'reply' })).toHaveFocus()
  })

  it('is worded in Chinese: Replace and Keep the original messages', async () => {
    const user = renderHost({ lng: 'zh' })
    await user.click(screen.getByRole('button', { name: 'Regenerate' }))
    const dialog = screen.getByRole('alertdialog', { name: zh.regenerate.confirmTitle })
    expect(dialog).toHaveTextContent('此后的 3 条消息将被替换')
    expect(screen.getByRole('button', { name: '保留原消息' })).toHaveFocus()
    expect(screen.getByRole('button', { name: '替换' })).toBeInTheDocument()
  })
})
