/**
 * The stream worker's entry: a dedicated worker that reads runs' event streams for the page (see
 * stream-worker-host.ts). Started by worker-follow.ts on the first run followed.
 */
import { serveStreams, type HostPort } from './stream-worker-host'
import { createStreamTrees } from '../markdown/stream-trees'
import { batchPace } from '../live/pacing'

serveStreams(self as unknown as HostPort, { trees: createStreamTrees, pace: batchPace })
