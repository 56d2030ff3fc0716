/**
 * The network side of the tier 2 machine, built from a daemon client: the regenerate request,
 * dispatched once per attempt across the tabs (a Web Lock per session and anchor), and the cancel
 * of a run the daemon accepted while the operator was cancelling.
 */
import { fromPromise } from 'xstate'
import { LOCK_PREFIX, type LockManagerLike } from '../storage/locks'
import type { DaemonClient } from '../wire/http'
import type { RegenerateReceipt } from '../wire/types'
import { strayRun } from './eligibility'
import {
  fromRegenerate,
  isRegenerateRefusal,
  lostDispatch,
  retryMachine,
  type CancelAcceptedInput,
  type CancelAcceptedOutput,
  type Declined,
  type LostDispatch,
  type NetworkProbe,
  type RegenerateInput,
} from './machine'
import { retryDeadline } from './schedule'
import type { BoardRecord, RetryBoard } from './board'

type DispatchOptions = {
  client: Pick<DaemonClient, 'regenerate' | 'cancelRun' | 'listMessagesPage'>
  /**
   * History changed behind the transcript's back: after a regenerate is accepted, and after a
   * cancel stopped a run this tab never followed.
   */
  refreshHistory: (sessionId: string) => void
  /** The tabs' locks: one per session and anchor while an attempt is being dispatched. */
  locks?: LockManagerLike
  /** The schedule the tabs share; the lock holder checks it before sending anything. */
  board?: RetryBoard
  clock?: { now(): number }
  network?: NetworkProbe
}

/**
 * How much of a session's end is read to find a run a lost request may have started: a run the
 * daemon started just now writes its reply at the end, so the newest page holds it however long
 * the session is.
 */
const STRAY_PAGE = 100

/** The session's newest page: where a run a lost request started would be. */
const newestPage = (client: DispatchOptions['client'], sessionId: string, signal?: AbortSignal) => client.listMessagesPage(sessionId, { limit: STRAY_PAGE }, signal)

/** The lock a tab holds while it dispatches an attempt for this anchor. */
const dispatchLockName = (sessionId: string, anchorId: string) =>
  `${LOCK_PREFIX}retry.${encodeURIComponent(sessionId)}.${encodeURIComponent(anchorId)}`

/**
 * One attempt, dispatched by exactly one tab. Every tab whose countdown ends asks for the
 * anchor's lock (waiting its turn; an operator's cancel stops the wait); the holder reads the
 * shared record and sends only when no tab has sent this attempt yet. A later holder finds the
 * attempt sent and follows the run the first one started, or finds the schedule moved on or
 * cancelled and sends nothing.
 */
async function dispatchOnce(
  { client, refreshHistory, locks, board, clock = Date, network }: DispatchOptions,
  input: RegenerateInput,
  signal: AbortSignal,
): Promise<RegenerateReceipt | Declined> {
  const send = async (): Promise<RegenerateReceipt> => {
    const sentAt = clock.now()
    let receipt: RegenerateReceipt
    try {
      receipt = await client.regenerate(input.sessionId, input.anchorId, signal)
    } catch (error) {
      // The answer was lost, not necessarily the request: a run the daemon started anyway is
      // this attempt's run (followed, and cancelled by a Cancel), never a stray beside the next.
      if (signal.aborted || isRegenerateRefusal(error)) throw error
      const landed = await newestPage(client, input.sessionId, signal)
        .then((page) => strayRun(page.messages, input.anchorId, sentAt))
        .catch(() => undefined)
      signal.throwIfAborted()
      if (!landed) throw error
      receipt = { run_id: landed, superseded: [], queued: false }
    }
    // Cancelled here while the answer travelled: the cancel's own revoke takes care of the run.
    signal.throwIfAborted()
    refreshHistory(input.sessionId)
    return receipt
  }
  if (!locks || !board || input.failureId === null) return send()
  const failureId = input.failureId
  return locks.request(dispatchLockName(input.sessionId, input.anchorId), { signal }, async () => {
    signal.throwIfAborted()
    const record = board.read(input.sessionId, input.anchorId)
    if (record) {
      if (record.failureId !== failureId) {
        // A newer failure is on the board: this tab's view of the anchor is behind.
        if (record.failureCreatedAt > (input.failureCreatedAt ?? 0)) return { skipped: 'stale' }
      } else {
        if (record.phase === 'cancelled') return { skipped: 'cancelled' }
        if (record.phase === 'dismissed' || record.phase === 'settled') return { skipped: 'stale' }
        // An attempt another tab made and lost is not sent again: count down to the next it armed.
        if (record.attempt > input.attempt) return record.phase === 'armed' ? { skipped: 'rearm' } : { skipped: 'stale' }
        if (record.attempt === input.attempt && record.phase === 'watching' && record.runId) {
          // Another tab sent this attempt: follow its run rather than send a second.
          return { run_id: record.runId, superseded: [], queued: false }
        }
        if (record.attempt === input.attempt && record.phase === 'dispatching' && record.dispatchedAt !== undefined) {
          // A tab that went away mid-request (its lock is gone) may have landed it: follow that run.
          const landed = strayRun((await newestPage(client, input.sessionId, signal)).messages, input.anchorId, record.dispatchedAt)
          // A cancel that came during the look-up (here or in another tab) wins over it.
          signal.throwIfAborted()
          if (board.read(input.sessionId, input.anchorId)?.phase === 'cancelled') return { skipped: 'cancelled' }
          if (landed) {
            board.update(input.sessionId, input.anchorId, failureId, { phase: 'watching', runId: landed })
            refreshHistory(input.sessionId)
            return { run_id: landed, superseded: [], queued: false }
          }
        }
      }
    }
    const held = record?.failureId === failureId ? record.held : undefined
    board.write(input.sessionId, input.anchorId, {
      failureId,
      failureCreatedAt: input.failureCreatedAt ?? 0,
      attempt: input.attempt,
      deadline: record?.failureId === failureId ? record.deadline : clock.now(),
      paused: false,
      // The hold is the failure's, not the attempt's: a lost attempt is held again in every tab.
      ...(held ? { held } : {}),
      phase: 'dispatching',
      dispatchedAt: clock.now(),
    })
    let receipt: RegenerateReceipt
    try {
      receipt = await send()
    } catch (error) {
      // Say on the board how the attempt ended before the lock passes on, so the next holder
      // neither sends it again nor stays behind: the outcome the machine takes (`lostDispatch`).
      if (!signal.aborted) board.update(input.sessionId, input.anchorId, failureId, boardAfter(lostDispatch(error, network?.online() === false), input.attempt, clock.now()))
      throw error
    }
    // A cancel in another tab while this request was on the wire is a cancel here too: the run
    // it started is cancelled at once.
    if (board.read(input.sessionId, input.anchorId)?.phase === 'cancelled') {
      await client.cancelRun(input.sessionId, receipt.run_id).catch(() => undefined)
      refreshHistory(input.sessionId)
      return { skipped: 'cancelled', runId: receipt.run_id }
    }
    board.update(input.sessionId, input.anchorId, failureId, { phase: 'watching', runId: receipt.run_id })
    return receipt
  })
}

/** What the board says of an attempt lost as `lost`, at `now`: where the machine goes next. */
function boardAfter(lost: LostDispatch, attempt: number, now: number): Partial<BoardRecord> {
  switch (lost) {
    case 'refused':
      return { phase: 'settled' }
    case 'offline':
      return { phase: 'armed', deadline: now, paused: false }
    case 'lost':
      return { phase: 'armed', attempt: attempt + 1, ...retryDeadline({ attempt: attempt + 1, now }) }
  }
}

/** The machine with its network actors. */
export function retryMachineFor(options: DispatchOptions) {
  const { client, refreshHistory } = options
  return retryMachine.provide({
    actors: {
      regenerate: fromRegenerate((input, signal) => dispatchOnce(options, input, signal)),
      cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(async ({ input }) => {
        if (input.runId) {
          await client.cancelRun(input.sessionId, input.runId)
          return { runId: input.runId }
        }
        // The request was aborted in flight: if the daemon accepted it anyway, cancel that run.
        const runId = strayRun((await newestPage(client, input.sessionId)).messages, input.anchorId, input.dispatchedAt)
        if (!runId) return {}
        await client.cancelRun(input.sessionId, runId)
        // The client never followed this run: without a fresh read the transcript would go on
        // showing the reply it superseded as the current one.
        refreshHistory(input.sessionId)
        return { runId }
      }),
    },
  })
}
