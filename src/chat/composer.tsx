import { forwardRef, useEffect, useId, useRef, useState, type KeyboardEvent, type FormEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { MAX_CONTENT_LENGTH } from '../wire/types'

export type ComposerProps = {
  value: string
  onChange: (value: string) => void
  /** Called with the text to send; the composer is locked until it settles. */
  onSubmit: (content: string) => void
  /** True while a send is on the wire: the text stays in the box, read-only, until the daemon accepts it. */
  sending?: boolean
  disabled?: boolean
  /** A worded refusal of the last send, shown under the box. */
  error?: ReactNode
  /** Take the focus when shown (the first screen, a session just created). */
  autoFocus?: boolean
}

/**
 * The message box. Enter sends, Shift+Enter adds a line, Enter while an IME is composing does
 * nothing, and empty or over-long text cannot be sent.
 */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(
  { value, onChange, onSubmit, sending = false, disabled = false, error, autoFocus = false },
  ref,
) {
  const { t } = useTranslation()
  const [composing, setComposing] = useState(false)
  const hintId = useId()
  const over = value.length - MAX_CONTENT_LENGTH
  const blank = value.trim() === ''
  const canSend = !blank && over <= 0 && !sending && !disabled

  // Set by a submit until the parent has rendered its answer (`sending`, or a new value): two
  // Enter presses (or a double click) before React renders again must not send twice.
  const submitted = useRef(false)
  useEffect(() => {
    submitted.current = false
  }, [value, sending])

  const submit = () => {
    if (!canSend || submitted.current) return
    submitted.current = true
    onSubmit(value)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey) return
    // Enter that confirms an IME candidate is not a send (keyCode 229 covers browsers that end composition first).
    if (composing || event.nativeEvent.isComposing || event.keyCode === 229) return
    event.preventDefault()
    submit()
  }
  const onFormSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    // Send is disabled while the text is on the wire: focus waits in the (read-only) box, not on <body>.
    const box = event.currentTarget.querySelector('textarea')
    if (canSend && !submitted.current && box && document.activeElement !== box) box.focus()
    submit()
  }

  return (
    <form className="composer" onSubmit={onFormSubmit} aria-busy={sending}>
      <label className="visually-hidden" htmlFor="composer-input">
        {t('composer.label')}
      </label>
      <textarea
        id="composer-input"
        ref={ref}
        className="composer__input"
        value={value}
        rows={3}
        placeholder={t('composer.placeholder')}
        readOnly={sending}
        autoFocus={autoFocus}
        disabled={disabled}
        aria-invalid={over > 0 || undefined}
        aria-describedby={error || over > 0 ? hintId : undefined}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        onCompositionStart={() => setComposing(true)}
        onCompositionEnd={() => setComposing(false)}
      />
      <div className="composer__footer">
        <p id={hintId} className="composer__hint" role={error ? 'alert' : undefined}>
          {over > 0 ? t('composer.tooLong', { count: over, max: MAX_CONTENT_LENGTH }) : error}
        </p>
        <button type="submit" className="button button--primary" disabled={!canSend}>
          {sending ? t('composer.sending') : t('composer.send')}
        </button>
      </div>
    </form>
  )
})
