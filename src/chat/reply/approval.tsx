import { useCallback, useEffect, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode, type RefObject } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import type { TFunction } from 'i18next'
import { describeFailure, failureOfWireError } from '../../i18n/describe-failure'
import type { LiveToolPart } from '../../live/parts'
import { approvalReason, approvalTakesFocus, keyActs } from '../../thread/approvals'
import { decisionKey, decisionView, type DecisionView } from '../../thread/decisions'
import { loadDecide, type Thread } from '../../thread/thread'
import type { ToolDecision, WireError } from '../../wire/types'
import { joinSentences } from '../announce/session-announcer'
import { APPROVAL_FOCUS_EVENT, takeApprovalFocus } from '../../attention/approval-focus'
import { APPROVAL_ATTRIBUTE, approveButtonId, firstShowing, focusApproval, focusContext } from '../approval-focus'
import { useChatRuntime } from '../runtime'
import { useThreadState } from '../use-thread'
import './approval.css'

export type ApprovalControlsProps = {
  /** The waiting tool, with the reason the daemon gave when it asked. */
  tool: LiveToolPart
  /** Where its decision stands (thread/decisions.ts). */
  view: DecisionView
  /** Approve or Deny pressed (or sent again); without it no button is offered. */
  onDecide?: ((decision: ToolDecision) => void) | undefined
  /** Asked once, when the approval first shows with nothing decided: true to take focus. */
  takeFocus?: (() => boolean) | undefined
  /** The id of its first button, where the shortcut moves focus. */
  buttonId?: string | undefined
}

/** What a refusal or a failure says, from its error value. */
const reasonOf = (t: TFunction, error: WireError | undefined) => describeFailure(t, failureOfWireError(error)).text

/** The line that says where the decision stands (no line while it is open). */
function statusText(t: TFunction, view: DecisionView): string | undefined {
  switch (view.kind) {
    case 'open':
      return undefined
    case 'deciding':
      return view.decision === 'approve' ? t('approval.approving') : t('approval.denying')
    case 'taken':
      return view.decision === 'approve' ? t('approval.approved') : t('approval.denied')
    case 'conflict':
      return view.standing === 'approve' ? t('approval.approved') : t('approval.denied')
    case 'refused':
      return view.decision === 'approve' ? t('approval.refusedApprove', { reason: reasonOf(t, view.error) }) : t('approval.refusedDeny', { reason: reasonOf(t, view.error) })
    case 'failed':
      return view.decision === 'approve' ? t('approval.failedApprove', { reason: reasonOf(t, view.error) }) : t('approval.failedDeny', { reason: reasonOf(t, view.error) })
  }
}

/**
 * The buttons, apart so that focus on them is noticed before they leave the page (a decision
 * taken here or in another tab): `onLeave` is told while the focused button is still there.
 */
function DecisionButtons({ children, onLeave }: { children: ReactNode; onLeave: (hadFocus: boolean) => void }) {
  const ref = useRef<HTMLDivElement>(null)
  const leave = useRef(onLeave)
  useLayoutEffect(() => {
    leave.current = onLeave
  })
  useLayoutEffect(() => {
    const node = ref.current
    return () => leave.current(node?.contains(document.activeElement) ?? false)
  }, [])
  return (
    <div ref={ref} className="approval__buttons">
      {children}
    </div>
  )
}

/**
 * A tool's approval as shown under its input: what will run and why the daemon asks, then Approve
 * and Deny, or where the decision stands. Rendering only: the view comes from the decision's
 * record, and the keys it lets act come from thread/approvals.ts.
 */
export function ApprovalControls({ tool, view, onDecide, takeFocus, buttonId }: ApprovalControlsProps) {
  const { t } = useTranslation()
  const firstButton = useRef<HTMLButtonElement>(null)
  const statusLine = useRef<HTMLParagraphElement>(null)
  /** When the approval took focus by itself (its own showing up, not the operator). */
  const autoFocusedAt = useRef<number | undefined>(undefined)
  const asked = useRef(false)
  const refocus = useRef(false)
  /** A Space whose press was held back: its release must not click either. */
  const heldSpace = useRef(false)
  const name = tool.name
  const reason = approvalReason(tool)
  const status = statusText(t, view)
  const buttons = onDecide !== undefined && (view.kind === 'open' || view.kind === 'failed')

  useLayoutEffect(() => {
    if (asked.current || view.kind !== 'open' || !takeFocus) return
    asked.current = true
    if (!takeFocus()) return
    firstButton.current?.focus()
    autoFocusedAt.current = Date.now()
  }, [view.kind, takeFocus])

  // The buttons went away with focus on them: it stays here, on what replaced them.
  useLayoutEffect(() => {
    if (!refocus.current) return
    refocus.current = false
    const target: RefObject<HTMLElement | null> = buttons ? firstButton : statusLine
    target.current?.focus()
  })

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key !== 'Enter' && event.key !== ' ') return
    const since = autoFocusedAt.current === undefined ? undefined : Date.now() - autoFocusedAt.current
    if (keyActs({ repeat: event.repeat, sinceAutoFocusMs: since })) return
    // A key meant for the composer, or one held down as focus arrived: it decides nothing.
    event.preventDefault()
    heldSpace.current = event.key === ' '
  }
  const onKeyUp = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === ' ' && heldSpace.current) {
      heldSpace.current = false
      event.preventDefault()
    }
  }
  const press = (decision: ToolDecision) => () => onDecide?.(decision)
  const keys = { onKeyDown, onKeyUp }

  return (
    <div className="approval" role="group" aria-label={t('approval.label', { name })} {...{ [APPROVAL_ATTRIBUTE]: view.kind }}>
      <p className="approval__question">{joinSentences([t('approval.question', { name }), tool.effect === 'write' ? t('approval.effectWrite') : t('approval.effectRead')])}</p>
      {reason ? <p className="approval__reason">{t('approval.reason', { reason })}</p> : null}
      {status !== undefined ? (
        <p ref={statusLine} tabIndex={-1} className={`approval__status approval__status--${view.kind}`}>
          {status}
        </p>
      ) : null}
      {view.kind === 'conflict' ? (
        <p className="approval__note">{view.decision === 'approve' ? t('approval.conflictApprove') : t('approval.conflictDeny')}</p>
      ) : null}
      {buttons ? (
        <DecisionButtons
          onLeave={(hadFocus) => {
            if (hadFocus) refocus.current = true
          }}
        >
          {view.kind === 'failed' ? (
            <button ref={firstButton} id={buttonId} type="button" className="button" onClick={press(view.decision)} {...keys}>
              {view.decision === 'approve' ? t('approval.approveAgain') : t('approval.denyAgain')}
            </button>
          ) : (
            <>
              <button ref={firstButton} id={buttonId} type="button" className="button button--primary" onClick={press('approve')} {...keys}>
                {t('approval.approve')}
              </button>
              <button type="button" className="button button--stop" onClick={press('deny')} {...keys}>
                {t('approval.deny')}
              </button>
            </>
          )}
        </DecisionButtons>
      ) : null}
    </div>
  )
}

/**
 * The approval of one waiting tool, bound to its thread: the decision's record as every tab sees
 * it, and `decide`. Given to the reply as its `approval` slot.
 */
export function ToolApproval({ thread, tool, runId }: { thread: Thread; tool: LiveToolPart; runId: string | undefined }) {
  const runtime = useChatRuntime()
  const key = runId === undefined ? undefined : decisionKey(runId, tool.tool_call_id)
  const record = useThreadState(thread, (snapshot) => (key === undefined ? undefined : snapshot.decisions.get(key)))
  const toolCallId = tool.tool_call_id
  // How a decision is sent is fetched as the approval shows, so a press acts at once.
  useEffect(() => void loadDecide(), [])
  const onDecide = useCallback(
    (decision: ToolDecision) => {
      if (runId !== undefined) void thread.decide(runId, toolCallId, decision)
    },
    [thread, runId, toolCallId],
  )
  // Once per tool in this tab, and only when the operator is not typing.
  const takeFocus = useCallback(() => key !== undefined && firstShowing(runtime, key) && approvalTakesFocus(focusContext()), [runtime, key])
  // A notification of this tool, clicked: the operator asked to be brought here (attention/approval-focus.ts).
  const { sessionId } = thread
  const undecided = record === undefined
  useEffect(() => {
    if (key === undefined || !undecided) return
    const answer = (event?: Event) => {
      if (document.getElementById(approveButtonId(key)) === null || !takeApprovalFocus(sessionId, toolCallId)) return
      focusApproval({ key })
      event?.preventDefault()
    }
    answer()
    window.addEventListener(APPROVAL_FOCUS_EVENT, answer)
    return () => window.removeEventListener(APPROVAL_FOCUS_EVENT, answer)
  }, [key, undecided, sessionId, toolCallId])
  return (
    <ApprovalControls
      tool={tool}
      view={decisionView(record)}
      onDecide={runId === undefined ? undefined : onDecide}
      takeFocus={takeFocus}
      buttonId={key === undefined ? undefined : approveButtonId(key)}
    />
  )
}
