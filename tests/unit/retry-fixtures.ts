/** Wire records the tier 2 scheduler suites build their histories from. */
import type { Message } from '../../src/wire/types'

export const SID = 'ses_1'

/** A failed reply to `replyTo`, transient and retryable unless overridden, dated now. */
export function failedReply(id: string, replyTo: string, overrides: Partial<Message> = {}): Message {
  return {
    id,
    session_id: SID,
    role: 'agent',
    content: '',
    created_at: Date.now(),
    superseded: false,
    reply_to: replyTo,
    run_id: `run_${id}`,
    status: 'failed',
    error: { code: 'model_rate_limited', message: 'Rate limited.' },
    retry: { retryable: true, retry_class: 'rate_limited' },
    ...overrides,
  }
}
