/**
 * The fault simulator, shown only with the in-browser mock daemon: queue outcomes for the next
 * runs and sends (the same plan as `?faults=` and `window.__mockDaemon.plan`), see what is still
 * pending, and reset the daemon.
 */
import { useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useTranslation } from '../i18n/use-translation'
import { OUTCOME_FORMS, SIMPLE_OUTCOMES, STEP_OUTCOMES, UnknownOutcomeError } from '../../mocks/faults'

const QUICK = [
  'ok',
  'slow',
  'hang',
  'tier1:1',
  'tier1:2',
  'tier1:3',
  'rate_limited',
  'rate_limited:20',
  'rate_limited:90',
  'quota:50',
  'overloaded',
  'auth_failed',
  'context_overflow',
  'code:answer_empty',
  'unknown_code',
  'raw',
  'drop',
  'accept_then_drop',
  'send_error',
  'plain',
  'approval',
  'tools:3',
  'long_tool:30',
  'silent:50',
] as const

/** The input's suggestions: every outcome taking no argument, and the argument forms as the quick buttons fill them in. */
const SUGGESTIONS = [...SIMPLE_OUTCOMES, ...STEP_OUTCOMES, ...QUICK.filter((o) => o.includes(':'))]

/** A refused plan, kept as a value and worded at render, so a language switch rewords it. */
type PlanError = { entry: string; position: number }

export default function SimulatorPanel() {
  const { t } = useTranslation()
  const queryClient = useQueryClient()
  const daemon = window.__mockDaemon
  const [plan, setPlan] = useState<string[]>(() => daemon?.state().plan ?? [])
  const [text, setText] = useState('')
  const [error, setError] = useState<PlanError>()
  if (!daemon) return null

  const apply = (faults: string[]) => {
    try {
      setPlan(daemon.plan(faults))
      setError(undefined)
    } catch (e) {
      // Only a plan entry that is not an outcome is the operator's to fix; anything else is a bug.
      if (!(e instanceof UnknownOutcomeError)) throw e
      setError({ entry: String(e.entry), position: e.position + 1 })
    }
  }
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    const faults = text.split(',').map((s) => s.trim()).filter(Boolean)
    apply(faults)
    if (faults.length > 0) setText('')
  }

  return (
    <details className="simulator" onToggle={() => setPlan(daemon.state().plan)}>
      <summary>{t('simulator.title')}</summary>
      <p>
        {t('simulator.pendingNow')} <code>{plan.length > 0 ? plan.join(', ') : t('simulator.none')}</code>
      </p>
      <div className="simulator__row">
        {QUICK.map((outcome) => (
          <button key={outcome} type="button" className="button" onClick={() => apply([...daemon.state().plan, outcome])}>
            {outcome}
          </button>
        ))}
      </div>
      <form className="simulator__row" onSubmit={onSubmit}>
        <label className="visually-hidden" htmlFor="simulator-plan">
          {t('simulator.pending')}
        </label>
        <input id="simulator-plan" value={text} list="simulator-outcomes" placeholder={t('simulator.placeholder')} onChange={(e) => setText(e.target.value)} />
        <datalist id="simulator-outcomes">
          {SUGGESTIONS.map((o) => (
            <option key={o} value={o} />
          ))}
        </datalist>
        <button type="submit" className="button">
          {t('simulator.apply')}
        </button>
      </form>
      {error ? (
        <p className="failure" role="alert">
          {/* The outcome names stay verbatim in every language: they are what the operator types. */}
          {t('simulator.invalid', { entry: error.entry, position: error.position, forms: OUTCOME_FORMS.join(', ') })}
        </p>
      ) : null}
      <div className="simulator__row">
        <button type="button" className="button" onClick={() => apply([])}>
          {t('simulator.clear')}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            daemon.reset()
            setPlan([])
            void queryClient.invalidateQueries()
          }}
        >
          {t('simulator.reset')}
        </button>
      </div>
    </details>
  )
}
