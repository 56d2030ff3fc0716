/**
 * parse.ts parses a block that cannot hold an autolink literal (no `www`, `http` or `@`) without
 * GFM's autolink literals: the trees must be the very ones the full GFM parse gives.
 */
import { describe, expect, it } from 'vitest'
import { seeded } from '../../mocks/replies'
import { parseBlock } from '../../src/markdown/parse'
import { splitSource } from '../../src/markdown/split-blocks'

const same = (markdown: string) => expect(parseBlock(markdown)).toEqual(parseBlock(markdown, 'always'))

describe('parseBlock without autolink literals where a block cannot hold one', () => {
  it('gives the full GFM tree for every kind of block GFM has', () => {
    for (const markdown of [
      'Plain words, **strong**, _emphasis_, `code`, ~~struck~~ and ~one tilde~.',
      '| step | time |\n| --- | ---: |\n| read | 12 ms |\n| write | 3 ms |',
      '- [x] done\n- [ ] not yet\n  - nested item',
      '1. first\n2. second\n\n   continued',
      'A note[^1] here.\n\n[^1]: The footnote.',
      '```ts\nconst wwx = 1 // no address here\n```',
      '> quoted **text** with <span>raw html</span>',
      '# Heading\n\nText with a [link](https://example.com) and ![image](/img.png).',
      '[ref]: /docs "Title"\n\nSee [the docs][ref].',
      '中文**强调**文字，`代码`与~~删除线~~。',
      'Letters that start nothing: w ww wwx htt ht tp mail to xmpp address.example.com',
      'An email without its sign: name.example.com, and a+b-c_d.e',
    ])
      same(markdown)
  })

  it('gives the full GFM tree for generated blocks of letters, punctuation and Markdown marks', () => {
    const r = seeded(29)
    const pieces = ['w', 'ww', 'h', 'ht', 'tt', 'p', 's', ':', '/', '.', '-', '_', '+', '*', '~', '`', '|', '[', ']', '(', ')', '#', '>', '!', ' ', ' ', '\n', 'word', 'mail', 'to', 'x', '中', '，']
    for (let n = 0; n < 400; n++) {
      const markdown = Array.from({ length: 5 + Math.floor(r() * 60) }, () => pieces[Math.floor(r() * pieces.length)]!).join('')
      if (/www|http|@/i.test(markdown)) continue
      same(markdown)
    }
  })

  it('gives the full GFM tree for a long reply split into its blocks', () => {
    const reply = [
      '## Plan\n\nRead the **retry** schedule, then the daemon’s wait.',
      '| attempt | wait |\n| --- | --- |\n| 1 | 2 s |\n| 2 | 4 s |',
      '```python\nfor attempt in range(3):\n    wait(2 ** attempt)\n```',
      '- [ ] check the quota\n- [x] read the log',
      'Done: ~~five~~ three retries.',
    ].join('\n\n')
    for (const block of splitSource(reply).blocks) same(block)
  })

  it('still makes links of bare addresses and emails', () => {
    const links = (markdown: string) => JSON.stringify(parseBlock(markdown)).match(/"tagName":"a"/g)?.length ?? 0
    expect(links('See www.example.com and https://example.org/x.')).toBe(2)
    expect(links('Write to ops@example.com.')).toBe(1)
    expect(links('HTTP://EXAMPLE.COM shouts.')).toBe(1)
  })
})
