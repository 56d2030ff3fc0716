/**
 * Follows the event stream of every run that history shows as queued or streaming, and merges
 * each frame into the messages cache. After a reload it picks a run up where the tab left it,
 * with `Last-Event-ID`. When a run ends, history is read again for its persisted outcome.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query'
import { useEffect, useMemo, useRef } from 'react'
import { isAbortError, RefusalError, StreamFailure } from '../wire/errors'
import { followRun } from '../wire/events'
import type { Message, StreamFrame } from '../wire/types'
import { applyLive, type LiveRun } from './live-runs'
import { chatKeys, patchMessage } from './queries'
import { useChatRuntime, type ChatRuntime } from './runtime'

/** Runs worth following: agent replies in the main flow that have not ended. */
export function activeRunIds(messages: readonly Message[] | undefined): string[] {
  return (messages ?? [])
    .filter((m) => m.role === 'agent' && !m.superseded && m.run_id && (m.status === 'queued' || m.status === 'streaming'))
    .map((m) => m.run_id as string)
}

export function useRunStreams(sessionId: string | undefined, messages: readonly Message[] | undefined): void {
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const followed = useRef(new Map<string, AbortController>())
  const runIds = activeRunIds(messages)
  const key = runIds.join(' ')
  const wanted = useMemo(() => (key ? key.split(' ') : []), [key])

  useEffect(() => {
    if (!sessionId) return
    for (const runId of wanted) {
      if (followed.current.has(runId)) continue
      const controller = new AbortController()
      followed.current.set(runId, controller)
      void follow(runtime, queryClient, sessionId, runId, controller.signal).finally(() => {
        if (followed.current.get(runId) === controller) followed.current.delete(runId)
      })
    }
  }, [runtime, queryClient, sessionId, wanted])

  // Leaving the session (or unmounting) lets go of its connections; the runs go on in the daemon.
  useEffect(() => {
    const map = followed.current
    return () => {
      for (const controller of map.values()) controller.abort()
      map.clear()
    }
  }, [sessionId])
}

async function follow(runtime: ChatRuntime, queryClient: QueryClient, sessionId: string, runId: string, signal: AbortSignal): Promise<void> {
  const { client, live } = runtime
  const resumed = live.get(runId)
  let state: LiveRun = resumed ?? { runId, sessionId, lastEventId: undefined, content: '', status: 'queued' }
  const byRun = (m: Message) => m.run_id === runId

  const publish = (next: LiveRun) => {
    state = next
    live.set(next)
    const found = patchMessage(queryClient, sessionId, byRun, (m) => applyLive(m, next))
    // A run the cache does not know yet (a receipt that raced the history read): read history again.
    if (!found) void queryClient.invalidateQueries({ queryKey: chatKeys.messages(sessionId) })
  }

  if (resumed) publish(resumed)
  try {
    await followRun({
      client,
      sessionId,
      runId,
      lastEventId: state.lastEventId,
      signal,
      onFrame: (frame) => publish(reduceFrame(state, frame)),
    })
  } catch (error) {
    if (isAbortError(error) || signal.aborted) return
    if (error instanceof StreamFailure) {
      // The connection could not be picked up again; the run may still finish in the daemon.
      publish({ ...state, status: 'failed', error: { code: error.code ?? '', message: error.message } })
    } else if (error instanceof RefusalError) {
      // The daemon refused the stream (unauthorized, run_not_found…). Say so on the reply: if
      // history still shows the run going, this notice stands instead of a "Writing…" that never ends.
      publish({ ...state, status: 'failed', error: { code: error.code, message: error.message } })
    } else {
      publish({ ...state, status: 'failed', error: { code: 'stream_ended', message: error instanceof Error ? error.message : String(error) } })
    }
  }
  // The run ended (or the daemon no longer knows it): history has its persisted outcome.
  await queryClient.invalidateQueries({ queryKey: chatKeys.messages(sessionId) })
  void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
}

/** The next live state of a run after one frame. */
export function reduceFrame(run: LiveRun, frame: StreamFrame): LiveRun {
  const base = { ...run, lastEventId: frame.id }
  switch (frame.type) {
    case 'queued':
      return { ...base, status: 'queued', position: frame.position }
    case 'start':
      // A replay from the first event rebuilds the text from nothing.
      return { ...base, status: 'streaming', content: '', position: undefined }
    case 'retrying':
      return base
    case 'delta':
      return { ...base, status: 'streaming', content: run.content + frame.text }
    case 'done':
      return { ...base, status: 'complete' }
    case 'cancelled':
      return { ...base, status: 'cancelled' }
    case 'error':
      return { ...base, status: 'failed', error: { code: frame.code ?? '', message: frame.message } }
  }
}
