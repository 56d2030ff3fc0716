import { lazy, Suspense } from 'react'
import { useTranslation } from 'react-i18next'
import { ChatView } from '../chat/chat-view'
import { SessionsPanel } from '../chat/sessions-panel'
import { LanguageSwitch } from './language-switch'
import { useSessionRoute } from './use-session-route'

// The simulator drives the in-browser mock daemon; a build against a real daemon never loads it.
const SimulatorPanel = __MOCK_DAEMON__ ? lazy(() => import('./simulator-panel')) : null

/** The shell: header, sessions on the side, the session in view. Composition only. */
export function App() {
  const { t } = useTranslation()
  const [sessionId, navigate] = useSessionRoute()
  return (
    <div className="app">
      {sessionId ? (
        <a className="skip-link" href="#composer-input">
          {t('app.skipToComposer')}
        </a>
      ) : null}
      <header className="app__header">
        <h1 className="app__title">
          {t('app.title')} <span className="app__tagline">{t('app.tagline')}</span>
        </h1>
        {__MOCK_DAEMON__ ? <span className="badge badge--mock">{t('app.mockMode')}</span> : null}
        <LanguageSwitch />
      </header>
      <div className="app__body">
        <aside className="app__side">
          <SessionsPanel currentId={sessionId} onSelect={navigate} />
          {SimulatorPanel ? (
            <Suspense fallback={null}>
              <SimulatorPanel />
            </Suspense>
          ) : null}
        </aside>
        <main className="app__main">
          {sessionId ? <ChatView key={sessionId} sessionId={sessionId} /> : <p className="muted app__pick">{t('sessions.pick')}</p>}
        </main>
      </div>
    </div>
  )
}
