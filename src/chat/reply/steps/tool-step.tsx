import { memo, useCallback, useId, useMemo, useState, type ReactNode } from 'react'
import { useTranslation } from '../../../i18n/use-translation'
import { describeDuration, formatBytes, formatCount, type DurationRounding } from '../../../i18n/number-format'
import { CopyButton } from '../../../markdown/copy-button'
import { highlightsInput, inputHighlightIn, nextSecondIn, shownToolInput, shownToolOutput, toolDurationMs, toolOpenByDefault, utf8Length, type ShownToolInput } from '../../../thread/steps'
import { isToolEnded } from '../../../wire/status'
import type { ToolPart } from '../../../wire/types'
import type { LiveToolPart } from '../../../live/parts'
import { useChatRuntime } from '../../runtime'
import { useTicker } from '../../use-ticker'
import { FailureNotice } from '../failure-notice'
import { StepCode } from './step-code'
import { holdsNeedle, useFindNeedle } from '../../transcript/find-needle'
import { keepOutput, keptOutput, useDisclosure, useWholeInput } from './use-disclosure'

/**
 * Fetches a tool's whole output (the daemon's `GET …/runs/:rid/tools/:tcid/output`), given the
 * tool call and the run of the reply it belongs to (an earlier version's is not the reply's own).
 */
export type LoadToolOutput = (toolCallId: string, runId: string | undefined) => Promise<string>
/**
 * What to show under a tool that waits for the operator's decision (what will run, the daemon's
 * reason, Approve and Deny), given the tool (with the reason the stream gave) and its reply's run.
 */
export type ToolApproval = (tool: LiveToolPart, runId: string | undefined) => ReactNode

export type ToolStepProps = {
  part: ToolPart
  /** Where this page keeps what the operator did to it (opened it, loaded its output): the message id and the part's index. */
  stepKey: string
  /** The run of the reply this tool is a step of. */
  runId: string | undefined
  /** A step of an earlier version: folded. */
  earlier: boolean
  /** A fixed time (browser clock) for a running tool's elapsed time, which then does not tick; the runtime's clock when absent. */
  now?: number | undefined
  /** Offers "Load full output" on a cut output; without it there is no such button. */
  onLoadOutput?: LoadToolOutput | undefined
  approval?: ToolApproval | undefined
}

/** A duration in words, as its own element so it can sit in the header with the status. */
function Duration({ ms, rounding }: { ms: number; rounding: DurationRounding }) {
  const { t, i18n } = useTranslation()
  return <span className="step__duration">{describeDuration(t, i18n.language, ms, rounding)}</span>
}

/**
 * A running tool's elapsed time on the runtime's clock, ticking once a second. Its own component:
 * a tick re-renders this line, not the tool's input and output.
 */
function TickingElapsed({ startedAt }: { startedAt: number }) {
  const { clock } = useChatRuntime()
  // `started_at` is the daemon's time; placed on the browser's clock, a skewed clock reads right.
  const from = clock.fromDaemon(startedAt)
  const nextTickIn = useCallback((now: number) => nextSecondIn(now - from), [from])
  useTicker(nextTickIn)
  return <Duration ms={clock.now() - from} rounding="floor" />
}

/** How long the tool has run (ticking) or took; nothing before it runs. */
function ToolTime({ part, now }: { part: ToolPart; now: number | undefined }) {
  if (part.status === 'running') return now === undefined ? <TickingElapsed startedAt={part.started_at} /> : <Duration ms={now - part.started_at} rounding="floor" />
  const ms = isToolEnded(part.status) ? toolDurationMs(part) : undefined
  return ms === undefined ? null : <Duration ms={ms} rounding="tenths" />
}

/**
 * A running tool's complete input on the runtime's clock: plain until the tool has run long enough
 * (highlightsInput; a tool found running after a reload usually has), then highlighted; one tick
 * turns it on.
 */
function RunningInputCode({ shown, startedAt }: { shown: ShownToolInput; startedAt: number }) {
  const { clock } = useChatRuntime()
  // `started_at` is the daemon's time; placed on the browser's clock, as the elapsed time is.
  const from = clock.fromDaemon(startedAt)
  const nextTickIn = useCallback((at: number) => inputHighlightIn(at - from), [from])
  useTicker(nextTickIn)
  return <InputCode shown={shown} complete highlight={highlightsInput('running', clock.now() - from)} />
}

/** An input's JSON, then each of its text fields under its name and its count of lines. */
function InputCode({ shown, complete, highlight }: { shown: ShownToolInput; complete: boolean; highlight: boolean }) {
  const { t, i18n } = useTranslation()
  const fields = shown.fields ?? []
  return (
    <>
      {fields.length === 0 || shown.text !== '' ? <StepCode code={shown.text} tag={shown.tag} complete={complete} highlight={highlight} /> : null}
      {fields.map((field) => (
        <div key={field.name} className="step__field">
          <p className="step__field-title">
            <code>{field.name}</code>
            <span>{t('steps.fieldLines', { count: field.lines, lines: formatCount(field.lines, i18n.language) })}</span>
          </p>
          <StepCode code={field.text} tag={field.tag} complete={complete} highlight={highlight} />
        </div>
      ))}
    </>
  )
}

/** The whole output, once asked for. */
type FullOutput = { state: 'idle' } | { state: 'loading' } | { state: 'loaded'; text: string } | { state: 'failed'; error: unknown }

/** A tool's input: the tail of one being written, the head of a long complete one until the operator asks for all of it. */
function ToolInput({ part, stepKey, now }: { part: ToolPart; stepKey: string; now: number | undefined }) {
  const { t, i18n } = useTranslation()
  const lng = i18n.language
  const [whole, showWhole] = useWholeInput(stepKey)
  const writing = part.status === 'input'
  const running = part.status === 'running'
  const shown = useMemo(() => shownToolInput(part.input, part.status, whole), [part.input, part.status, whole])
  const shownChars = shown.text.length + (shown.fields ?? []).reduce((chars, field) => chars + field.text.length, 0)
  return (
    <div className="step__section">
      <div className="step__section-header">
        <span className="step__section-title">{t('steps.input')}</span>
        <CopyButton text={part.input} label={t('steps.copyInput')} />
      </div>
      {shown.omitted > 0 && writing ? (
        <p className="step__note">{t('steps.inputTail', { shown: formatCount(shown.text.length, lng), total: formatCount(part.input.length, lng) })}</p>
      ) : null}
      {shown.omitted > 0 && !writing ? (
        <div className="step__truncated">
          <p className="step__note">{t('steps.inputHead', { shown: formatCount(shownChars, lng), total: formatCount(shownChars + shown.omitted, lng) })}</p>
          <button type="button" className="button step__load" onClick={showWhole}>
            {t('steps.showWholeInput')}
          </button>
        </div>
      ) : null}
      {running && now === undefined ? (
        <RunningInputCode shown={shown} startedAt={part.started_at} />
      ) : (
        <InputCode shown={shown} complete={!writing} highlight={highlightsInput(part.status, now === undefined ? 0 : now - part.started_at)} />
      )}
    </div>
  )
}

function ToolOutput({ part, full, onLoad }: { part: ToolPart; full: FullOutput; onLoad: (() => void) | undefined }) {
  const { t, i18n } = useTranslation()
  const lng = i18n.language
  const loaded = full.state === 'loaded' ? full.text : undefined
  const output = loaded ?? part.output
  const truncated = loaded === undefined && part.output_truncated === true
  const shown = useMemo(() => (output === undefined ? undefined : shownToolOutput(output, truncated, part.input)), [output, truncated, part.input])
  if (output === undefined || shown === undefined) {
    return part.status === 'done' ? <p className="step__note">{t('steps.noOutput')}</p> : null
  }
  const total = part.output_bytes ?? utf8Length(output)
  return (
    <div className="step__section">
      <div className="step__section-header">
        <span className="step__section-title">{t('steps.output')}</span>
        {output ? <CopyButton text={output} label={t('steps.copyOutput')} /> : null}
      </div>
      {truncated ? (
        <div className="step__truncated">
          <p className="step__note">{t('steps.truncated', { shown: formatBytes(utf8Length(output), lng), total: formatBytes(total, lng) })}</p>
          {onLoad ? (
            <button type="button" className="button step__load" onClick={onLoad} disabled={full.state === 'loading'}>
              {full.state === 'loading' ? t('steps.loadingFull') : t('steps.loadFull')}
            </button>
          ) : null}
        </div>
      ) : null}
      {loaded !== undefined ? <p className="step__note">{t('steps.fullLoaded', { total: formatBytes(total, lng) })}</p> : null}
      {full.state === 'failed' ? (
        <div className="step__load-failed" role="alert">
          <p className="step__note">{t('steps.loadFailed')}</p>
          <FailureNotice thrown={full.error} />
        </div>
      ) : null}
      {output ? <StepCode code={shown.text} tag={shown.tag} complete /> : <p className="step__note">{t('steps.noOutput')}</p>}
    </div>
  )
}

/**
 * One tool call: a header that says which tool, whether it changes anything (`write`), where it is
 * (writing input, waiting for approval, running for how long, done in how long, failed, denied,
 * cancelled) and opens its input and output; a failure worded from its code; and, while it waits
 * for a decision, the slot for the decision's controls. Open while it is written, waits, runs or
 * failed; folded once done. Memoized on the part: a delta to another step does not re-render it.
 */
export const ToolStep = memo(function ToolStep({ part, stepKey, runId, earlier, now, onLoadOutput, approval }: ToolStepProps) {
  const { t, i18n } = useTranslation()
  const bodyId = useId()
  // Find went to this reply for words in the tool's input (its name is on show already): it opens to show them.
  const found = holdsNeedle(useFindNeedle(), i18n.language, part.input)
  const [open, toggle] = useDisclosure(stepKey, part.status, toolOpenByDefault(part.status, earlier) || found)
  // Here, not in the output: folding the tool keeps what was loaded (and so does scrolling it away).
  const [full, setFull] = useState<FullOutput>(() => {
    const text = keptOutput(stepKey)
    return text === undefined ? { state: 'idle' } : { state: 'loaded', text }
  })
  const id = part.tool_call_id
  const load =
    onLoadOutput && full.state !== 'loaded'
      ? () => {
          setFull({ state: 'loading' })
          onLoadOutput(id, runId).then(
            (text) => {
              keepOutput(stepKey, text)
              setFull({ state: 'loaded', text })
            },
            (error: unknown) => setFull({ state: 'failed', error }),
          )
        }
      : undefined
  return (
    <div className={`step step--tool step--${part.status}`} data-status={part.status} data-effect={part.effect}>
      <button type="button" className="step__toggle" aria-expanded={open} aria-controls={open ? bodyId : undefined} onClick={toggle}>
        <span className="step__chevron" aria-hidden="true" />
        <code className="step__name">{part.name}</code>
        <span className={`step__effect step__effect--${part.effect}`}>{t(`steps.effect.${part.effect}`)}</span>
        <span className={`step__status step__status--${part.status}`}>{t(`steps.status.${part.status}`)}</span>
        <ToolTime part={part} now={now} />
      </button>
      {part.status === 'failed' ? <FailureNotice error={part.error} className="failure step__failure" /> : null}
      {open ? (
        <div id={bodyId} className="step__body">
          <ToolInput part={part} stepKey={stepKey} now={now} />
          <ToolOutput part={part} full={full} onLoad={load} />
        </div>
      ) : null}
      {/* After the input: the operator reads what will run, then decides. */}
      {part.status === 'awaiting_approval' ? (
        <div className="step__approval">{approval ? approval(part, runId) : <p className="step__note">{t('steps.awaitingApproval')}</p>}</div>
      ) : null}
    </div>
  )
})
