/**
 * Which runs a run follower is following, seen from outside it: a run is followed from the moment
 * its stream is asked for until the history read after its end has come back, or until the
 * follower lets go of it (its stream aborted). The follower keeps no public record of it; tests
 * hand it this probe's stream reader and history refresher instead.
 */
import type { FollowRunOptions } from '../../src/wire/events'
import { followRun } from '../../src/wire/events'
import type { FollowRun } from '../../src/wire/worker-follow'

export function followProbe<R extends (sessionId: string, ...rest: never[]) => Promise<unknown>>(refresh: R, read: FollowRun = followRun) {
  const streams = new Map<string, AbortSignal>()
  /** Runs whose stream ended, by session, until the history read after it comes back. */
  const ending = new Map<string, string>()
  const follow: FollowRun = async (options: FollowRunOptions) => {
    streams.set(options.runId, options.signal)
    try {
      return await read(options)
    } finally {
      if (streams.get(options.runId) === options.signal) streams.delete(options.runId)
      if (!options.signal.aborted) ending.set(options.runId, options.sessionId)
    }
  }
  const refreshHistory = (async (sessionId: string, ...rest: never[]) => {
    try {
      return await refresh(sessionId, ...rest)
    } finally {
      for (const [runId, owner] of ending) if (owner === sessionId) ending.delete(runId)
    }
  }) as unknown as R
  const following = (runId: string): boolean => {
    const signal = streams.get(runId)
    return (signal !== undefined && !signal.aborted) || ending.has(runId)
  }
  return { follow, refreshHistory, following }
}
