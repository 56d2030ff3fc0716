/**
 * The trees the stream worker parsed (stream-trees.ts), waiting on the page for the render that
 * asks for them by their Markdown (reply-markdown.tsx). A finished block's tree is taken once (the
 * page keeps the block's elements after that); only the newest growing block of each stream is
 * held, as every batch's replaces the one before. What nobody asks for is let go oldest first,
 * past a bound on the Markdown held.
 */
import type { BlockTree } from './parse'
import type { StreamTrees } from './stream-trees'
import { createTextKeyed } from './text-keyed'

/** Markdown characters of finished blocks held at most (their trees are some tens of bytes a character). */
const HELD_CHARACTERS = 100_000

const finished = createTextKeyed<BlockTree>(HELD_CHARACTERS)
/** The growing block of each stream, by the stream's id. */
const growing = new Map<number, readonly [string, BlockTree]>()

/** Takes what the worker sent with one batch of stream `stream`; `ended` drops its growing block. */
export function offerTrees(stream: number, trees: StreamTrees | undefined, ended = false): void {
  for (const [source, tree] of trees?.finished ?? []) if (!finished.has(source)) finished.set(source, tree)
  if (trees?.live) growing.set(stream, trees.live)
  if (ended) growing.delete(stream)
}

/**
 * The worker's tree for `source`, if it sent one: a finished block's is handed over once, the
 * growing block's for as long as it is the stream's newest.
 */
export function takeTree(source: string, complete: boolean): BlockTree | undefined {
  if (complete) return finished.take(source)
  for (const [live, tree] of growing.values()) if (live === source) return tree
  return undefined
}
