/**
 * The stream worker's Markdown: while a run streams, the worker follows its answer's text the way
 * the page's parts do (a `delta` after anything but text starts a text part; `start` begins
 * again), splits each text part into blocks exactly as the page's ReplyMarkdown does, and parses
 * the blocks the page is about to render: each block once as it finishes, and the growing block
 * (repaired, as the page repairs it) at every batch. The trees go to the page with the frames,
 * keyed by the very Markdown the page renders (see worker-trees.ts), so the page's main thread
 * makes elements from them instead of parsing: a key the page does not ask for is never used,
 * and a block the worker did not parse is parsed on the page as before.
 */
import type { StreamFrame } from '../wire/types'
import { openFence } from './open-fence'
import { parseBlock, type BlockTree } from './parse'
import { repairStreamingBlock } from './repair'
import { blockSource, collectDefinitions, extendSplit, type BlockSplit } from './split-blocks'

/** A block's Markdown as the page renders it, and its tree. */
export type ParsedBlock = readonly [source: string, tree: BlockTree]

/** What one batch of frames (or a run's end) made parseable. */
export type StreamTrees = {
  /** Finished blocks: each is rendered once, and kept by the page once rendered. */
  finished: ParsedBlock[]
  /** The growing block as it stands, if it is Markdown to parse (not an open code fence). */
  live?: ParsedBlock
}

export type StreamTreesTracker = {
  /** After a batch: what it finished and the growing block; undefined when it added no text. */
  batch(frames: readonly StreamFrame[]): StreamTrees | undefined
  /** At the run's end: the last text part's blocks not yet sent, all finished. */
  end(): StreamTrees | undefined
}

/** How many blocks before the growing one are checked again at each batch (a re-lex may change them). */
const RECHECKED = 4

/** Parses without ever throwing: a tree the worker cannot make is one the page makes. */
function tryParse(source: string): ParsedBlock | undefined {
  try {
    return [source, parseBlock(source)]
  } catch {
    return undefined
  }
}

export function createStreamTrees(): StreamTreesTracker {
  let text = ''
  let split: BlockSplit | undefined
  /** The source sent for each finished block, by index. */
  let sent: string[] = []
  let lastPart: 'text' | 'reasoning' | 'tool' | undefined
  /** The text part changed since the last batch. */
  let grew = false

  /** The blocks before `upTo` not yet sent as they stand, rendered after `definitions`. */
  const finishedBlocks = (current: BlockSplit, upTo: number, definitions: string): ParsedBlock[] => {
    const out: ParsedBlock[] = []
    for (let i = Math.max(0, Math.min(sent.length, upTo) - RECHECKED); i < upTo; i++) {
      const source = blockSource(definitions, current.blocks[i]!)
      if (sent[i] === source) continue
      sent[i] = source
      const parsed = tryParse(source)
      if (parsed) out.push(parsed)
    }
    return out
  }

  /** The current text part's unsent blocks as the page renders a finished part. */
  const finishPart = (): ParsedBlock[] => {
    if (text === '') return []
    const current = extendSplit(split, text)
    const count = current.blocks.length
    return finishedBlocks(current, count, collectDefinitions(current, count))
  }

  const startPart = () => {
    text = ''
    split = undefined
    sent = []
    grew = false
  }

  return {
    batch(frames) {
      const finished: ParsedBlock[] = []
      for (const frame of frames) {
        if (frame.type === 'start') {
          startPart()
          lastPart = undefined
        } else if (frame.type === 'delta') {
          // Text after anything else is a new part (the one before was finished as that began).
          if (lastPart !== 'text') startPart()
          lastPart = 'text'
          text += frame.text
          grew = true
        } else if (frame.type === 'reasoning' || frame.type === 'tool_call') {
          if (lastPart === 'text') finished.push(...finishPart())
          lastPart = frame.type === 'reasoning' ? 'reasoning' : 'tool'
        }
      }
      if (!grew || lastPart !== 'text') return finished.length > 0 ? { finished } : undefined
      grew = false
      split = extendSplit(split, text)
      const live = split.blocks.length - 1
      const definitions = collectDefinitions(split, live)
      finished.push(...finishedBlocks(split, live, definitions))
      const block = split.blocks[live]!
      const growing = openFence(block) ? undefined : tryParse(blockSource(definitions, repairStreamingBlock(block)))
      return growing ? { finished, live: growing } : { finished }
    },
    end() {
      const finished = lastPart === 'text' ? finishPart() : []
      startPart()
      lastPart = undefined
      return finished.length > 0 ? { finished } : undefined
    },
  }
}
