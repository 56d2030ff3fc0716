/** The session list: read (and kept fresh), and create. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useChatRuntime } from '../runtime'
import { chatKeys, sessionsQuery } from '../../thread/history'

/** How often the list is read again, so status and titles from other tabs show up. */
const SESSIONS_REFRESH_MS = 15_000

export function useSessions() {
  const runtime = useChatRuntime()
  return useQuery({ ...sessionsQuery(runtime), refetchInterval: SESSIONS_REFRESH_MS })
}

/**
 * Creates a session with no title: the daemon titles it by its first message, and until then the
 * list labels it in the operator's current language.
 */
export function useCreateSession() {
  const { client } = useChatRuntime()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => client.createSession(),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: chatKeys.sessions }),
  })
}

/** Renames a session; the list is read again either way (another tab may have renamed it too). */
export function useRenameSession() {
  const { client } = useChatRuntime()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ sessionId, title }: { sessionId: string; title: string }) => client.renameSession(sessionId, title),
    onSettled: () => queryClient.invalidateQueries({ queryKey: chatKeys.sessions }),
  })
}

/**
 * Deletes a session (the daemon stops its running reply first). Its cached history goes with it,
 * and the core lets go of its streams and schedulers.
 */
export function useDeleteSession() {
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (sessionId: string) => runtime.client.deleteSession(sessionId),
    onSuccess: (_, sessionId) => {
      runtime.follower.release(sessionId)
      runtime.retry.release(sessionId)
      queryClient.removeQueries({ queryKey: chatKeys.messages(sessionId) })
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: chatKeys.sessions }),
  })
}
