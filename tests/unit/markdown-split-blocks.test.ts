import fc from 'fast-check'
import { Lexer } from 'marked'
import { describe, expect, it, vi } from 'vitest'
import { extendSplit, groupBlocks, splitBlocks, splitSource, type BlockSplit } from '../../src/markdown/split-blocks'

/** Feeds `source` to extendSplit in deltas of the given sizes (cycled), as a stream would. */
function stream(source: string, sizes: number[], onSplit?: (split: BlockSplit) => void): BlockSplit | undefined {
  let split: BlockSplit | undefined
  for (let at = 0, i = 0; at < source.length; i++) {
    at = Math.min(source.length, at + sizes[i % sizes.length]!)
    split = extendSplit(split, source.slice(0, at))
    onSplit?.(split)
  }
  return split
}

/** A long reply of the kind an agent writes: headings, prose, lists, fences, tables, quotes. */
function longReply(length: number): string {
  const section = (i: number) =>
    [
      `## Step ${i}`,
      '',
      `The deploy **finished** at 02:14 and \`api-${i}\` passed on the second try; see [the log](https://example.com/log/${i}).`,
      '',
      '- first item with some words',
      '- second item, *emphasis*',
      '  - nested item',
      '',
      '```ts',
      `export function step${i}(x: number): number {`,
      '  return x * 2',
      '}',
      '```',
      '',
      '| check | first | second |',
      '|---|---|---|',
      `| api-${i} | timeout | ok |`,
      '',
      '> A quote that spans',
      '> two lines.',
      '',
      '',
    ].join('\n')
  let text = ''
  for (let i = 0; text.length < length; i++) text += section(i)
  return text.slice(0, length)
}

describe('splitBlocks', () => {
  it('cuts at top-level blocks, blank lines going with the block before them', () => {
    const source = '# Title\n\nA paragraph\non two lines.\n\n- one\n- two\n\n```js\nlet a\n```\n> quote\n'
    expect(splitBlocks(source)).toEqual(['# Title\n\n', 'A paragraph\non two lines.\n\n', '- one\n- two\n\n', '```js\nlet a\n```\n', '> quote\n'])
  })

  it('keeps a fence with blank lines inside, and an unclosed fence to the end, as one block', () => {
    expect(splitBlocks('```\na\n\n\nb\n```\n\nafter')).toEqual(['```\na\n\n\nb\n```\n\n', 'after'])
    expect(splitBlocks('intro\n\n```py\nx = 1\n\n# not a heading\n')).toEqual(['intro\n\n', '```py\nx = 1\n\n# not a heading\n'])
  })

  it('keeps a table, a loose list and a lazy blockquote line each in one block', () => {
    expect(splitBlocks('| a | b |\n|---|---|\n| 1 | 2 |\n\nnext')).toEqual(['| a | b |\n|---|---|\n| 1 | 2 |\n\n', 'next'])
    expect(splitBlocks('- a\n\n- b\n\n  more of b\n')).toEqual(['- a\n\n- b\n\n  more of b\n'])
    expect(splitBlocks('> quoted\nlazy continuation\n\nafter')).toEqual(['> quoted\nlazy continuation\n\n', 'after'])
  })

  it('has no blocks for an empty source, and one for blank lines only', () => {
    expect(splitBlocks('')).toEqual([])
    expect(splitBlocks('\n\n  \n')).toEqual(['\n\n  \n'])
  })

  it.each([
    ['CRLF line ends', '# T\r\n\r\npara\r\n\r\n- a\r\n- b\r\n'],
    ['a lone CR', 'one\r\rtwo\r'],
    ['leading blank lines', '\n\n\nfirst\n\nsecond'],
    ['tabs and trailing spaces', '\tcode\n\n  para  \n\t\n'],
    ['a definition after a paragraph', 'para\n[ref]: https://example.com\n\nnext'],
    ['raw HTML blocks', '<div>\n\ntext\n</div>\n\n<script>alert(1)</script>\n'],
    // marked 18 throws on this nesting; the text must still come back whole.
    ['input the lexer throws on', '- [x] done\n   >2) two\n    code\n\n'],
    ['CJK text', '**注意：**请重试。\n\n第二段。'],
  ])('concatenates back to the source: %s', (_name, source) => {
    const blocks = splitBlocks(source)
    expect(blocks.join('')).toBe(source)
    expect(blocks.every((block) => block.length > 0)).toBe(true)
  })

  it('splits 100,000 characters into blocks that concatenate back, with their offsets and kinds', () => {
    const source = longReply(100_000)
    const split = splitSource(source)
    expect(source).toHaveLength(100_000)
    expect(split.blocks.join('')).toBe(source)
    // Six blocks per section (heading, paragraph, list, fence, table, quote).
    expect(split.blocks.length).toBeGreaterThan(1_000)
    split.blocks.forEach((block, i) => expect(source.startsWith(block, split.starts[i])).toBe(true))
    expect(new Set(split.kinds)).toEqual(new Set(['heading', 'paragraph', 'list', 'code', 'table', 'blockquote']))
  })
})

describe('extendSplit', () => {
  it('streams 100,000 characters in 20,000 deltas to the same blocks as one split, lexing only the tail each time', () => {
    const source = longReply(100_000)
    const lexed = vi.spyOn(Lexer.prototype, 'blockTokens')
    let deltas = 0
    let concatenatesBack = true
    const last = stream(source, [5], (split) => {
      deltas += 1
      concatenatesBack &&= split.blocks.join('') === split.source
    })
    const charactersLexed = lexed.mock.calls.reduce((sum, [src]) => sum + src.length, 0)
    lexed.mockRestore()

    expect(deltas).toBe(20_000)
    expect(concatenatesBack).toBe(true)
    expect(last?.blocks).toEqual(splitBlocks(source))
    // Lexing the whole reply on every delta would be ~10^9 characters; the tail is a few blocks.
    expect(charactersLexed).toBeLessThan(source.length * 50)
  })

  it('returns the same split for the same source, and splits afresh when the source is not an extension', () => {
    const first = extendSplit(undefined, '# A\n\npara')
    expect(extendSplit(first, '# A\n\npara')).toBe(first)
    const edited = extendSplit(first, '# B\n\npara')
    expect(edited.blocks).toEqual(['# B\n\n', 'para'])
  })

  it('mends a paragraph that a trailing "-" had split, once the "-" starts a list', () => {
    // At "Title\n2) two\n-" marked reads three blocks; with "- [ ] task" it is two again.
    expect(stream('Title\n2) two\n- [ ] task\n', [1])?.blocks).toEqual(['Title\n2) two\n', '- [ ] task\n'])
  })

  it('ends at the same blocks as one split, whatever the deltas (property)', () => {
    const pieces = [
      '# Head\n', 'Title\n', '===\n', '---\n', '- item\n', '  - nested\n', '1. one\n', '2) two\n', '> quote\n', 'lazy line\n',
      '```ts\n', '```\n', '~~~\n', '    indented\n', '| a | b |\n', '|---|---|\n', '| 1 | 2 |\n', '[foo]: /url "t"\n', '[foo]\n',
      '<div>\n', '</div>\n', '<script>alert(1)</script>\n', '\n', '\n\n', 'para **bold', '** more\n', '- [ ] task\n', '- [x] done\n',
      '***\n', '\t tab\n', 'word ', '中文**注意：**请重试。\n', '\r\n', '\r', '[^1]: note\n', '<!-- c -->\n', '* star\n', '+ plus\n',
      '   ', 'x', '-', '=', '|', '  cont\n', '- a\n\n', '    code\n\n', '> a\n\n', '## h\n', '#', '```', '*', '_', '[', ']', '(', ')',
    ]
    const documents = fc.array(fc.constantFrom(...pieces), { maxLength: 50 }).map((parts) => parts.join(''))
    const deltas = fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 20 })
    fc.assert(
      fc.property(documents, deltas, (source, sizes) => {
        const streamed = stream(source, sizes, (split) => {
          if (split.blocks.join('') !== split.source) throw new Error(`blocks do not concatenate back at ${JSON.stringify(split.source)}`)
        })
        expect(streamed?.blocks ?? []).toEqual(splitBlocks(source))
      }),
      { numRuns: 3_000, seed: 20261130 },
    )
  })
})

describe('groupBlocks', () => {
  it('cuts blocks into runs and keeps the identity of every run whose blocks did not change', () => {
    const blocks = Array.from({ length: 7 }, (_, i) => `block ${i}\n\n`)
    const first = groupBlocks(blocks, 3)
    expect(first).toEqual([blocks.slice(0, 3), blocks.slice(3, 6), blocks.slice(6)])
    const grown = [...blocks.slice(0, 6), 'block 6 grew\n\n', 'block 7']
    const second = groupBlocks(grown, 3, first)
    expect(second[0]).toBe(first[0])
    expect(second[1]).toBe(first[1])
    expect(second[2]).toEqual(['block 6 grew\n\n', 'block 7'])
    const edited = groupBlocks(['other\n\n', ...grown.slice(1)], 3, second)
    expect(edited[0]).not.toBe(second[0])
    expect(edited[1]).toBe(second[1])
  })
})
