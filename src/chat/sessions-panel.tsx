import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { describeFailure, failureFromError } from '../i18n/describe-failure'
import { chatKeys, sessionsQuery } from './queries'
import { useChatRuntime } from './runtime'
import { SessionList } from './session-list'

/** The session list bound to the daemon: load, create (and open), switch. */
export function SessionsPanel({ currentId, onSelect }: { currentId: string | undefined; onSelect: (id: string) => void }) {
  const { t, i18n } = useTranslation()
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const sessions = useQuery({ ...sessionsQuery(runtime), refetchInterval: 15_000 })
  const create = useMutation({
    mutationFn: () => {
      const when = new Intl.DateTimeFormat(i18n.language, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      return runtime.client.createSession(t('sessions.defaultTitle', { when: when.format(runtime.clock.now()) }))
    },
    onSuccess: (session) => {
      void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
      onSelect(session.id)
    },
  })
  const failure = create.error ?? sessions.error
  return (
    <SessionList
      sessions={sessions.data}
      currentId={currentId}
      onSelect={onSelect}
      onCreate={() => create.mutate()}
      creating={create.isPending}
      error={failure ? `${create.error ? t('sessions.createFailed') : t('sessions.loadFailed')} ${describeFailure(t, failureFromError(failure)).text}` : undefined}
      onRetry={() => {
        create.reset()
        void sessions.refetch()
      }}
    />
  )
}
