import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { MAX_TITLE_LENGTH, type Session } from '../../wire/types'
import { sessionLabel } from '../../thread/session-label'

export type SessionActions = {
  onRename: (session: Session, title: string) => void
  onExport: (session: Session, format: 'md' | 'json') => void
  onDelete: (session: Session) => void
}

export type SessionListProps = {
  sessions: Session[] | undefined
  currentId: string | undefined
  onSelect: (id: string) => void
  onCreate: () => void
  creating?: boolean
  /** A worded load or create failure. */
  error?: string
  onRetry?: () => void
  /** Rename, export and delete; without them the list only lists. */
  actions?: SessionActions
  /** The session whose title is being edited, and a worded refusal of the last rename. */
  renaming?: { sessionId: string; error?: ReactNode }
  onRenameStart?: (sessionId: string) => void
  onRenameCancel?: () => void
}

/** The operator's sessions, newest first, with the one in view marked as current. */
export function SessionList({ sessions, currentId, onSelect, onCreate, creating = false, error, onRetry, actions, renaming, onRenameStart, onRenameCancel }: SessionListProps) {
  const { t } = useTranslation()
  const headingId = useId()
  const navRef = useRef<HTMLElement>(null)
  // A rename that ends (saved or not) gives the focus back to that session's link.
  const renamingId = renaming?.sessionId
  const lastRenamed = useRef<string | undefined>(undefined)
  useEffect(() => {
    if (renamingId) lastRenamed.current = renamingId
    else if (lastRenamed.current) {
      navRef.current?.querySelector<HTMLElement>(`a[href="/sessions/${CSS.escape(encodeURIComponent(lastRenamed.current))}"]`)?.focus()
      lastRenamed.current = undefined
    }
  }, [renamingId])
  return (
    <nav ref={navRef} className="sessions" aria-labelledby={headingId}>
      <div className="sessions__header">
        <h2 id={headingId}>{t('sessions.heading')}</h2>
        <button type="button" className="button button--primary" onClick={onCreate} disabled={creating}>
          {creating ? t('sessions.creating') : t('sessions.new')}
        </button>
      </div>
      {error ? (
        <div className="failure" role="alert">
          <p className="failure__text">{error}</p>
          {onRetry ? (
            <button type="button" className="button" onClick={onRetry}>
              {t('sessions.retry')}
            </button>
          ) : null}
        </div>
      ) : null}
      {sessions === undefined && !error ? (
        <p className="muted" role="status">
          {t('app.loading')}
        </p>
      ) : null}
      {sessions?.length === 0 ? <p className="muted">{t('sessions.empty')}</p> : null}
      {sessions && sessions.length > 0 ? (
        <ul className="sessions__list">
          {sessions.map((s) => (
            <li key={s.id} className="sessions__row">
              {renaming?.sessionId === s.id && actions ? (
                <RenameField session={s} error={renaming.error} onSave={(title) => actions.onRename(s, title)} onCancel={() => onRenameCancel?.()} />
              ) : (
                <>
                  <a
                    href={`/sessions/${encodeURIComponent(s.id)}`}
                    className="sessions__item"
                    aria-current={s.id === currentId ? 'page' : undefined}
                    onClick={(e) => {
                      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return
                      e.preventDefault()
                      onSelect(s.id)
                    }}
                    onDoubleClick={actions && onRenameStart ? () => onRenameStart(s.id) : undefined}
                  >
                    <span className="sessions__title">{sessionLabel(t, s)}</span>
                    {s.status === 'running' ? <span className="badge badge--streaming">{t('sessions.running')}</span> : null}
                  </a>
                  {actions && onRenameStart ? <SessionMenu session={s} actions={actions} onRename={() => onRenameStart(s.id)} /> : null}
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </nav>
  )
}

/**
 * The actions of one session behind a small disclosure button: rename, export (Markdown, JSON),
 * delete. Escape closes it and gives the focus back to its button. A press anywhere else, or the
 * focus leaving it (Tab past its last item), closes it and leaves the focus where it went.
 */
function SessionMenu({ session, actions, onRename }: { session: Session; actions: SessionActions; onRename: () => void }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const menuId = useId()
  const rootRef = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const firstRef = useRef<HTMLButtonElement>(null)
  const title = sessionLabel(t, session)
  useEffect(() => {
    if (!open) return
    firstRef.current?.focus()
    const onPointerDown = (event: PointerEvent) => {
      if (!(event.target instanceof Node) || !rootRef.current?.contains(event.target)) setOpen(false)
    }
    document.addEventListener('pointerdown', onPointerDown, true)
    return () => document.removeEventListener('pointerdown', onPointerDown, true)
  }, [open])
  const onBlur = (event: FocusEvent) => {
    // Focus gone to nothing (a press on the page's background) is the press's to handle.
    const next = event.relatedTarget
    if (open && next instanceof Node && !rootRef.current?.contains(next)) setOpen(false)
  }
  const close = () => {
    setOpen(false)
    buttonRef.current?.focus()
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return
    // Escape closes this menu only, not the sessions panel around it.
    event.preventDefault()
    event.stopPropagation()
    close()
  }
  // The item goes away with the menu: focus goes back to the menu's button first, so the action
  // (and a dialog it opens) starts from there, never from the page.
  const act = (run: () => void) => {
    close()
    run()
  }
  return (
    <div ref={rootRef} className="session-menu" onKeyDown={onKeyDown} onBlur={onBlur}>
      <button
        ref={buttonRef}
        type="button"
        className="button button--icon session-menu__toggle"
        aria-label={t('sessionMenu.actions', { title })}
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((v) => !v)}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open ? (
        <div id={menuId} className="session-menu__list" role="group" aria-label={t('sessionMenu.actions', { title })}>
          <button ref={firstRef} type="button" className="button button--link" onClick={() => act(onRename)}>
            {t('sessionMenu.rename')}
          </button>
          <button type="button" className="button button--link" onClick={() => act(() => actions.onExport(session, 'md'))}>
            {t('sessionMenu.exportMarkdown')}
          </button>
          <button type="button" className="button button--link" onClick={() => act(() => actions.onExport(session, 'json'))}>
            {t('sessionMenu.exportJson')}
          </button>
          <button type="button" className="button button--link session-menu__danger" onClick={() => act(() => actions.onDelete(session))}>
            {t('sessionMenu.delete')}
          </button>
        </div>
      ) : null}
    </div>
  )
}

/** The title in place, editable: Enter saves, Escape keeps the old one. */
function RenameField({ session, error, onSave, onCancel }: { session: Session; error?: ReactNode; onSave: (title: string) => void; onCancel: () => void }) {
  const { t } = useTranslation()
  const [value, setValue] = useState(session.title)
  const errorId = useId()
  const inputRef = useRef<HTMLInputElement>(null)
  useEffect(() => {
    inputRef.current?.focus()
    inputRef.current?.select()
  }, [])
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing || event.keyCode === 229) return
    if (event.key === 'Enter') {
      event.preventDefault()
      // Unchanged is not a rename: nothing to send.
      if (value === session.title) onCancel()
      else onSave(value)
    } else if (event.key === 'Escape') {
      // Escape belongs to this field: the sessions panel around it stays open.
      event.preventDefault()
      event.stopPropagation()
      onCancel()
    }
  }
  return (
    <div className="sessions__rename">
      <input
        ref={inputRef}
        className="sessions__rename-input"
        value={value}
        maxLength={MAX_TITLE_LENGTH * 2}
        aria-label={t('sessionMenu.renameLabel', { title: sessionLabel(t, session) })}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {error ? (
        <p id={errorId} className="failure__text sessions__rename-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  )
}
