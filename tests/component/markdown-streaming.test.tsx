import { act, screen } from '@testing-library/react'
import { Lexer } from 'marked'
import { describe, expect, it, vi } from 'vitest'
import { KEPT_CHARACTERS, ReplyMarkdown } from '../../src/markdown/reply-markdown'
import { createStreamTrees } from '../../src/markdown/stream-trees'
import { offerTrees } from '../../src/markdown/worker-trees'
import { renderInLanguage } from './markdown-helpers'

// Every rendering of a block asks worker-trees.ts for its tree first: counting those calls (and
// whether each was for a finished block) shows which blocks React rendered again on a delta.
const rendered = vi.hoisted(() => ({ blocks: [] as string[], complete: [] as boolean[], found: [] as boolean[] }))
vi.mock('../../src/markdown/worker-trees', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/markdown/worker-trees')>()
  return {
    ...original,
    takeTree: (source: string, complete: boolean) => {
      rendered.blocks.push(source)
      rendered.complete.push(complete)
      const tree = original.takeTree(source, complete)
      rendered.found.push(tree !== undefined)
      return tree
    },
  }
})

/** Renders `source` as it streams in, in deltas of `size` characters; returns the blocks rendered per delta. */
function streamReply(source: string, size: number, start = 0) {
  const { rerender, container } = renderInLanguage(<ReplyMarkdown source={source.slice(0, Math.max(start, size))} streaming />)
  const perDelta: { text: string; complete: boolean }[][] = []
  for (let at = Math.max(start, size) + size; at < source.length + size; at += size) {
    rendered.blocks = []
    rendered.complete = []
    rerender(<ReplyMarkdown source={source.slice(0, Math.min(at, source.length))} streaming />)
    perDelta.push(rendered.blocks.map((text, i) => ({ text, complete: rendered.complete[i] === true })))
  }
  return { rerender, container, perDelta }
}

const REPLY = [
  '# Deploy report',
  '',
  'The deploy **finished** at 02:14.',
  '',
  '- build: 41 s',
  '- migrate: 72 s',
  '',
  '```sh',
  'npm run deploy -- --env prod',
  '```',
  '',
  '| node | result |',
  '|---|---|',
  '| api-2 | ok |',
  '',
  'Nothing failed for good.',
  '',
].join('\n')

describe('ReplyMarkdown while streaming', () => {
  it('renders only the growing block on a delta; a finished block renders once more as finished, then never again', () => {
    const { perDelta } = streamReply(REPLY, 3)
    // One block per delta, two when a block has just been finished (it turns from live to done).
    expect(Math.max(...perDelta.map((blocks) => blocks.length))).toBeLessThanOrEqual(2)
    expect(perDelta.filter((blocks) => blocks.length === 2)).toHaveLength(5)

    // Each block before the last was rendered as finished exactly once over the whole stream.
    const finished = ['# Deploy report\n\n', 'The deploy **finished** at 02:14.\n\n', '- build: 41 s\n- migrate: 72 s\n\n', '```sh\nnpm run deploy -- --env prod\n```\n\n', '| node | result |\n|---|---|\n| api-2 | ok |\n\n']
    const asFinished = perDelta.flat().filter((block) => block.complete)
    expect(asFinished.map((block) => block.text)).toEqual(finished)
  })

  it('renders no block again when the source does not change, and only the last when streaming ends', () => {
    const { rerender } = renderInLanguage(<ReplyMarkdown source={REPLY} streaming />)
    rendered.blocks = []
    rerender(<ReplyMarkdown source={REPLY} streaming />)
    expect(rendered.blocks).toEqual([])
    rendered.blocks = []
    rerender(<ReplyMarkdown source={REPLY} streaming={false} />)
    expect(rendered.blocks).toEqual(['Nothing failed for good.\n'])
  })

  it('keeps the work of a delta to the last block at the end of a long reply', () => {
    let long = ''
    for (let i = 0; long.length < 12_000; i++) long += `## Part ${i}\n\nSome **text** for part ${i}, with \`code\` and a [link](https://example.com/${i}).\n\n- a\n- b\n\n`
    long = long.slice(0, 12_000)
    // The reply renders once up to its last 300 characters, which then arrive in 60 deltas.
    const { perDelta } = streamReply(long, 5, long.length - 300)
    expect(perDelta).toHaveLength(60)
    expect(Math.max(...perDelta.map((blocks) => blocks.length))).toBeLessThanOrEqual(2)
    expect(Math.max(...perDelta.flat().map((block) => block.text.length))).toBeLessThan(200)
  })

  it('shows an open code fence as a code block already, plain until it is finished', () => {
    const { container } = renderInLanguage(<ReplyMarkdown source={'Run this:\n\n```ts\nconst answer = 4'} streaming />)
    const pre = container.querySelector('.md-code pre')
    expect(pre).toHaveTextContent('const answer = 4')
    expect(pre).toHaveAttribute('data-highlighted', 'false')
    expect(screen.getByText('TypeScript')).toBeInTheDocument()
    expect(container.textContent).not.toContain('```')
  })

  it('shows a growing fence without parsing it as Markdown, exactly as the parser would', () => {
    const source = 'Log:\n\n  ```text\n  line one <b>\n    indented **not bold**\n'
    rendered.blocks = []
    const { container: streamed } = renderInLanguage(<ReplyMarkdown source={source} streaming />)
    expect(rendered.blocks).toEqual(['Log:\n\n'])
    const { container: parsed } = renderInLanguage(<ReplyMarkdown source={source} />)
    expect(streamed.querySelector('.md-code pre')).toHaveTextContent('line one <b> indented **not bold**')
    expect(streamed.innerHTML).toBe(parsed.innerHTML)
  })

  it('shows open bold as bold and holds back a trailing ** with nothing after it', () => {
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source="This is **importa" streaming />)
    expect(screen.getByText('importa').tagName).toBe('STRONG')
    rerender(<ReplyMarkdown source="This is important. Note **" streaming />)
    expect(container.textContent).toBe('This is important. Note')
    rerender(<ReplyMarkdown source="This is important. Note **well" streaming />)
    expect(screen.getByText('well').tagName).toBe('STRONG')
  })

  it('shows a half-typed link as its text, and the link once it is complete', () => {
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source="See [the guide](https://exam" streaming />)
    expect(container.textContent).toBe('See the guide')
    expect(screen.queryByRole('link')).toBeNull()
    rerender(<ReplyMarkdown source="See [the guide](https://example.com/guide)" streaming={false} />)
    expect(screen.getByRole('link', { name: 'the guide' })).toHaveAttribute('href', 'https://example.com/guide')
  })

  it('shows half-typed raw HTML as the characters typed so far', () => {
    const { container } = renderInLanguage(<ReplyMarkdown source="A tag: <scr" streaming />)
    expect(container.textContent).toBe('A tag: <scr')
  })

  it('ends a long reply without lexing all of it in the commit that ends it, and lexes it whole once the page is idle', async () => {
    vi.useFakeTimers()
    try {
      let long = ''
      for (let i = 0; long.length < 12_000; i++) long += `## Part ${i}\n\nSome **text** for part ${i}.\n\n- a\n- b\n\n`
      const { rerender, container } = streamReply(long, 400)
      const lexed = vi.spyOn(Lexer.prototype, 'blockTokens')
      rerender(<ReplyMarkdown source={long} streaming={false} />)
      // The commit that ends the reply shows its text from the split the stream built.
      expect(Math.max(0, ...lexed.mock.calls.map(([text]) => text.length))).toBeLessThan(1_000)
      await act(() => vi.runAllTimersAsync())
      // Then the whole source is split afresh, and the reply reads as one loaded from history.
      expect(lexed.mock.calls.map(([text]) => text.length)).toContain(long.length)
      const { container: loaded } = renderInLanguage(<ReplyMarkdown source={long} />)
      await act(() => vi.runAllTimersAsync())
      expect(container.innerHTML).toBe(loaded.innerHTML)
      lexed.mockRestore()
    } finally {
      vi.useRealTimers()
    }
  })

  it('renders the finished reply exactly as the same reply loaded from history', () => {
    const { container: streamed, rerender } = streamReply(REPLY, 7)
    rerender(<ReplyMarkdown source={REPLY} streaming={false} />)
    const { container: loaded } = renderInLanguage(<ReplyMarkdown source={REPLY} />)
    expect(streamed.innerHTML).toBe(loaded.innerHTML)
  })

  it('renders the trees the stream worker parsed, parsing nothing itself, to the same page as parsing would', () => {
    // Its own text: finished blocks rendered by the tests before are kept, and would not ask again.
    const reply = REPLY.replaceAll('deploy', 'rollout').replace('Nothing failed for good.', 'Nothing was retried.')
    const trees = createStreamTrees()
    offerTrees(1, trees.batch([{ type: 'start', id: 1, message_id: 'm' }]))
    const { rerender, container } = renderInLanguage(<ReplyMarkdown source="" streaming />)
    rendered.found = []
    for (let at = 4; at < reply.length + 4; at += 4) {
      const text = reply.slice(0, at)
      offerTrees(1, trees.batch([{ type: 'delta', id: at, text: text.slice(at - 4) }]))
      rerender(<ReplyMarkdown source={text} streaming />)
    }
    offerTrees(1, trees.end(), true)
    rerender(<ReplyMarkdown source={reply} streaming={false} />)
    // Every block asked for had a tree from the worker, but the open code fence (never parsed).
    expect(rendered.found.length).toBeGreaterThan(30)
    expect(rendered.found.every(Boolean)).toBe(true)
    const { container: parsedHere } = renderInLanguage(<ReplyMarkdown source={reply} />)
    expect(container.innerHTML).toBe(parsedHere.innerHTML)
  })
})

describe('finished blocks kept rendered', () => {
  it('does not parse a finished block again when its reply mounts again; the growing block is parsed at every mount', () => {
    const source = 'The first kept block, 7391.\n\nThe second kept block, 7392.\n\nThe growing end, 7393'
    renderInLanguage(<ReplyMarkdown source={source} />).unmount()
    rendered.blocks = []
    // A reply scrolled out of the window and back: the same blocks, nothing parsed, all shown.
    const again = renderInLanguage(<ReplyMarkdown source={source} />)
    expect(rendered.blocks).toEqual([])
    expect([...again.container.querySelectorAll('p')].map((p) => p.textContent)).toEqual(['The first kept block, 7391.', 'The second kept block, 7392.', 'The growing end, 7393'])
    again.unmount()

    // While it streams, its last block is new text at every commit: never kept.
    rendered.blocks = []
    renderInLanguage(<ReplyMarkdown source={source} streaming />).unmount()
    renderInLanguage(<ReplyMarkdown source={source} streaming />).unmount()
    expect(rendered.blocks).toEqual(['The growing end, 7393', 'The growing end, 7393'])
  })

  it('keeps at most KEPT_CHARACTERS of source, letting the least recently used go first', () => {
    const small = 'A small block that is kept until something larger comes, 5120.'
    renderInLanguage(<ReplyMarkdown source={small} />).unmount()
    rendered.blocks = []
    renderInLanguage(<ReplyMarkdown source={small} />).unmount()
    expect(rendered.blocks).toEqual([])
    // One block larger than the whole budget: the small one goes first, then the large one itself.
    renderInLanguage(<ReplyMarkdown source={`word `.repeat(KEPT_CHARACTERS / 5 + 1)} />).unmount()
    rendered.blocks = []
    renderInLanguage(<ReplyMarkdown source={small} />).unmount()
    expect(rendered.blocks).toEqual([small])
  })
})
