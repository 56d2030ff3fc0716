/**
 * Error boundaries: a throw in render must never leave a blank page. The app-level boundary
 * wraps everything (even the providers), so it words itself from the i18n instance it is given;
 * the session-level one wraps one conversation, so the sessions list and the header stay usable
 * while one session cannot be shown. Both say what happened in the operator's language and offer
 * a way back (reload, the first screen, or trying the view again).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react'
import type { i18n as I18n } from 'i18next'
import { useTranslation } from '../i18n/use-translation'

type BoundaryProps = {
  /** What is shown when a descendant throws in render. `reset` clears the error and renders the children again. */
  fallback: (reset: () => void, error: unknown) => ReactNode
  /** A change of this value clears a caught error (the operator moved to another session). */
  resetKey?: unknown
  /** Told of each caught error (logging); the default writes a warning, never `console.error`. */
  onError?: (error: unknown, info: ErrorInfo) => void
  children: ReactNode
}

type BoundaryState = { error: unknown; caught: boolean; resetKey: unknown }

/** The boundary itself: the one class component, since React catches render errors only in one. */
class ErrorBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { error: undefined, caught: false, resetKey: this.props.resetKey }

  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { error, caught: true }
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    if (Object.is(props.resetKey, state.resetKey)) return null
    return { resetKey: props.resetKey, error: undefined, caught: false }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    if (this.props.onError) this.props.onError(error, info)
    else console.warn('Rebound: a view failed to render', error, info.componentStack)
  }

  reset = (): void => this.setState({ error: undefined, caught: false })

  override render(): ReactNode {
    return this.state.caught ? this.props.fallback(this.reset, this.state.error) : this.props.children
  }
}

/** Leaves the current session for the first screen: a plain navigation, so nothing of the broken view survives. */
function goToFirstScreen(): void {
  window.location.assign(`/${window.location.search}`)
}

function CrashNotice({ title, detail, actions }: { title: string; detail: string; actions: ReactNode }) {
  return (
    <div className="failure" role="alert" style={{ margin: 24 }}>
      <p className="failure__text">
        <strong>{title}</strong> {detail}
      </p>
      <div className="message__actions">{actions}</div>
    </div>
  )
}

/**
 * The app-level boundary (mount it in src/main.tsx around the providers). It words itself from
 * `i18n` directly: a throw in a provider leaves no context to read words from.
 */
export function AppErrorBoundary({ i18n, children }: { i18n: I18n; children: ReactNode }) {
  return (
    <ErrorBoundary
      fallback={() => (
        <CrashNotice
          title={i18n.t('robust.crashTitle')}
          detail={i18n.t('robust.crashApp')}
          actions={
            <>
              <button type="button" className="button button--primary" onClick={() => window.location.reload()}>
                {i18n.t('robust.reload')}
              </button>
              <button type="button" className="button" onClick={goToFirstScreen}>
                {i18n.t('robust.firstScreen')}
              </button>
            </>
          }
        />
      )}
    >
      {children}
    </ErrorBoundary>
  )
}

function SessionCrash({ reset, onLeave }: { reset: () => void; onLeave?: () => void }) {
  const { t } = useTranslation()
  return (
    <CrashNotice
      title={t('robust.crashTitle')}
      detail={t('robust.crashSession')}
      actions={
        <>
          <button type="button" className="button button--primary" onClick={reset}>
            {t('robust.tryAgain')}
          </button>
          <button type="button" className="button" onClick={onLeave ?? goToFirstScreen}>
            {t('robust.firstScreen')}
          </button>
          <button type="button" className="button" onClick={() => window.location.reload()}>
            {t('robust.reload')}
          </button>
        </>
      }
    />
  )
}

/**
 * The boundary around one session view: `<SessionErrorBoundary sessionId={id}><ChatView … /></SessionErrorBoundary>`.
 * A throw inside shows a worded notice with Try again, the first screen (`onLeave`, e.g.
 * `() => navigate(undefined)`; a plain navigation without it) and Reload; moving to another
 * session clears it.
 */
export function SessionErrorBoundary({ sessionId, onLeave, children }: { sessionId: string; onLeave?: () => void; children: ReactNode }) {
  return (
    <ErrorBoundary resetKey={sessionId} fallback={(reset) => <SessionCrash reset={reset} onLeave={onLeave} />}>
      {children}
    </ErrorBoundary>
  )
}
