import { useLayoutEffect, useRef, type ReactNode } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { focusIfAble } from '../dialogs/dialog-focus'
import { COMPOSER_INPUT_ID } from '../dom-ids'

type Delivery = 'sending' | 'sent' | 'not_sent'

export type OperatorMessageProps = {
  content: string
  delivery: Delivery
  onSendAgain?: () => void
  onEdit?: () => void
  /** A worded refusal of the last Send again. */
  error?: ReactNode
}

/** An operator message, with where its send stands: sending, sent, or not sent (with its way out). */
export function OperatorMessage({ content, delivery, onSendAgain, onEdit, error }: OperatorMessageProps) {
  const { t } = useTranslation()
  const label = delivery === 'sending' ? t('status.sending') : delivery === 'sent' ? t('status.sent') : t('status.notSent')
  const articleRef = useRef<HTMLElement>(null)
  // A parked send that leaves the transcript (sent after all, or taken back) takes focus with it:
  // it goes to the message box. Runs before React removes the article, while focus is still inside.
  useLayoutEffect(() => {
    const article = articleRef.current
    return () => {
      if (article && article.contains(document.activeElement)) focusIfAble(document.getElementById(COMPOSER_INPUT_ID))
    }
  }, [])
  const sendAgain = () => {
    // Send again and Edit go away while it is on the wire: focus waits on the message meanwhile.
    articleRef.current?.focus()
    onSendAgain?.()
  }
  return (
    <article ref={articleRef} tabIndex={-1} className={`message message--operator message--${delivery}`} aria-label={t('transcript.operator')} data-delivery={delivery}>
      <header className="message__meta">
        <span className="message__author">{t('transcript.operator')}</span>
        <span className={`badge badge--${delivery}`}>{label}</span>
      </header>
      <div className="message__body">{content}</div>
      {delivery === 'not_sent' && error ? (
        <p className="failure failure__text" role="alert">
          {error}
        </p>
      ) : null}
      {delivery === 'not_sent' ? (
        <div className="message__actions">
          {onSendAgain ? (
            <button type="button" className="button" onClick={sendAgain}>
              {t('actions.sendAgain')}
            </button>
          ) : null}
          {onEdit ? (
            <button type="button" className="button button--link" onClick={onEdit}>
              {t('actions.edit')}
            </button>
          ) : null}
        </div>
      ) : null}
    </article>
  )
}
