import { lazy, Suspense, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react'
import { useTranslation } from '../i18n/use-translation'
import { ChatView } from '../chat/chat-view'
import { SessionsPanel } from '../chat/sessions/sessions-panel'
import { StartView } from '../chat/sessions/start-view'
import { useNewSession, useSessions } from '../chat/api/use-sessions'
import { FIND_INPUT_ID } from '../chat/transcript/find-bar'
import { LazyShortcutsDialog } from '../chat/dialogs/lazy-dialogs'
import { useShortcuts } from '../chat/use-shortcuts'
import { SessionErrorBoundary } from './error-boundary'
import { LanguageSwitch } from './language-switch'
import { useAttentionShell, useSessionMarks } from './attention'
import { NotificationsSwitch } from './notifications-switch'
import { NARROW_LAYOUT, useMediaQuery } from './use-media-query'
import { useSessionRoute } from './use-session-route'
import { neighbourOf } from '../thread/session-order'
import { COMPOSER_INPUT_ID } from '../chat/dom-ids'

// The simulator drives the in-browser mock daemon; a build against a real daemon never loads it.
const SimulatorPanel = __MOCK_DAEMON__ ? lazy(() => import('./simulator-panel')) : null

/**
 * The shell: header, sessions on the side, the session in view. Composition only.
 *
 * On a narrow screen (a phone, or a window at 200% zoom) the sessions panel folds behind a button
 * in the header: opening it moves focus into it and makes the conversation behind it inert;
 * Escape, the button, a tap beside it or picking a session close it and focus goes back to the
 * button. On a wide screen the panel is always there and the button is not shown.
 */
export function App() {
  const { t } = useTranslation()
  const [sessionId, navigate] = useSessionRoute()
  // Counted in the tab title, seen while looked at; a clicked notification opens its session.
  useAttentionShell(sessionId, navigate)
  const marks = useSessionMarks()
  const narrow = useMediaQuery(NARROW_LAYOUT)
  const [panelWanted, setPanelWanted] = useState(false)
  // Widening the window shows the panel in place; the overlay state means nothing there.
  const panelOpen = narrow && panelWanted
  const sideId = useId()
  const toggleRef = useRef<HTMLButtonElement>(null)
  const sideRef = useRef<HTMLElement>(null)

  useEffect(() => {
    if (panelOpen && sideRef.current) focusInto(sideRef.current)
  }, [panelOpen])

  const closePanel = () => {
    setPanelWanted(false)
    toggleRef.current?.focus()
  }
  const onSideKeyDown = (event: KeyboardEvent) => {
    // A field inside the panel that uses Escape itself (a rename) prevents the default first.
    if (event.key !== 'Escape' || !panelOpen || event.defaultPrevented) return
    event.preventDefault()
    closePanel()
  }
  // A session just made (New session, or the first screen's Enter) opens ready to type.
  const [freshSession, setFreshSession] = useState<string>()
  const select = (id: string | undefined) => {
    navigate(id)
    if (panelOpen) closePanel()
  }
  // "New session" on a session as new as one just made opens that one: the focus goes to its
  // field once the panel is closed (the field is inert behind it until then).
  const [focusAsked, setFocusAsked] = useState(0)
  useEffect(() => {
    if (focusAsked > 0) document.getElementById(COMPOSER_INPUT_ID)?.focus()
  }, [focusAsked])
  const opened = (id: string) => {
    setFreshSession(id)
    if (id === sessionId) setFocusAsked((n) => n + 1)
  }
  const started = (id: string) => {
    opened(id)
    select(id)
  }
  const [showShortcuts, setShowShortcuts] = useState(false)
  const sessions = useSessions()
  const newSession = useNewSession(sessionId, started)
  useShortcuts((id) => {
    switch (id) {
      case 'newSession':
        newSession.start()
        return true
      case 'focusComposer':
        document.getElementById(COMPOSER_INPUT_ID)?.focus()
        return true
      case 'previousSession':
      case 'nextSession': {
        const next = neighbourOf(sessions.data ?? [], sessionId, id === 'nextSession' ? 'next' : 'previous')
        if (next) select(next.id)
        return next !== undefined
      }
      case 'find': {
        const field = document.getElementById(FIND_INPUT_ID)
        field?.focus()
        return field !== null
      }
      case 'help':
        setShowShortcuts(true)
        return true
      default:
        return false
    }
  })

  return (
    <div className="app">
      <a className="skip-link" href={`#${COMPOSER_INPUT_ID}`}>
        {t('app.skipToComposer')}
      </a>
      <header className="app__header">
        <button
          ref={toggleRef}
          type="button"
          className="button app__sessions-toggle"
          aria-expanded={panelOpen}
          aria-controls={sideId}
          onClick={() => (panelOpen ? closePanel() : setPanelWanted(true))}
        >
          {t('layout.sessionsToggle')}
        </button>
        <h1 className="app__title">
          {t('app.title')} <span className="app__tagline">{t('app.tagline')}</span>
        </h1>
        {__MOCK_DAEMON__ ? <span className="badge badge--mock">{t('app.mockMode')}</span> : null}
        <button type="button" className="button app__shortcuts" aria-label={t('shortcuts.button')} title={t('shortcuts.button')} onClick={() => setShowShortcuts(true)}>
          <span aria-hidden="true">?</span>
        </button>
        <NotificationsSwitch />
        <LanguageSwitch />
      </header>
      {showShortcuts ? <LazyShortcutsDialog onClose={() => setShowShortcuts(false)} /> : null}
      <div className="app__body">
        <aside ref={sideRef} id={sideId} className={`app__side${panelOpen ? ' app__side--open' : ''}`} onKeyDown={onSideKeyDown}>
          <SessionsPanel currentId={sessionId} onSelect={select} onCreated={opened} marks={marks} />
          {SimulatorPanel ? (
            <Suspense fallback={null}>
              <SimulatorPanel />
            </Suspense>
          ) : null}
        </aside>
        {/* A tap beside the open panel closes it; keyboard users have Escape and the button. */}
        {panelOpen ? <div className="app__scrim" aria-hidden="true" onClick={closePanel} /> : null}
        <main className="app__main" inert={panelOpen}>
          {sessionId ? (
            <SessionErrorBoundary sessionId={sessionId} onLeave={() => select(undefined)}>
              <ChatView key={sessionId} sessionId={sessionId} autoFocusComposer={freshSession === sessionId} />
            </SessionErrorBoundary>
          ) : (
            <StartView onStarted={started} />
          )}
        </main>
      </div>
    </div>
  )
}

/** Focus for a panel just opened: the session in view when it is listed, else the first control. */
function focusInto(panel: HTMLElement): void {
  const target = panel.querySelector<HTMLElement>('[aria-current="page"]') ?? panel.querySelector<HTMLElement>('a[href], button:not(:disabled), input:not(:disabled), summary')
  target?.focus()
}
