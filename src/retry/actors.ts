/**
 * The network side of the tier 2 machine, built from a daemon client: the regenerate request
 * and the cancel of a run the daemon accepted while the operator was cancelling.
 */
import { fromPromise } from 'xstate'
import type { DaemonClient } from '../wire/http'
import { strayRun } from './eligibility'
import { fromRegenerate, retryMachine, type CancelAcceptedInput, type CancelAcceptedOutput } from './machine'

export type RetryActorsOptions = {
  client: Pick<DaemonClient, 'regenerate' | 'cancelRun' | 'listMessages'>
  /**
   * History changed behind the transcript's back: after a regenerate is accepted, and after a
   * cancel stopped a run this tab never followed.
   */
  refreshHistory: (sessionId: string) => void
}

/** The machine with its network actors. */
export function retryMachineFor({ client, refreshHistory }: RetryActorsOptions) {
  return retryMachine.provide({
    actors: {
      regenerate: fromRegenerate(async (input, signal) => {
        const receipt = await client.regenerate(input.sessionId, input.anchorId, signal)
        refreshHistory(input.sessionId)
        return receipt
      }),
      cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(async ({ input }) => {
        if (input.runId) {
          await client.cancelRun(input.sessionId, input.runId)
          return { runId: input.runId }
        }
        // The request was aborted in flight: if the daemon accepted it anyway, cancel that run.
        const runId = strayRun(await client.listMessages(input.sessionId), input.anchorId, input.dispatchedAt)
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
