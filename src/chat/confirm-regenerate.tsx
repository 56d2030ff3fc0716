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
  const cancelRef = useRef(onCancel)
  useEffect(() => {
    cancelRef.current = onCancel
  }, [onCancel])
  useEffect(() => {
    // Focus starts on the safe choice and goes back to whatever opened the question.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    keepRef.current?.focus()
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') cancelRef.current()
    }
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('keydown', onKey)
      if (opener?.isConnected) opener.focus()
    }
  }, [])
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
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
