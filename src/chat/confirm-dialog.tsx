import { useEffect, useId, useRef, type KeyboardEvent, type SyntheticEvent } from 'react'

export type ConfirmDialogProps = {
  title: string
  body: string
  /** The action's word (a danger button); the safe choice has the focus at first. */
  confirmLabel: string
  cancelLabel: string
  onConfirm: () => void
  onCancel: () => void
  /**
   * Where focus goes when the question closes and the control that opened it cannot take it back
   * (removed, disabled, hidden or inert), and first of all after Replace, whose regenerate retires
   * the Regenerate button that opened the question. Read when the question closes, so it may
   * name an element that did not exist when it opened. Default: the message box.
   */
  fallbackFocus?: () => HTMLElement | null | undefined
}

/**
 * A question before an action that replaces or removes something. A modal dialog (`showModal()`,
 * so the page behind is inert; where the browser has no `showModal`, as in jsdom, an
 * `aria-modal` dialog): focus starts on the safe choice, Tab and Shift+Tab stay inside, Escape
 * inside it takes the safe choice, and focus goes back to the opener when it closes.
 */
export function ConfirmDialog({ title, body, confirmLabel, cancelLabel, onConfirm, onCancel, fallbackFocus }: ConfirmDialogProps) {
  const titleId = useId()
  const bodyId = useId()
  const dialogRef = useRef<HTMLDialogElement>(null)
  const keepRef = useRef<HTMLButtonElement>(null)
  const openerRef = useRef<HTMLElement | null>(null)
  const choiceRef = useRef<'confirm' | 'cancel' | undefined>(undefined)
  const latest = useRef({ onCancel, fallbackFocus })
  useEffect(() => {
    latest.current = { onCancel, fallbackFocus }
  }, [onCancel, fallbackFocus])

  useEffect(() => {
    const dialog = dialogRef.current
    if (!dialog) return
    // Kept across StrictMode's second run, which would otherwise take the Keep button for the opener.
    if (!openerRef.current && document.activeElement instanceof HTMLElement && !dialog.contains(document.activeElement)) {
      openerRef.current = document.activeElement
    }
    if (!dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal()
      else dialog.setAttribute('open', '')
    }
    keepRef.current?.focus()
    return () => {
      // Still in the document: not closed, only StrictMode re-running the effect (or a parent
      // hiding it); a real unmount has removed the dialog before passive cleanups run.
      if (dialog.isConnected) return
      const fallback = latest.current.fallbackFocus?.() ?? document.getElementById('composer-input')
      const opener = openerRef.current
      const order = choiceRef.current === 'confirm' ? [fallback, opener] : [opener, fallback]
      for (const candidate of order) if (focusIfAble(candidate)) return
    }
  }, [])

  const choose = (choice: 'confirm' | 'cancel') => {
    choiceRef.current = choice
    if (choice === 'confirm') onConfirm()
    else onCancel()
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key === 'Escape') {
      // Handled here, so the browser's own close request (and its cancel event) does not follow.
      event.preventDefault()
      event.stopPropagation()
      choose('cancel')
      return
    }
    if (event.key === 'Tab' && dialogRef.current) trapTab(event, dialogRef.current)
  }
  // Other close requests (a back gesture) arrive as cancel: the messages are kept, and React,
  // not the browser, removes the dialog.
  const onNativeCancel = (event: SyntheticEvent<HTMLDialogElement>) => {
    event.preventDefault()
    choose('cancel')
  }
  // A close the browser did anyway (a cancel it would not let us prevent): keep the messages.
  const onNativeClose = () => {
    if (choiceRef.current === undefined) latest.current.onCancel()
  }

  return (
    <dialog
      ref={dialogRef}
      className="confirm"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onKeyDown={onKeyDown}
      onCancel={onNativeCancel}
      onClose={onNativeClose}
    >
      <h3 id={titleId} className="confirm__title">
        {title}
      </h3>
      <p id={bodyId}>{body}</p>
      <div className="message__actions">
        <button type="button" className="button button--danger" onClick={() => choose('confirm')}>
          {confirmLabel}
        </button>
        <button type="button" className="button" ref={keepRef} onClick={() => choose('cancel')}>
          {cancelLabel}
        </button>
      </div>
    </dialog>
  )
}

const TABBABLE = 'button, [href], input, select, textarea, summary, [tabindex]:not([tabindex="-1"])'

/** Tab from the last control goes to the first, Shift+Tab from the first to the last. */
function trapTab(event: KeyboardEvent, container: HTMLElement): void {
  const controls = [...container.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => !el.matches(':disabled'))
  const first = controls[0]
  const last = controls.at(-1)
  if (!first || !last) {
    event.preventDefault()
    return
  }
  const active = document.activeElement
  const outside = !(active instanceof Node) || !container.contains(active) || active === container
  if (event.shiftKey && (active === first || outside)) {
    event.preventDefault()
    last.focus()
  } else if (!event.shiftKey && (active === last || outside)) {
    event.preventDefault()
    first.focus()
  }
}

/** Focuses `element` if it can hold focus now; true when focus landed on it. */
function focusIfAble(element: HTMLElement | null | undefined): boolean {
  if (!element || !element.isConnected || element.matches(':disabled') || element.closest('[inert], [hidden]')) return false
  // Where layout is known (not in jsdom), a display:none or visibility:hidden control cannot take focus.
  if (typeof element.checkVisibility === 'function' && !element.checkVisibility({ visibilityProperty: true })) return false
  element.focus()
  return document.activeElement === element
}
