/**
 * The threads of this tab, one per session, made when a view first asks for one. A thread keeps
 * no stream or scheduler while no view is connected to it, so keeping the object is cheap; a
 * deleted session's thread is forgotten.
 */
import type { QueryClient } from '@tanstack/query-core'
import type { ChatRuntime } from './runtime'
import { createThread, type Thread } from './thread'

export type Threads = ReturnType<typeof createThreads>

export function createThreads(runtime: ChatRuntime, queryClient: QueryClient) {
  const threads = new Map<string, Thread>()
  return {
    get(sessionId: string): Thread {
      let thread = threads.get(sessionId)
      if (!thread) {
        thread = createThread(runtime, queryClient, sessionId)
        threads.set(sessionId, thread)
      }
      return thread
    },
    forget(sessionId: string): void {
      threads.delete(sessionId)
    },
  }
}
