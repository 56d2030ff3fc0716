/**
 * Follows the event stream of every run a session's history shows as queued or streaming and
 * feeds its frames to the live-run store. After a reload it picks a run up where the tab left it,
 * with `Last-Event-ID`. When a run ends, history is read once for its persisted outcome, and only
 * then is the run's live record let go (so the text never rolls back to an older read). A run the
 * stream saw to `done` has told everything a read would (its message id, its whole text, its
 * status): the refresher may write that into the history it holds instead of reading it all again.
 *
 * A lost connection is never taken for the end of a run: the live store hears the connection's
 * state (the reply says it is reconnecting), and when a stream connects again the daemon is asked
 * for the run (`GET …/runs/:rid`): a run it has ended is settled from history, whatever the
 * stream still has to replay. A stream that cannot be read while the daemon says the run has
 * ended is settled the same way, never shown failed.
 */
import { isAbortError, RefusalError, RunEnded, StreamFailure } from '../wire/errors'
import { followOnPage } from '../wire/follow-on-page'
import { STREAM_IDLE_MS } from '../wire/liveness'
import type { DaemonClient } from '../wire/http'
import type { FollowRun } from '../wire/worker-follow'
import { isRunEnded } from '../wire/status'
import type { Message, Part, RunStatus, Usage, WireError } from '../wire/types'
import type { LiveRunStore } from './live-runs'

/** Runs worth following: agent replies in the main flow that have not ended. */
export function activeRuns(messages: readonly Message[] | undefined): Message[] {
  return (messages ?? []).filter((m) => m.role === 'agent' && !m.superseded && m.run_id && (m.status === 'queued' || m.status === 'streaming'))
}

/** A run whose stream ended `done`: what history would say of its reply. */
/** A run the stream saw complete: its reply as the stream ended it (text, steps and usage). */
export type SettledRun = { runId: string; messageId: string; content: string; parts: readonly Part[]; usage?: Usage }

/**
 * Why history is read again: `ended`, a run ended or was stopped (its end is read, from the first
 * reply still going on); `unsure`, anything else (another tab's news: the newest page is read
 * again, since a regenerate may have flagged earlier messages).
 */
type RefreshReason = 'ended' | 'unsure'

/**
 * Reads the session's history again and resolves once it is in. With `settled` (a run the stream
 * saw complete), writing that reply into the history held is as good as a read.
 */
export type HistoryRefresher = (sessionId: string, settled?: SettledRun, reason?: RefreshReason) => Promise<unknown>

export type RunFollowerOptions = {
  /** `getRun`, when given, is asked about a run whose stream connected again or could not be read. */
  client: Pick<DaemonClient, 'openEvents'> & Partial<Pick<DaemonClient, 'getRun'>>
  live: LiveRunStore
  /** Called when a run ends (see HistoryRefresher). */
  refreshHistory: HistoryRefresher
  /** Reads one run's stream: on the page by default, or in the stream worker (worker-follow.ts). */
  follow?: FollowRun
  /** A stream connected again after its connection was lost: the daemon answers again. */
  onReconnect?: () => void
}

export function createRunFollower({ client, live, refreshHistory, follow: readStream = followOnPage, onReconnect }: RunFollowerOptions) {
  /** Followed runs by id, with the session they belong to. */
  const followed = new Map<string, { sessionId: string; controller: AbortController }>()
  /**
   * Runs whose stream this page has read to its end (or given up on), by session: history may go
   * on showing one as running for a moment, and following it again would loop.
   */
  const finished = new Map<string, string>()

  async function follow(sessionId: string, reply: Message, signal: AbortSignal): Promise<void> {
    const runId = reply.run_id as string
    const lastEventId = live.begin(sessionId, runId, reply.content, reply.status, reply.parts)
    /** The daemon's word on the run once the stream is back: one it has ended is history's to show. */
    const confirm = async () => {
      const status = await askRun(client, sessionId, runId, signal)
      // Back after a break, anything may have happened meanwhile (another client's regenerate too):
      // the newest page is read again, not only the run's end.
      if (isRunEnded(status)) await refreshHistory(sessionId, undefined, 'unsure')
    }
    try {
      await readStream({
        client,
        sessionId,
        runId,
        lastEventId,
        signal,
        onFrame: (frame) => live.frame(runId, frame),
        onLink: (state) => {
          live.connection(runId, state)
          if (state !== 'open') return
          onReconnect?.()
          void confirm()
        },
      })
    } catch (error) {
      if (isAbortError(error) || signal.aborted) return
      // The daemon says the run ended while its stream could not be read: history tells how.
      if (!(error instanceof RunEnded)) live.fail(runId, streamError(error))
    }
    // The run ended (or the daemon no longer knows it): history has its persisted outcome. A
    // failed or cancelled run is always read: its error and retry classification are history's.
    const run = live.get(runId)
    const settled =
      run?.status === 'complete' && run.messageId
        ? { runId, messageId: run.messageId, content: run.content, parts: run.parts, ...(run.usage ? { usage: run.usage } : {}) }
        : undefined
    await refreshHistory(sessionId, settled, 'ended')
  }

  return {
    /**
     * Follows the session's active runs that are not followed yet. Runs of the session that history
     * no longer shows as active are left to end on their own (their stream closes after the end).
     */
    watch(sessionId: string, messages: readonly Message[]): void {
      // A run whose end history now records needs no live record: history's copy is shown. Until
      // then the record stays, so the stream's last word (its end, or why it broke off) stands. A
      // run the stream saw complete keeps its record until the session is let go: history may
      // have it ended only because its end was written in from the stream, and a read that has
      // not caught up with the daemon yet must not show the reply cut short and "writing" again.
      for (const [runId, owner] of finished) {
        if (owner !== sessionId || live.get(runId)?.status === 'complete') continue
        const reply = messages.find((m) => m.run_id === runId)
        if (reply && reply.status !== 'queued' && reply.status !== 'streaming') live.forget(runId)
      }
      for (const message of activeRuns(messages)) {
        const runId = message.run_id as string
        if (followed.has(runId) || finished.has(runId)) continue
        const controller = new AbortController()
        followed.set(runId, { sessionId, controller })
        void follow(sessionId, message, controller.signal).finally(() => {
          if (followed.get(runId)?.controller !== controller) return
          followed.delete(runId)
          finished.set(runId, sessionId)
        })
      }
    },

    /** Lets go of a session's connections (the view left it); the runs go on in the daemon. */
    release(sessionId: string): void {
      for (const [runId, owner] of finished) {
        if (owner !== sessionId) continue
        finished.delete(runId)
        // Its end is in history or will be: the next visit reads it from there.
        live.forget(runId)
      }
      for (const [runId, entry] of followed) {
        if (entry.sessionId !== sessionId) continue
        entry.controller.abort()
        followed.delete(runId)
        live.forget(runId)
      }
    },
  }
}

export type RunFollower = ReturnType<typeof createRunFollower>

/**
 * The run's status as the daemon tells it, or undefined when it cannot be asked now (no getRun,
 * no answer within STREAM_IDLE_MS, a failure): the stream's own end settles the reply then.
 */
async function askRun(client: RunFollowerOptions['client'], sessionId: string, runId: string, signal: AbortSignal): Promise<RunStatus | undefined> {
  if (!client.getRun || signal.aborted) return undefined
  const controller = new AbortController()
  const onAbort = () => controller.abort()
  signal.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => controller.abort(), STREAM_IDLE_MS)
  try {
    return (await client.getRun(sessionId, runId, controller.signal)).status
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  }
}

/** What a stream that could not be read to its end says on the reply. */
function streamError(error: unknown): WireError {
  // The connection could not be picked up again; the run may still finish in the daemon.
  if (error instanceof StreamFailure) return { code: error.code ?? '', message: error.message }
  // The daemon refused the stream (unauthorized, run_not_found…): if history still shows the run
  // going, this notice stands instead of a "Writing…" that never ends.
  if (error instanceof RefusalError) return { code: error.code, message: error.message }
  return { code: 'stream_ended', message: error instanceof Error ? error.message : String(error) }
}
