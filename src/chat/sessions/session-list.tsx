import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import type { Session } from '../../wire/types'
import { sessionLabel } from '../../thread/session-label'
import { LazyRenameField, LazySessionMenuList } from '../dialogs/lazy-dialogs'

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
  /**
   * Sessions with events the operator has not seen (the tab title's count, by session): `needsYou`
   * when one waits on them (an approval, a held retry), `news` otherwise (a reply finished, failed,
   * paused). The session on screen has none: looking at it sees them.
   */
  marks?: ReadonlyMap<string, 'needsYou' | 'news'>
}

/** The operator's sessions, newest first, with the one in view marked as current. */
export function SessionList({ sessions, currentId, onSelect, onCreate, creating = false, error, onRetry, actions, renaming, onRenameStart, onRenameCancel, marks }: SessionListProps) {
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
                <LazyRenameField session={s} error={renaming.error} onSave={(title) => actions.onRename(s, title)} onCancel={() => onRenameCancel?.()} />
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
                    {/* The whole title on hover: the list cuts a long one with an ellipsis. */}
                    <span className="sessions__title" title={sessionLabel(t, s)}>
                      {sessionLabel(t, s)}
                    </span>
                    {marks?.get(s.id) === 'needsYou' ? (
                      <span className="badge badge--needs-you">{t('sessions.needsYou')}</span>
                    ) : s.status === 'running' ? (
                      <span className="badge badge--streaming">{t('sessions.running')}</span>
                    ) : null}
                    {marks?.get(s.id) === 'news' ? <span className="sessions__news" role="img" aria-label={t('sessions.news')} /> : null}
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
  const title = sessionLabel(t, session)
  useEffect(() => {
    if (!open) return
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
        <LazySessionMenuList
          id={menuId}
          label={t('sessionMenu.actions', { title })}
          onRename={() => act(onRename)}
          onExportMarkdown={() => act(() => actions.onExport(session, 'md'))}
          onExportJson={() => act(() => actions.onExport(session, 'json'))}
          onDelete={() => act(() => actions.onDelete(session))}
          onClose={close}
        />
      ) : null}
    </div>
  )
}
