import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type RefObject, type SyntheticEvent } from 'react'
import { focusIfAble, trapTab } from './dialog-focus'
import { COMPOSER_INPUT_ID } from '../dom-ids'

export type ModalDialogProps = {
  title: string
  /** `alertdialog` for a question that needs an answer now, `dialog` for the rest. */
  role?: 'dialog' | 'alertdialog'
  className?: string
  /** Takes the focus when the dialog opens (the safe choice, or Close). */
  initialFocus: RefObject<HTMLElement | null>
  /** Escape, or the browser's own close request (a back gesture): the safe way out. */
  onDismiss: () => void
  /**
   * Where focus goes when the dialog closes and its opener cannot take it back (removed,
   * disabled, hidden or inert). Read when it closes, so it may name an element that did not exist
   * when it opened. Default: the message box.
   */
  fallbackFocus?: () => HTMLElement | null | undefined
  /** Set when the dialog's action retires its opener: focus tries the fallback first. */
  preferFallback?: RefObject<boolean>
  /** The id of the text that describes the dialog, when it has one. */
  describedBy?: string
  children: ReactNode
}

/**
 * A modal dialog (`showModal()`, so the page behind is inert; where the browser has no
 * `showModal`, as in jsdom, an `aria-modal` dialog): focus starts on `initialFocus`, Tab and
 * Shift+Tab stay inside, Escape inside it (and only there) dismisses it, and focus goes back to
 * the opener when it closes.
 */
export function ModalDialog({ title, role = 'dialog', className, initialFocus, onDismiss, fallbackFocus, preferFallback, describedBy, children }: ModalDialogProps) {
  const titleId = useId()
  const dialogRef = useRef<HTMLDialogElement>(null)
  const openerRef = useRef<HTMLElement | null>(null)
  const dismissed = useRef(false)
  const latest = useRef({ onDismiss, fallbackFocus, preferFallback })
  useEffect(() => {
    latest.current = { onDismiss, fallbackFocus, preferFallback }
  }, [onDismiss, fallbackFocus, preferFallback])

  useEffect(() => {
    const dialog = dialogRef.current
    if (!dialog) return
    // Kept across StrictMode's second run, which would otherwise take a button inside for the opener.
    if (!openerRef.current && document.activeElement instanceof HTMLElement && document.activeElement !== document.body && !dialog.contains(document.activeElement)) {
      openerRef.current = document.activeElement
    }
    if (!dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal()
      else dialog.setAttribute('open', '')
    }
    initialFocus.current?.focus()
    return () => {
      // Still in the document: not closed, only StrictMode re-running the effect (or a parent
      // hiding it); a real unmount has removed the dialog before passive cleanups run.
      if (dialog.isConnected) return
      const fallback = latest.current.fallbackFocus?.() ?? document.getElementById(COMPOSER_INPUT_ID)
      const opener = openerRef.current
      const order = latest.current.preferFallback?.current ? [fallback, opener] : [opener, fallback]
      for (const candidate of order) if (focusIfAble(candidate)) return
    }
  }, [initialFocus])

  const dismiss = () => {
    dismissed.current = true
    latest.current.onDismiss()
  }
  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key === 'Escape') {
      // Handled here, so the browser's own close request (and its cancel event) does not follow.
      event.preventDefault()
      event.stopPropagation()
      dismiss()
      return
    }
    if (event.key === 'Tab' && dialogRef.current) trapTab(event, dialogRef.current)
  }
  // Other close requests arrive as cancel: React, not the browser, removes the dialog.
  const onNativeCancel = (event: SyntheticEvent<HTMLDialogElement>) => {
    event.preventDefault()
    dismiss()
  }
  // A close the browser did anyway (a cancel it would not let us prevent); not one that follows
  // React removing the dialog after a choice.
  const onNativeClose = () => {
    if (!dismissed.current && dialogRef.current?.isConnected) latest.current.onDismiss()
  }

  return (
    <dialog
      ref={dialogRef}
      className={className}
      role={role}
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      onKeyDown={onKeyDown}
      onCancel={onNativeCancel}
      onClose={onNativeClose}
    >
      <h3 id={titleId} className="confirm__title">
        {title}
      </h3>
      {children}
    </dialog>
  )
}
