import { memo, useId } from 'react'
import { useTranslation } from '../../../i18n/use-translation'
import { describeDuration } from '../../../i18n/number-format'
import { reasoningOpenByDefault } from '../../../thread/steps'
import type { ReasoningPart } from '../../../wire/types'
import { holdsNeedle, useFindNeedle } from '../../transcript/find-needle'
import { useDisclosure } from './use-disclosure'
import { useThoughtTime } from './use-thought-time'

export type ReasoningStepProps = {
  part: ReasoningPart
  /** Still being written: the last step of a streaming reply. */
  live: boolean
  /** A step of an earlier version: folded. */
  earlier: boolean
  /** How long it took by the daemon's times or the stream's (see reasoningDurationMs), when they tell. */
  knownMs: number | undefined
  /** Where this page keeps what it measured of it and whether the operator opened it: the message id and the part's index. */
  stepKey: string
}

/**
 * The agent's reasoning, apart from the answer: open and muted while it is written, then one line
 * ("Thought for 4 s") that opens on request. Daemon text, shown as text, never as Markdown.
 */
export const ReasoningStep = memo(function ReasoningStep({ part, live, earlier, knownMs, stepKey }: ReasoningStepProps) {
  const { t, i18n } = useTranslation()
  const bodyId = useId()
  const measuredMs = useThoughtTime(stepKey, live)
  // Find went to this reply for words in the reasoning: it opens to show them.
  const found = holdsNeedle(useFindNeedle(), i18n.language, part.text)
  const [open, toggle] = useDisclosure(stepKey, live ? 'live' : 'done', reasoningOpenByDefault(live, earlier) || found)
  // What this mount saw is the last resort: it began timing when it first showed the reasoning.
  const ms = knownMs ?? measuredMs
  const summary = live
    ? t('steps.thinking')
    : ms !== undefined
      ? t('steps.thoughtFor', { duration: describeDuration(t, i18n.language, ms, 'whole') })
      : t('steps.reasoning')
  return (
    <div className="step step--reasoning" data-live={live ? '' : undefined}>
      <button type="button" className="step__toggle" aria-expanded={open} aria-controls={open ? bodyId : undefined} onClick={toggle}>
        <span className="step__chevron" aria-hidden="true" />
        <span className="step__summary">{summary}</span>
      </button>
      {open ? (
        <div id={bodyId} className="step__reasoning">
          {part.text}
        </div>
      ) : null}
    </div>
  )
})
