/** Stop and Regenerate: the two run mutations of a session view, each owning its history read. */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useChatRuntime } from '../runtime'
import { refreshSession } from './queries'

/** Stop: cancels a run; the daemon answers with its final status, and history is read again. */
export function useStopRun(sessionId: string) {
  const { client, historyChanged } = useChatRuntime()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (runId: string) => client.cancelRun(sessionId, runId),
    onSettled: () => {
      historyChanged(sessionId)
      return refreshSession(queryClient, sessionId)
    },
  })
}

/**
 * Regenerate by hand, from an operator message. The tier 2 scheduler of that anchor is
 * dismissed first: the operator has taken over.
 */
export function useRegenerate(sessionId: string) {
  const { client, retry, historyChanged } = useChatRuntime()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (anchorId: string) => client.regenerate(sessionId, anchorId),
    // In every tab: the board says the countdown of this anchor is over.
    onMutate: (anchorId) => retry.dismiss(sessionId, anchorId),
    onSettled: () => {
      historyChanged(sessionId)
      return refreshSession(queryClient, sessionId)
    },
  })
}
