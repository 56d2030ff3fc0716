import { memo } from 'react'
import { useTranslation } from '../../../i18n/use-translation'
import { formatCount, formatUsd } from '../../../i18n/number-format'
import type { Usage } from '../../../wire/types'
import './usage-line.css'

/** Same figures: a total added up afresh on every commit of a streaming reply is a new object each time. */
const sameUsage = (a: { usage: Usage }, b: { usage: Usage }) =>
  a.usage.input_tokens === b.usage.input_tokens && a.usage.output_tokens === b.usage.output_tokens && a.usage.cost_usd === b.usage.cost_usd

/**
 * What the reply's run spent: tokens in and out, and the cost when the daemon knows it, in the
 * operator's number format. Memoized on the figures, which change once per model call.
 */
export const UsageLine = memo(function UsageLine({ usage }: { usage: Usage }) {
  const { t, i18n } = useTranslation()
  const lng = i18n.language
  return (
    <p className="usage">
      <span className="usage__item">{t('steps.tokensIn', { count: usage.input_tokens, tokens: formatCount(usage.input_tokens, lng) })}</span>
      <span className="usage__item">{t('steps.tokensOut', { count: usage.output_tokens, tokens: formatCount(usage.output_tokens, lng) })}</span>
      {usage.cost_usd !== undefined ? <span className="usage__item">{t('steps.cost', { cost: formatUsd(usage.cost_usd, lng) })}</span> : null}
    </p>
  )
}, sameUsage)
