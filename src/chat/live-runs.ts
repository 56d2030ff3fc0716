/**
 * What the client has read from each run's event stream. The stream is merged into the messages
 * query cache; this record keeps the streamed text authoritative while a run is followed, so a
 * refetch of history that started a few deltas earlier cannot roll the text back or double it,
 * and it survives a reload (sessionStorage) so the client reattaches with `Last-Event-ID`.
 */
import type { Message, MessageStatus, WireError } from '../wire/types'

export type LiveRun = {
  runId: string
  sessionId: string
  lastEventId: number | undefined
  content: string
  status: MessageStatus
  error?: WireError
  /** Runs ahead of this one while queued. */
  position?: number
}

const KEY_PREFIX = 'rebound.live-run.'

export type LiveRunStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

export function createLiveRuns(storage: LiveRunStorage | undefined) {
  const runs = new Map<string, LiveRun>()

  return {
    get(runId: string): LiveRun | undefined {
      const known = runs.get(runId)
      if (known) return known
      const saved = restore(storage, runId)
      if (saved) runs.set(runId, saved)
      return saved
    },
    set(run: LiveRun) {
      runs.set(run.runId, run)
      try {
        if (run.status === 'queued' || run.status === 'streaming') storage?.setItem(KEY_PREFIX + run.runId, JSON.stringify(run))
        else storage?.removeItem(KEY_PREFIX + run.runId)
      } catch {
        // Storage full or blocked: a reload then replays the run from its first event instead.
      }
    },
    /**
     * Lays what was streamed over what history says. History wins once it records the run as
     * ended (it carries the persisted error and retry classification); until then the stream does.
     */
    overlay(messages: Message[]): Message[] {
      return messages.map((message) => {
        const live = message.run_id ? runs.get(message.run_id) : undefined
        if (!live) return message
        const historyActive = message.status === 'queued' || message.status === 'streaming'
        if (!historyActive) return message
        return applyLive(message, live)
      })
    },
  }
}

export type LiveRuns = ReturnType<typeof createLiveRuns>

/** Messages whose state came from the stream rather than from history (see isStreamed). */
const streamed = new WeakSet<Message>()

/** The message as the stream has it. */
export function applyLive(message: Message, live: LiveRun): Message {
  const next: Message = { ...message, content: live.content, status: live.status }
  if (live.error) next.error = live.error
  streamed.add(next)
  return next
}

/**
 * True when this message object was written from the stream. A failure seen only on the stream
 * carries no retry classification yet; the retry scheduler waits for history's copy.
 */
export function isStreamed(message: Message): boolean {
  return streamed.has(message)
}

function restore(storage: LiveRunStorage | undefined, runId: string): LiveRun | undefined {
  try {
    const raw = storage?.getItem(KEY_PREFIX + runId)
    if (!raw) return undefined
    const v = JSON.parse(raw) as Partial<LiveRun>
    if (typeof v.content !== 'string' || typeof v.sessionId !== 'string' || typeof v.lastEventId !== 'number') return undefined
    return { runId, sessionId: v.sessionId, content: v.content, lastEventId: v.lastEventId, status: v.status === 'queued' ? 'queued' : 'streaming' }
  } catch {
    return undefined
  }
}
