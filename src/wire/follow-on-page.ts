/**
 * Reading a run's stream on the page itself, its reader (./events.ts and the SSE parser) fetched
 * with the first run followed. A built page reads streams in the stream worker and needs this
 * only where that worker cannot start or its code cannot be fetched; the in-browser mock daemon
 * and the tests read here. Either way it is not part of the page's first script.
 */
import type { FollowRun } from './worker-follow'

type Reader = typeof import('./events')

/** The reader once it has arrived: every run after that is read at once. */
let loaded: Reader | undefined

/** Fetches the reader (a fetch that failed is tried again by the next call). Tests wait for it before their first render. */
export function loadPageReader(): Promise<Reader> {
  return import('./events').then((reader) => (loaded = reader))
}

export const followOnPage: FollowRun = (options) => (loaded ? loaded.followRun(options) : loadPageReader().then((reader) => reader.followRun(options)))
