import { useTranslation } from 'react-i18next'
import { addUsage } from '../../thread/usage'
import type { Thread } from '../../thread/thread'
import { UsageLine } from '../reply/steps/usage-line'
import { useLiveRun } from '../use-core'
import { useThreadState } from '../use-thread'

/**
 * What the session spent, at the head of its transcript: the ended runs (superseded and failed
 * ones included, so retries show their cost) and the running one as it grows. Nothing while the
 * session has spent nothing the daemon reported.
 */
export function SessionUsage({ thread }: { thread: Thread }) {
  const { t } = useTranslation()
  const spent = useThreadState(thread, (snapshot) => snapshot.spent)
  // One run at a time per session: the newest active one is the one spending.
  const running = useLiveRun(useThreadState(thread, (snapshot) => snapshot.activeRuns.at(-1)))
  const total = addUsage(spent, running?.usage)
  if (!total) return null
  return (
    <div className="chat__spent" role="group" aria-label={t('steps.sessionSpent')}>
      <span className="chat__spent-label" aria-hidden="true">
        {t('steps.sessionSpent')}
      </span>
      <UsageLine usage={total} />
    </div>
  )
}
