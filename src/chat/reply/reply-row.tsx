import { createRef, memo, useState } from 'react'
import { isWaiting } from '../../retry/view'
import type { Message } from '../../wire/types'
import { AgentReply } from './agent-reply'
import type { LoadToolOutput, ToolApproval } from './steps/tool-step'
import { useReplyFocus, type ReplyFocusRefs } from '../reply-focus'
import { RetryStatus } from './retry-status'
import { Tier1Status } from './tier1-status'
import { replyKey } from '../../thread/transcript-model'
import { replyState } from '../../thread/reply-state'
import { useChatRuntime } from '../runtime'
import { useLiveRun, useRetryFor } from '../use-core'

export type ReplyRowProps = {
  sessionId: string
  /** The reply as history has it; the live stream is laid over it here. */
  message: Message
  earlier: Message[]
  followers: Record<string, Message[]>
  /** A stop or regenerate request for this reply is in flight. */
  busy: boolean
  onStop: (runId: string) => void
  onRegenerate: (anchorId: string) => void
  /** Tier 2's own actions on this reply's anchor (stable, as the others). */
  onRetryNow: (anchorId: string) => void
  onCancelRetry: (anchorId: string) => void
  /** Reads a tool's whole output (stable: the row is memoized). */
  onLoadOutput: LoadToolOutput
  /** The controls of a tool waiting for approval (stable, as onLoadOutput). */
  approval?: ToolApproval
}

/**
 * One agent reply bound to the core: its run's live record and its anchor's scheduler. It
 * subscribes to those two alone, so a delta or a scheduler change re-renders this row only.
 * Each of its actions says where focus goes next (see reply-focus.ts): Stop and Cancel retry to
 * its Regenerate, Retry now to the retry line, Regenerate to the reply that replaces it.
 */
export const ReplyRow = memo(function ReplyRow({ sessionId, message, earlier, followers, busy, onStop, onRegenerate, onRetryNow, onCancelRetry, onLoadOutput, approval }: ReplyRowProps) {
  const { clock, live: liveRuns } = useChatRuntime()
  const anchorId = message.reply_to
  const { shown, retry: view, canRegenerate } = replyState(message, useLiveRun(message.run_id), useRetryFor(sessionId, anchorId), clock.now())
  const [refs] = useState<ReplyFocusRefs>(() => ({ article: createRef(), regenerate: createRef(), retryLine: createRef() }))
  const focus = useReplyFocus(anchorId, replyKey(message), refs)
  const retryBox =
    view ? (
      <RetryStatus
        view={{
          status: view.status,
          attempt: view.attempt,
          deadline: view.deadline ?? 0,
          refusal: view.refusal ?? undefined,
          waitingForNetwork: view.waitingForNetwork,
          ...(view.rerun ? { rerun: view.rerun } : {}),
        }}
        lineRef={refs.retryLine}
        // The hand-off from tier 1 reads in one place: "the daemon tried 3 times; retrying in 2 s".
        daemonAttempts={isWaiting(view.status) ? liveRuns.tier1AttemptsOf(message.run_id) : undefined}
        onRetryNow={
          anchorId
            ? () => {
                focus.ask('retry')
                onRetryNow(anchorId)
              }
            : undefined
        }
        onCancel={
          anchorId
            ? () => {
                focus.ask('regenerate')
                onCancelRetry(anchorId)
              }
            : undefined
        }
      />
    ) : undefined
  return (
    <AgentReply
      message={shown}
      earlier={earlier}
      followers={followers}
      position={shown.position}
      busy={busy}
      articleRef={refs.article}
      regenerateRef={refs.regenerate}
      onStop={
        message.run_id
          ? () => {
              focus.ask('regenerate')
              onStop(message.run_id as string)
            }
          : undefined
      }
      onRegenerate={
        anchorId && canRegenerate
          ? () => {
              focus.askSuccessor()
              onRegenerate(anchorId)
            }
          : undefined
      }
      retry={retryBox}
      onLoadOutput={onLoadOutput}
      approval={approval}
      tier1={shown.tier1 ? <Tier1Status wait={shown.tier1} /> : undefined}
    />
  )
})
