import { describe, expect, it } from 'vitest'
import { repairStreamingBlock } from '../../src/markdown/repair'

describe('repairStreamingBlock', () => {
  it.each([
    ['closes an open bold', 'This is **bold', 'This is **bold**'],
    ['closes an open italic', 'an *aside', 'an *aside*'],
    ['closes an open inline code span', 'run `npm ci', 'run `npm ci`'],
    ['closes an open strikethrough', 'was ~~wrong', 'was ~~wrong~~'],
    ['closes bold in a list item', '- one\n- **two', '- one\n- **two**'],
    ['closes bold around Chinese punctuation', '**注意：', '**注意：**'],
    ['holds back a trailing bold marker with nothing after it', 'Note **', 'Note'],
    ['holds back a marker at the start of a line', 'First line\n**', 'First line'],
    ['holds back a closing marker typed after a space', '**bold **', '**bold**'],
    ['shows a half-typed link as its text', 'see [the docs](https://exa', 'see the docs'],
    ['shows a link whose text is still open as that text', 'see [the do', 'see the do'],
  ])('%s', (_name, block, repaired) => {
    expect(repairStreamingBlock(block)).toBe(repaired)
  })

  it.each([
    ['an open code fence (already a code block)', '```ts\nconst a = **b'],
    ['markers inside an open code fence', '```\nx = a **'],
    ['a finished paragraph', 'All **done** here.'],
    ['half-typed HTML, which is shown as text', 'a <scr'],
    ['dollar signs (no math here)', 'costs $$5 and $6'],
    ['a marker inside an inline code span', 'type `a **'],
  ])('leaves alone %s', (_name, block) => {
    // Inline code is closed by remend, but the marker inside it stays.
    expect(repairStreamingBlock(block).startsWith(block)).toBe(true)
  })
})
