import type { Part } from '../../../wire/types'
import { livePartIndex, reasoningSpanMs } from '../../../thread/steps'
import { ReasoningStep } from './reasoning-step'
import { TextStep } from './text-step'
import { ToolStep, type LoadToolOutput, type ToolApproval } from './tool-step'
import './steps.css'

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
  now?: number | undefined
  onLoadOutput?: LoadToolOutput | undefined
  approval?: ToolApproval | undefined
}

/**
 * A reply's steps in the order the agent took them, each drawn by the component for its type.
 * This list re-renders on every delta; the steps are memoized on their part objects, so only the
 * one that changed renders again.
 */
export function ReplyParts({ parts, messageId, runId, streaming, earlier = false, now, onLoadOutput, approval }: ReplyPartsProps) {
  const live = livePartIndex(parts, streaming)
  return (
    <div className="steps">
      {parts.map((part, i) => {
        // Parts are only ever appended: an index names the same part for the reply's lifetime.
        const key = `${i}:${part.type}`
        switch (part.type) {
          case 'text':
            return <TextStep key={key} part={part} streaming={i === live} />
          case 'reasoning':
            return <ReasoningStep key={key} part={part} live={i === live} earlier={earlier} spanMs={reasoningSpanMs(parts, i)} thoughtKey={`${messageId}:${i}`} />
          case 'tool':
            return <ToolStep key={key} part={part} runId={runId} earlier={earlier} now={now} onLoadOutput={onLoadOutput} approval={approval} />
        }
      })}
    </div>
  )
}
