import { forwardRef, useCallback, useEffect, useId, useLayoutEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent, type FormEvent, type ReactNode } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { MAX_CONTENT_LENGTH } from '../../wire/types'
import { COMPOSER_INPUT_ID } from '../dom-ids'

/** The text the box shows and edits: a session's draft. */
export type DraftBinding = {
  read(): string
  /** A keystroke changed the text. */
  type(value: string): void
  /** Calls `listener` when the text may have changed (typed here, sent, written by another tab). */
  subscribe(listener: () => void): () => void
}

/**
 * What the box's controls depend on, as one number: -1 blank, 0 sendable, n > 0 over the limit by
 * n characters. Most keystrokes leave it as it was, and then nothing renders.
 */
function shapeOf(text: string): number {
  const over = text.length - MAX_CONTENT_LENGTH
  if (over > 0) return over
  return text.trim() === '' ? -1 : 0
}

export type ComposerProps = {
  draft: DraftBinding
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
 *
 * The textarea holds the text itself (uncontrolled): a keystroke goes to the draft and renders
 * nothing unless it changes what the controls show (blank, sendable, too long). Typing while a
 * reply streams then costs the page the key's own paint. A draft changed from elsewhere (cleared
 * by a send, a quote added, another tab) is put into the box as it changes.
 */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(
  { draft, onSubmit, sending = false, disabled = false, error, autoFocus = false },
  ref,
) {
  const { t } = useTranslation()
  const [composing, setComposing] = useState(false)
  const hintId = useId()
  const readShape = () => shapeOf(draft.read())
  const shape = useSyncExternalStore(draft.subscribe, readShape, readShape)
  const over = Math.max(0, shape)
  const canSend = shape === 0 && !sending && !disabled

  const box = useRef<HTMLTextAreaElement | null>(null)
  const setBox = useCallback(
    (element: HTMLTextAreaElement | null) => {
      box.current = element
      if (typeof ref === 'function') ref(element)
      else if (ref) ref.current = element
    },
    [ref],
  )
  // The draft changed other than by this box's keys: the box shows it (the caret goes to the end,
  // as it would for a controlled value). The box's own keys find the text already there.
  useLayoutEffect(() => {
    const show = () => {
      const element = box.current
      const text = draft.read()
      if (element && element.value !== text) element.value = text
    }
    show()
    return draft.subscribe(show)
  }, [draft])

  // Set by a submit until the parent has rendered its answer (`sending`, or the text changing):
  // two Enter presses (or a double click) before React renders again must not send twice.
  const submitted = useRef(false)
  useEffect(() => {
    submitted.current = false
  }, [shape, sending])

  const submit = () => {
    if (!canSend || submitted.current) return
    submitted.current = true
    onSubmit(draft.read())
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
      <label className="visually-hidden" htmlFor={COMPOSER_INPUT_ID}>
        {t('composer.label')}
      </label>
      <textarea
        id={COMPOSER_INPUT_ID}
        ref={setBox}
        className="composer__input"
        rows={3}
        placeholder={t('composer.placeholder')}
        readOnly={sending}
        autoFocus={autoFocus}
        disabled={disabled}
        aria-invalid={over > 0 || undefined}
        aria-describedby={error || over > 0 ? hintId : undefined}
        onChange={(event) => {
          submitted.current = false
          draft.type(event.target.value)
        }}
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
