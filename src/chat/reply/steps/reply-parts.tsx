import type { Part } from '../../../wire/types'
import { livePartIndex, reasoningDurationMs } from '../../../thread/steps'
import { ReasoningStep } from './reasoning-step'
import { TextStep } from './text-step'
import { ToolStep, type LoadToolOutput, type ToolApproval } from './tool-step'
import './steps.css'

// A tool's approval controls show in its step only: they come with the steps' chunk.
export { ToolApproval } from '../approval'

export type ReplyPartsProps = {
  parts: readonly Part[]
  /** The reply's id: with a part's index, where the page keeps what it measured of that part. */
  messageId: string
  /** The reply's run, handed to onLoadOutput with the tool call. */
  runId: string | undefined
  /** The reply is still being written: its last part is live. */
  streaming: boolean
  /** An earlier version's steps: all folded. */
  earlier?: boolean
  /** When the stream showed the reply's first reasoning start and end (browser clock), where it was watched. */
  reasoningStartedAt?: number | undefined
  reasoningEndedAt?: number | undefined
  now?: number | undefined
  onLoadOutput?: LoadToolOutput | undefined
  approval?: ToolApproval | undefined
}

/**
 * A reply's steps in the order the agent took them, each drawn by the component for its type.
 * This list re-renders on every delta; the steps are memoized on their part objects, so only the
 * one that changed renders again.
 */
export function ReplyParts({ parts, messageId, runId, streaming, earlier = false, reasoningStartedAt, reasoningEndedAt, now, onLoadOutput, approval }: ReplyPartsProps) {
  const live = livePartIndex(parts, streaming)
  const thinking = { startedAt: reasoningStartedAt, endedAt: reasoningEndedAt }
  return (
    <div className="steps">
      {parts.map((part, i) => {
        // Parts are only ever appended: an index names the same part for the reply's lifetime.
        const key = `${i}:${part.type}`
        switch (part.type) {
          case 'text':
            return <TextStep key={key} part={part} streaming={i === live} followed={i < parts.length - 1} />
          case 'reasoning':
            return <ReasoningStep key={key} part={part} live={i === live} earlier={earlier} knownMs={reasoningDurationMs(parts, i, thinking)} stepKey={`${messageId}:${i}`} />
          case 'tool':
            return <ToolStep key={key} stepKey={`${messageId}:${i}`} part={part} runId={runId} earlier={earlier} now={now} onLoadOutput={onLoadOutput} approval={approval} />
        }
      })}
    </div>
  )
}
