import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { Session } from '../wire/types'

export type SessionListProps = {
  sessions: Session[] | undefined
  currentId: string | undefined
  onSelect: (id: string) => void
  onCreate: () => void
  creating?: boolean
  /** A worded load or create failure. */
  error?: string
  onRetry?: () => void
}

/** The operator's sessions, newest first, with the one in view marked as current. */
export function SessionList({ sessions, currentId, onSelect, onCreate, creating = false, error, onRetry }: SessionListProps) {
  const { t } = useTranslation()
  const headingId = useId()
  return (
    <nav className="sessions" aria-labelledby={headingId}>
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
      {sessions === undefined && !error ? <p className="muted" role="status">
          {t('app.loading')}
        </p> : null}
      {sessions?.length === 0 ? <p className="muted">{t('sessions.empty')}</p> : null}
      {sessions && sessions.length > 0 ? (
        <ul className="sessions__list">
          {sessions.map((s) => (
            <li key={s.id}>
              <a
                href={`/sessions/${encodeURIComponent(s.id)}`}
                className="sessions__item"
                aria-current={s.id === currentId ? 'page' : undefined}
                onClick={(e) => {
                  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return
                  e.preventDefault()
                  onSelect(s.id)
                }}
              >
                <span className="sessions__title">{s.title || t('sessions.untitled')}</span>
                {s.status === 'running' ? <span className="badge badge--streaming">{t('sessions.running')}</span> : null}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </nav>
  )
}
