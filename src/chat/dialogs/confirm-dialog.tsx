import { useId, useRef } from 'react'
import { ModalDialog } from './modal-dialog'

export type ConfirmDialogProps = {
  title: string
  body: string
  /** The action's word (a danger button); the safe choice has the focus at first. */
  confirmLabel: string
  cancelLabel: string
  onConfirm: () => void
  onCancel: () => void
  /**
   * Where focus goes when the question closes and the control that opened it cannot take it back,
   * and first of all after the action, which usually retires the control that opened the question
   * (see ModalDialog). Default: the message box.
   */
  fallbackFocus?: () => HTMLElement | null | undefined
}

/**
 * A question before an action that replaces or removes something, as a modal dialog: focus starts
 * on the safe choice, and Escape takes it.
 */
export function ConfirmDialog({ title, body, confirmLabel, cancelLabel, onConfirm, onCancel, fallbackFocus }: ConfirmDialogProps) {
  const bodyId = useId()
  const keepRef = useRef<HTMLButtonElement>(null)
  const confirmed = useRef(false)
  return (
    <ModalDialog
      title={title}
      role="alertdialog"
      className="confirm"
      initialFocus={keepRef}
      onDismiss={onCancel}
      fallbackFocus={fallbackFocus}
      preferFallback={confirmed}
      describedBy={bodyId}
    >
      <p id={bodyId}>{body}</p>
      <div className="message__actions">
        <button
          type="button"
          className="button button--danger"
          onClick={() => {
            confirmed.current = true
            onConfirm()
          }}
        >
          {confirmLabel}
        </button>
        <button type="button" className="button" ref={keepRef} onClick={onCancel}>
          {cancelLabel}
        </button>
      </div>
    </ModalDialog>
  )
}
