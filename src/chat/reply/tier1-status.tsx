import { useCallback } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import type { TFunction } from 'i18next'
import { countdownSeconds } from '../../i18n/format'
import type { Tier1Wait } from '../../live/live-runs'
import { useChatRuntime } from '../runtime'
import { useTicker } from '../use-ticker'

const SECOND_MS = 1000

/** The short cause of a tier 1 wait, worded from the failure's code. */
export function tier1Cause(t: TFunction, code: string): string {
  switch (code) {
    case 'model_rate_limited':
    case 'model_unavailable':
    case 'model_unreachable':
      return t(`tier1.cause.${code}`)
    default:
      return t('tier1.cause.other')
  }
}

/**
 * The daemon's own fast retry (tier 1) while it waits inside the run: why, which attempt of how
 * many, and a countdown to it. Stop, beside it on the reply, cancels the run and the wait.
 */
export function Tier1Status({ wait, now: fixedNow }: { wait: Tier1Wait; now?: number }) {
  const { t } = useTranslation()
  const { clock } = useChatRuntime()
  const nextTickIn = useCallback(
    (clockNow: number): number | null => {
      if (fixedNow !== undefined) return null
      const left = wait.retryAt - clockNow
      return left > 0 ? left % SECOND_MS || SECOND_MS : null
    },
    [fixedNow, wait.retryAt],
  )
  useTicker(nextTickIn)
  const seconds = countdownSeconds(wait.retryAt - (fixedNow ?? clock.now()))
  const values = { cause: tier1Cause(t, wait.code), attempt: wait.attempt, max: wait.maxAttempts, seconds }
  return (
    <p className="tier1" data-tier1={wait.attempt}>
      {seconds > 0 ? t('tier1.waiting', values) : t('tier1.starting', values)}
    </p>
  )
}
