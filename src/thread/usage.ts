/**
 * What a session spent: every run's usage added up, superseded and failed runs included, so an
 * operator sees what retries cost. A running reply's usage grows on the stream; the thread adds
 * the settled runs and the view adds the running one from its live record.
 */
import type { Message, Usage } from '../wire/types'
import { isActive } from '../wire/status'

/** `a + b`; a cost is known when either side knows one (the total of the costs known). */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b
  if (!b) return a
  const cost = a.cost_usd === undefined && b.cost_usd === undefined ? undefined : (a.cost_usd ?? 0) + (b.cost_usd ?? 0)
  return { input_tokens: a.input_tokens + b.input_tokens, output_tokens: a.output_tokens + b.output_tokens, ...(cost === undefined ? {} : { cost_usd: cost }) }
}

/** The usage of every agent message of `messages` that is not running (superseded and failed included). */
export function settledUsage(messages: readonly Message[]): Usage | undefined {
  let total: Usage | undefined
  for (const m of messages) if (m.role === 'agent' && !isActive(m.status)) total = addUsage(total, m.usage)
  return total
}
