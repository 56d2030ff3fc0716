/**
 * What opens on request (the dialogs, a session's menu and rename field), loaded when the first of
 * them opens: none is on the first screen. They are one chunk of their own; one opened before it
 * has arrived shows as soon as it has. If it cannot be fetched (offline, a deploy replaced it), it
 * closes as if dismissed, so the action that opened it can be asked for again; the next one opened
 * fetches it again.
 */
import { Component, lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react'
import type { ConfirmDialogProps } from './confirm-dialog'
import type { ConfirmRegenerateProps } from './confirm-regenerate'
import type { RenameFieldProps } from '../sessions/rename-field'
import type { SessionMenuListProps } from '../sessions/session-menu-list'

type Dialogs = Pick<typeof import('./dialogs'), 'ConfirmDialog' | 'ConfirmRegenerate' | 'ShortcutsDialog' | 'RenameField' | 'SessionMenuList'>

/** The chunk once it has arrived: a dialog opened after that shows at once. */
let loaded: Dialogs | undefined
let loading: Promise<Dialogs> | undefined

/** Fetches the dialogs' chunk, once (again after a failure). Tests wait for it before they open one. */
export function loadDialogs(): Promise<Dialogs> {
  if (!loading) {
    const attempt = import('./dialogs').then(({ ConfirmDialog, ConfirmRegenerate, ShortcutsDialog, RenameField, SessionMenuList }) => (loaded = { ConfirmDialog, ConfirmRegenerate, ShortcutsDialog, RenameField, SessionMenuList }))
    attempt.catch(() => {
      if (loading === attempt) loading = undefined
    })
    loading = attempt
  }
  return loading
}

type BoundaryProps = { onFailed: () => void; children: ReactNode }

/** Closes the dialog whose chunk could not be fetched, as a dismissal does. */
class DismissOnError extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true }
  }

  override componentDidCatch() {
    this.props.onFailed()
  }

  override render() {
    return this.state.failed ? null : this.props.children
  }
}

/** A dialog of the chunk, picked by `pick`; `dismiss` closes it when the chunk cannot be fetched. */
function lazyDialog<P extends object>(pick: (dialogs: Dialogs) => ComponentType<P>, dismiss: (props: P) => void): ComponentType<P> {
  const make = () => lazy(() => loadDialogs().then((dialogs) => ({ default: pick(dialogs) })))
  let Lazy = make()
  return function LazyDialog(props: P) {
    // Chosen once per opening: shown at once when the chunk is here, else when it arrives.
    const [Ready] = useState(() => (loaded ? pick(loaded) : undefined))
    if (Ready) return <Ready {...props} />
    const Waiting = Lazy
    return (
      <DismissOnError
        onFailed={() => {
          // React keeps a lazy component's failure for good: the next opening gets a fresh one.
          if (Lazy === Waiting) Lazy = make()
          dismiss(props)
        }}
      >
        <Suspense fallback={null}>
          <Waiting {...props} />
        </Suspense>
      </DismissOnError>
    )
  }
}

export const LazyConfirmDialog = lazyDialog<ConfirmDialogProps>((dialogs) => dialogs.ConfirmDialog, (props) => props.onCancel())
export const LazyConfirmRegenerate = lazyDialog<ConfirmRegenerateProps>((dialogs) => dialogs.ConfirmRegenerate, (props) => props.onCancel())
export const LazyShortcutsDialog = lazyDialog<{ onClose: () => void }>((dialogs) => dialogs.ShortcutsDialog, (props) => props.onClose())
export const LazyRenameField = lazyDialog<RenameFieldProps>((dialogs) => dialogs.RenameField, (props) => props.onCancel())
export const LazySessionMenuList = lazyDialog<SessionMenuListProps>((dialogs) => dialogs.SessionMenuList, (props) => props.onClose())
