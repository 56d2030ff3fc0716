/** The session list: read (and kept fresh), and create. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { useChatRuntime } from '../runtime'
import { chatKeys, isBlankSession, sessionsQuery } from '../../thread/history'

/** How often the list is read again, so status and titles from other tabs show up. */
const SESSIONS_REFRESH_MS = 15_000

export function useSessions() {
  const runtime = useChatRuntime()
  return useQuery({ ...sessionsQuery(runtime), refetchInterval: SESSIONS_REFRESH_MS })
}

/**
 * Calls `moved` with the list's `updated_at` of `sessionId` each time it moves on from what it
 * said before (not on the first reading): something happened in the session, perhaps done by
 * another client of the daemon (a message sent, a run started or ended), that the view's own
 * streams do not carry.
 */
export function useSessionMoved(sessionId: string, moved: (updatedAt: number) => void): void {
  const updatedAt = useSessions().data?.find((session) => session.id === sessionId)?.updated_at
  const seen = useRef<{ sessionId: string; updatedAt: number }>(undefined)
  const latest = useRef(moved)
  useEffect(() => {
    latest.current = moved
  })
  useEffect(() => {
    if (updatedAt === undefined) return
    const before = seen.current
    seen.current = { sessionId, updatedAt }
    if (before?.sessionId === sessionId && updatedAt > before.updatedAt) latest.current(updatedAt)
  }, [sessionId, updatedAt])
}

/**
 * Creates a session with no title: the daemon titles it by its first message, and until then the
 * list labels it in the operator's current language.
 */
function useCreateSession() {
  const { client } = useChatRuntime()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => client.createSession(),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: chatKeys.sessions }),
  })
}

/**
 * "New session": a session made and handed to `opened`; or, when the session in view is as new as
 * one just made (nothing in it, nothing typed), that one, so each click does not leave another
 * empty "Untitled session" behind. Once at a time.
 */
export function useNewSession(currentId: string | undefined, opened: (sessionId: string) => void) {
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const create = useCreateSession()
  const start = () => {
    if (currentId !== undefined && isBlankSession(queryClient, runtime, currentId)) return opened(currentId)
    if (!create.isPending) create.mutate(undefined, { onSuccess: (session) => opened(session.id) })
  }
  return { start, create }
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
