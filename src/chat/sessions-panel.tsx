import { useTranslation } from 'react-i18next'
import { describeFailure, failureFromError } from '../i18n/describe-failure'
import { useCreateSession, useSessions } from './api/use-sessions'
import { SessionList } from './session-list'

/** The session list bound to the daemon: load, create (and open), switch. */
export function SessionsPanel({ currentId, onSelect }: { currentId: string | undefined; onSelect: (id: string) => void }) {
  const { t } = useTranslation()
  const sessions = useSessions()
  const create = useCreateSession()
  const failure = create.error ?? sessions.error
  return (
    <SessionList
      sessions={sessions.data}
      currentId={currentId}
      onSelect={onSelect}
      onCreate={() => create.mutate(undefined, { onSuccess: (session) => onSelect(session.id) })}
      creating={create.isPending}
      error={failure ? `${create.error ? t('sessions.createFailed') : t('sessions.loadFailed')} ${describeFailure(t, failureFromError(failure)).text}` : undefined}
      onRetry={() => {
        create.reset()
        void sessions.refetch()
      }}
    />
  )
}
