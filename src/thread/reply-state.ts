/**
 * What one reply shows and offers, from its history record, its run's live record and its
 * anchor's tier 2 scheduler: a pure function, so the rule "while the scheduler owns a reply, its
 * own Retry now and Cancel are the way to act, not Regenerate" is tested without a DOM.
 */
import { overlay, type LiveRun, type ShownMessage } from '../live/live-runs'
import type { RetrySnapshot } from '../retry/machine'
import { belongsTo, isCancellable, retryView, type RetryStatus, type RetryView } from '../retry/view'
import type { Message } from '../wire/types'
import { isArmable } from '../retry/eligibility'

export type ReplyState = {
  /** History with the stream laid over it. */
  shown: ShownMessage
  /** The scheduler's view, when it belongs on this reply and is not idle. */
  retry: ShownRetry | undefined
  /** Regenerate is offered: the reply has an anchor and the scheduler does not own it. */
  canRegenerate: boolean
}

/** A scheduler's view with something to show. */
type ShownRetry = RetryView & { status: Exclude<RetryStatus, 'idle'> }

const isShown = (view: RetryView | undefined): view is ShownRetry => view !== undefined && view.status !== 'idle'

export function replyState(message: Message, live: LiveRun | undefined, scheduler: RetrySnapshot | undefined, now: number): ReplyState {
  const shown = overlay(message, live)
  const view = scheduler && belongsTo(scheduler, shown) ? retryView(scheduler, now) : undefined
  const retry = isShown(view) ? view : undefined
  return { shown, retry, canRegenerate: message.reply_to !== undefined && !(retry && isCancellable(retry.status)) }
}

/**
 * The retry class worth saying under a failure: the daemon's classification of a failure tier 2
 * will not retry (too long, no credentials, a spend limit…), which tells the operator whether
 * trying again can help. A failure tier 2 retries says so in its own box, and a coarse failure
 * with no classification has nothing to say.
 */
export function explainedClass(message: Message): string | undefined {
  if (message.status !== 'failed' || !message.retry) return undefined
  return isArmable(message) ? undefined : message.retry.retry_class
}
