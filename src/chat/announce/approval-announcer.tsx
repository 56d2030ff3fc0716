import { useEffect, useRef, useState } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { nextApprovalAlerts } from '../../thread/approvals'
import type { Thread } from '../../thread/thread'
import { useAwaitingApprovals } from '../use-approvals'
import { useThreadState } from '../use-thread'
import { joinSentences } from './session-announcer'

/** What the region holds: the tools of one moment. */
type Spoken = { seq: number; names: string[] }

/**
 * The session's assertive live region: a tool that waits for the operator's approval interrupts,
 * once per tool ("write_file is waiting for your approval"), since the agent can do nothing until
 * someone decides. A tool decided in another tab before this one saw it wait is not said (see
 * `nextApprovalAlerts`). Each announcement is a new node, so the same words twice are heard twice.
 */
export function ApprovalAnnouncer({ thread }: { thread: Thread }) {
  const { t } = useTranslation()
  const tools = useAwaitingApprovals(thread)
  const decisions = useThreadState(thread, (snapshot) => snapshot.decisions)
  const announced = useRef<ReadonlySet<string>>(new Set())
  const [spoken, setSpoken] = useState<Spoken | null>(null)
  useEffect(() => {
    const next = nextApprovalAlerts(announced.current, tools, decisions)
    announced.current = next.announced
    if (next.alerts.length === 0) return
    const names = next.alerts.map((tool) => tool.name)
    setSpoken((previous) => ({ seq: (previous?.seq ?? 0) + 1, names }))
  }, [tools, decisions])
  const text = spoken ? joinSentences(spoken.names.map((name) => t('announce.approvalWaiting', { name }))) : ''
  return (
    // aria-live, not role="alert": the region is always there (so it is heard when it speaks), and
    // an empty alert would read as an error on the page.
    <div className="visually-hidden" aria-live="assertive" aria-atomic="true">
      {spoken ? <span key={spoken.seq}>{text}</span> : null}
    </div>
  )
}
