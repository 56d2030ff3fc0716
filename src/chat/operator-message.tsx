import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'

export type Delivery = 'sending' | 'sent' | 'not_sent'

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
  return (
    <article className={`message message--operator message--${delivery}`} aria-label={t('transcript.operator')} data-delivery={delivery}>
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
            <button type="button" className="button" onClick={onSendAgain}>
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
