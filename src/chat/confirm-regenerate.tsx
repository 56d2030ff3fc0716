import { useEffect, useId, useRef } from 'react'
import { useTranslation } from 'react-i18next'

export type ConfirmRegenerateProps = {
  /** Messages the regenerate would replace. */
  count: number
  onConfirm: () => void
  onCancel: () => void
}

/** Asks before a regenerate that would also replace later operator messages. Escape keeps them. */
export function ConfirmRegenerate({ count, onConfirm, onCancel }: ConfirmRegenerateProps) {
  const { t } = useTranslation()
  const titleId = useId()
  const bodyId = useId()
  const keepRef = useRef<HTMLButtonElement>(null)
  useEffect(() => keepRef.current?.focus(), [])
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel()
      }}
    >
      <h3 id={titleId} className="confirm__title">
        {t('regenerate.confirmTitle')}
      </h3>
      <p id={bodyId}>{t('regenerate.confirmBody', { count })}</p>
      <div className="message__actions">
        <button type="button" className="button button--danger" onClick={onConfirm}>
          {t('actions.confirm')}
        </button>
        <button type="button" className="button" ref={keepRef} onClick={onCancel}>
          {t('actions.cancel')}
        </button>
      </div>
    </div>
  )
}
