import { useCallback, useSyncExternalStore } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import type { LinkState } from '../../wire/events'
import { useChatRuntime } from '../runtime'

/** A Stop of this run the daemon has not heard yet (see live/stop-outbox.ts). */
function useKeptStop(runId: string | undefined): boolean {
  const { stops } = useChatRuntime()
  const subscribe = useCallback((listener: () => void) => stops.subscribe(listener), [stops])
  const get = () => stops.isKept(runId)
  return useSyncExternalStore(subscribe, get, get)
}

/**
 * A streaming reply whose stream lost its connection: the run may well go on in the daemon, so
 * this is said beside the reply's status ("Writing…" still), never instead of it. Stop stays
 * offered; one pressed while the daemon cannot hear it is said to wait for the daemon.
 */
export function ConnectionStatus({ state, runId }: { state: Exclude<LinkState, 'open'>; runId: string | undefined }) {
  const { t } = useTranslation()
  const kept = useKeptStop(runId)
  return (
    <p className="connection" data-connection={state}>
      {state === 'lost' ? t('connection.lost') : t('connection.unreachable')}
      {kept ? <span className="connection__stop"> {t('connection.stopKept')}</span> : null}
    </p>
  )
}
