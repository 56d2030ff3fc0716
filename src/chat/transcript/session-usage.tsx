import { useTranslation } from '../../i18n/use-translation'
import { addUsage } from '../../thread/usage'
import { formatClockTime } from '../../i18n/format'
import type { Thread } from '../../thread/thread'
import { UsageLine } from '../reply/steps/usage-line'
import { useLiveRunSelect } from '../use-core'
import { useThreadState } from '../use-thread'
import { useChatRuntime } from '../runtime'

/**
 * What the session spent, at the head of its transcript: the ended runs (superseded and failed
 * ones included, so retries show their cost) and the running one as it grows. Nothing while the
 * session has spent nothing the daemon reported. A session longer than what has been read of it
 * says where its count starts ("Spent since 09:05"), and reaches "Session total" once every page
 * from there back to its start has been read (the operator scrolled up through them). A jump to the
 * start (Home, a find hit) reads the first page but not those between: the count still starts
 * where the newest pages read do, as the wire has no session-wide total.
 */
export function SessionUsage({ thread }: { thread: Thread }) {
  const { t, i18n } = useTranslation()
  const { clock } = useChatRuntime()
  const spent = useThreadState(thread, (snapshot) => snapshot.spent)
  // One run at a time per session: the newest active one is the one spending.
  // Only its usage: the rest of the record changes at every flush of the reply's text.
  const runningUsage = useLiveRunSelect(
    useThreadState(thread, (snapshot) => snapshot.activeRuns.at(-1)),
    (run) => run?.usage,
  )
  const total = addUsage(spent.usage, runningUsage)
  if (!total) return null
  // A long session opened on its newest page: what was read of it, from when that starts.
  const label = spent.since === undefined ? t('steps.sessionSpent') : t('steps.sessionSpentSince', { time: formatClockTime(spent.since, clock.now(), i18n.language, '…') })
  return (
    <div className="chat__spent" role="group" aria-label={label}>
      <span className="chat__spent-label" aria-hidden="true">
        {label}
      </span>
      <UsageLine usage={total} />
    </div>
  )
}
