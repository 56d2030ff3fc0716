/**
 * Splits a reply's Markdown into its top-level blocks (paragraphs, headings, lists, fences,
 * tables, …) so each block can be rendered and memoized on its own: while a reply streams, only
 * the last block grows, and only it needs parsing and rendering again.
 *
 * marked's block lexer finds the boundaries (its inline pass is never run, it is not needed to
 * split). Each block is a slice of the source, so the blocks always concatenate back to it.
 */
import { Lexer, type Token } from 'marked'

/** A split of one source: its blocks, where each starts in it and what marked saw in it. */
export type BlockSplit = {
  readonly source: string
  readonly blocks: readonly string[]
  /** `starts[i]` is the offset of `blocks[i]` in `source`. */
  readonly starts: readonly number[]
  /** `kinds[i]` is marked's token type for `blocks[i]` (`paragraph`, `code`, `def`, …). */
  readonly kinds: readonly string[]
}

type Boundaries = { ends: number[]; kinds: string[] }

/** Where each block of `source` ends, and its kind, found by marked's block lexer. */
function boundaries(source: string): Boundaries {
  // marked reads `\r\n` and a lone `\r` as `\n`; lex the normalized text, then map offsets back.
  const hasCarriageReturn = source.includes('\r')
  const text = hasCarriageReturn ? source.replace(/\r\n?/g, '\n') : source
  let tokens: Token[]
  try {
    tokens = new Lexer({ gfm: true }).blockTokens(text, [])
  } catch {
    // marked 18 throws on a few odd nestings (a blockquote marker inside a task item); the
    // text is still Markdown, rendered as one block.
    return { ends: [source.length], kinds: ['mixed'] }
  }
  const ends: number[] = []
  const kinds: string[] = []
  let at = 0
  for (const token of tokens) {
    // marked rewrites a few raws (a definition folded into a paragraph gains a newline); from
    // the first one that is not a verbatim slice, the rest is one block, so no text is lost.
    if (!text.startsWith(token.raw, at)) break
    at += token.raw.length
    // Blank lines belong to the block before them (or after, at the start): alone they render nothing.
    if (token.type === 'space' && ends.length > 0) ends[ends.length - 1] = at
    else if (token.type !== 'space') {
      ends.push(at)
      kinds.push(token.type)
    }
  }
  if (at !== text.length || ends.length === 0) {
    ends.push(text.length)
    kinds.push('mixed')
  }
  return { ends: hasCarriageReturn ? mapToSource(source, ends) : ends, kinds }
}

/** Maps offsets in the `\n`-normalized text back to offsets in `source`. */
function mapToSource(source: string, ends: number[]): number[] {
  const mapped: number[] = []
  let normalized = 0
  let original = 0
  for (const end of ends) {
    while (normalized < end) {
      // `\r\n` is one character in the normalized text and two in the source.
      original += source[original] === '\r' && source[original + 1] === '\n' ? 2 : 1
      normalized += 1
    }
    mapped.push(original)
  }
  mapped[mapped.length - 1] = source.length
  return mapped
}

/** The blocks of `source` cut at `ends`, their starts shifted by `offset`. */
function sliceAt(source: string, offset: number, { ends, kinds }: Boundaries): Omit<BlockSplit, 'source'> {
  const blocks: string[] = []
  const starts: number[] = []
  const kept: string[] = []
  let start = 0
  ends.forEach((end, i) => {
    if (end <= start) return
    blocks.push(source.slice(start, end))
    starts.push(offset + start)
    kept.push(kinds[i] ?? 'mixed')
    start = end
  })
  return { blocks, starts, kinds: kept }
}

/**
 * The top-level Markdown blocks of `source`, in order; they concatenate back to `source` exactly.
 * Blank lines go with the block before them. An empty source has no blocks.
 */
export function splitBlocks(source: string): string[] {
  return [...sliceAt(source, 0, boundaries(source)).blocks]
}

/** The split of the whole of `source`, with where each block starts. */
export function splitSource(source: string): BlockSplit {
  return { source, ...sliceAt(source, 0, boundaries(source)) }
}

/** How many blocks at the end of a previous split are lexed again, at least, when the source grows. */
const RELEXED_BLOCKS = 2

/**
 * Whether text appended after `block` can no longer change where `block` ends. A blank line ends
 * every construct that could reach back into it (a paragraph a setext underline or a table row
 * would reinterpret, a list item a lazy line would continue); so does a one-line ATX heading.
 * Without this a trailing `-` that later turns out to start a list could leave a paragraph split.
 */
function isSettled(block: string): boolean {
  return /\n[ \t]*\n$/.test(block) || /^ {0,3}#{1,6}(?:[ \t][^\n]*)?\n$/.test(block)
}

/** Whether `source` begins with `previous`: slice and compare, which V8 does far faster than `startsWith`. */
function extendsSource(source: string, previous: string): boolean {
  return source.length >= previous.length && source.slice(0, previous.length) === previous
}

/**
 * The split of `source`, reusing `previous` when `source` extends it (a streamed reply growing by
 * a delta): the settled blocks before the last ones are kept as they are and only the rest is
 * lexed again, so the cost of a delta follows the size of the last blocks, not of the reply.
 * Otherwise (first call, an edited or replaced source) the whole source is split.
 */
export function extendSplit(previous: BlockSplit | undefined, source: string): BlockSplit {
  if (previous !== undefined && previous.source === source) return previous
  if (previous === undefined || !extendsSource(source, previous.source)) return splitSource(source)
  let kept = Math.max(0, previous.blocks.length - RELEXED_BLOCKS)
  while (kept > 0 && !isSettled(previous.blocks[kept - 1] ?? '')) kept -= 1
  const offset = previous.starts[kept] ?? 0
  const tail = offset === 0 ? source : source.slice(offset)
  const relexed = sliceAt(tail, offset, boundaries(tail))
  return {
    source,
    blocks: kept === 0 ? relexed.blocks : previous.blocks.slice(0, kept).concat(relexed.blocks),
    starts: kept === 0 ? relexed.starts : previous.starts.slice(0, kept).concat(relexed.starts),
    kinds: kept === 0 ? relexed.kinds : previous.kinds.slice(0, kept).concat(relexed.kinds),
  }
}

/**
 * `blocks` in runs of `size` (the last run may be shorter), reusing each run of `previous` that
 * holds the same blocks. A run that is reused keeps its identity, so a memoized component given
 * it renders nothing again: a delta then costs one element per run plus the run that grew,
 * instead of one element per block of the whole reply.
 */
export function groupBlocks(blocks: readonly string[], size: number, previous: readonly (readonly string[])[] = []): (readonly string[])[] {
  const groups: (readonly string[])[] = []
  for (let start = 0; start < blocks.length; start += size) {
    const end = Math.min(blocks.length, start + size)
    const old = previous[groups.length]
    const same = old !== undefined && old.length === end - start && old.every((block, i) => block === blocks[start + i])
    groups.push(same ? old : blocks.slice(start, end))
  }
  return groups
}

/**
 * The link reference definitions among the blocks before `end`, one after another. Footnote
 * definitions (`[^1]: …`) are left out: footnotes stay text here (see footnotes-as-text.ts).
 */
export function collectDefinitions({ blocks, kinds }: BlockSplit, end: number): string {
  let found = ''
  for (let i = 0; i < end; i++) {
    const block = blocks[i]!
    if (kinds[i] === 'def' && !/^ {0,3}\[\^/.test(block)) found += block.endsWith('\n') ? block : `${block}\n`
  }
  return found
}

/** The Markdown a block is rendered from: the definitions before it (they render nothing), then the block. */
export const blockSource = (definitions: string, text: string): string => (definitions === '' ? text : `${definitions}\n\n${text}`)
