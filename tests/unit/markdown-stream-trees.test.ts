/**
 * The stream worker's Markdown (stream-trees.ts): the trees it makes are keyed by exactly the
 * Markdown the page's ReplyMarkdown renders (finished blocks as they are, the growing block
 * repaired, definitions before both), each finished block is sent once, text parts follow the
 * page's rule (text after a tool or reasoning is a new part; `start` begins again), and an open
 * code fence is left to the page, which shows it without parsing.
 */
import { describe, expect, it } from 'vitest'
import { parseBlock } from '../../src/markdown/parse'
import { repairStreamingBlock } from '../../src/markdown/repair'
import { blockSource, collectDefinitions, splitBlocks, splitSource } from '../../src/markdown/split-blocks'
import { createStreamTrees, type ParsedBlock, type StreamTrees } from '../../src/markdown/stream-trees'
import type { StreamFrame } from '../../src/wire/types'

let id = 0
const delta = (text: string): StreamFrame => ({ type: 'delta', id: ++id, text })
const start: StreamFrame = { type: 'start', id: 0, message_id: 'm' }
const tool: StreamFrame = { type: 'tool_call', id: 0, tool_call_id: 't1', name: 'search_docs', effect: 'read' }
const sources = (blocks: readonly ParsedBlock[] | undefined) => (blocks ?? []).map(([source]) => source)

const REPLY = '# Report\n\nThe deploy **finished** at 02:14.\n\n- build: 41 s\n- migrate: 72 s\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDone, see [the log][log].\n\n[log]: https://example.com/log\n'

/** Streams `text` in pieces of `size`, one batch each; returns every batch's trees. */
function stream(text: string, size: number) {
  const trees = createStreamTrees()
  const batches: Array<{ text: string; trees: StreamTrees | undefined }> = [{ text: '', trees: trees.batch([start]) }]
  for (let at = 0; at < text.length; at += size) batches.push({ text: text.slice(0, at + size), trees: trees.batch([delta(text.slice(at, at + size))]) })
  return { batches, end: trees.end() }
}

describe('stream trees', () => {
  it('keys the growing block as the page renders it (repaired, after the definitions before it) and parses it as parse.ts does', () => {
    const { batches } = stream(REPLY, 7)
    for (const { text, trees } of batches.slice(1)) {
      const split = splitSource(text)
      const live = split.blocks.length - 1
      const expected = blockSource(collectDefinitions(split, live), repairStreamingBlock(split.blocks[live]!))
      expect(trees?.live?.[0]).toBe(expected)
      expect(trees?.live?.[1]).toEqual(parseBlock(expected))
    }
  })

  it('sends each finished block once over the whole stream, and the last at the end', () => {
    const reply = REPLY.replace('[the log][log]', 'the log').replace(/\[log\]: .*\n$/, 'Bye.\n')
    const { batches, end } = stream(reply, 5)
    const finished = [...batches.flatMap((b) => sources(b.trees?.finished)), ...sources(end?.finished)]
    expect(finished).toEqual(splitBlocks(reply))
    expect(sources(end?.finished)).toEqual(['Bye.\n'])
  })

  it('sends the last blocks again when the end brings a definition, as the page then renders every block after it', () => {
    const { end } = stream(REPLY, 5)
    const definition = '[log]: https://example.com/log\n'
    expect(sources(end?.finished).at(-1)).toBe(blockSource(definition, definition))
    expect(sources(end?.finished).at(-2)).toBe(blockSource(definition, 'Done, see [the log][log].\n\n'))
  })

  it('ends a text part when a tool starts, and starts the next from the first delta after it', () => {
    const trees = createStreamTrees()
    const first = trees.batch([start, delta('First part.\n\nStill the first')])
    expect(sources(first?.finished)).toEqual(['First part.\n\n'])
    expect(first?.live?.[0]).toBe('Still the first')
    const atTool = trees.batch([delta(' part.'), tool, { type: 'tool_input', id: 0, tool_call_id: 't1', delta: '{"q":' }])
    // The first part's blocks are finished as the tool begins; no growing block while the tool runs.
    expect(sources(atTool?.finished)).toEqual(['Still the first part.'])
    expect(atTool?.live).toBeUndefined()
    const after = trees.batch([delta('Second')])
    expect(after?.live?.[0]).toBe('Second')
    expect(after?.finished).toEqual([])
    expect(sources(trees.end()?.finished)).toEqual(['Second'])
  })

  it('begins again at `start` (a replay from the first event), and sends nothing for a batch without text', () => {
    const trees = createStreamTrees()
    trees.batch([start, delta('Old text.\n\nMore')])
    expect(trees.batch([{ type: 'usage', id: 0, input_tokens: 1, output_tokens: 2 }])).toBeUndefined()
    const replay = trees.batch([start, delta('New')])
    expect(replay?.live?.[0]).toBe('New')
    expect(replay?.finished).toEqual([])
  })

  it('leaves an open code fence to the page and parses it once it closes', () => {
    const trees = createStreamTrees()
    const open = trees.batch([start, delta('```ts\nconst a = 1\n')])
    expect(open?.live).toBeUndefined()
    const closed = trees.batch([delta('```\n\nAfter')])
    expect(sources(closed?.finished)).toEqual(['```ts\nconst a = 1\n```\n\n'])
    expect(closed?.live?.[0]).toBe('After')
  })

  it('makes trees with no source positions, raw HTML as text and only safe URLs', () => {
    const tree = parseBlock('<b>x</b> [a](javascript:alert(1)) [b](https://example.com/)')
    expect(JSON.stringify(tree)).not.toContain('"position"')
    const paragraph = tree.children[0]
    expect(paragraph?.type === 'element' && paragraph.children.filter((c) => c.type === 'text').map((c) => c.value)).toContain('<b>')
    const links = JSON.stringify(tree).match(/"href":"[^"]*"/g)
    expect(links).toEqual(['"href":"https://example.com/"'])
  })
})
