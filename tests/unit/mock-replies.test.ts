/**
 * The mock daemon's Markdown replies: every construct the client must render is there, the
 * language follows the operator's, the same prompt always gets the same reply, and the deltas
 * put it back together exactly.
 */
import { lexer, type Token, type Tokens } from 'marked'
import { describe, expect, it } from 'vitest'
import { CODE_LANGUAGES, DELTA_SIZE, SLOW_DELTA_SIZE, codeLanguageFor, deltasOf, isChinese, replyFor } from '../../mocks/replies'

const PROMPTS = [
  'What is the capital of France?',
  'hi',
  'Explain the retry policy in detail',
  'Write me a long report on outage 1',
  '  leading and trailing spaces  ',
  'a | pipe, `ticks`, **stars** and ```fences``` in the prompt',
  '如何轮换守护进程的日志？',
  '请解释 retry 策略',
  'Mixed 中文 and English',
  '🚀 launch checklist',
]

/** Every token of a Markdown text, nested ones included, as marked's lexer (GFM) reads it. */
function tokensOf(markdown: string): Token[] {
  const all: Token[] = []
  const walk = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      all.push(token)
      const nested = token as { tokens?: Token[]; items?: Tokens.ListItem[]; header?: Tokens.TableCell[]; rows?: Tokens.TableCell[][] }
      if (nested.tokens) walk(nested.tokens)
      if (nested.items) walk(nested.items)
      if (nested.header) for (const cell of nested.header) walk(cell.tokens)
      if (nested.rows) for (const row of nested.rows) for (const cell of row) walk(cell.tokens)
    }
  }
  walk(lexer(markdown, { gfm: true }))
  return all
}

const types = (markdown: string) => new Set(tokensOf(markdown).map((t) => t.type))

describe('replyFor', () => {
  it.each(PROMPTS.flatMap((p) => [[p, false] as const, [p, true] as const]))(
    'the reply to %j (long: %s) has paragraphs, a list, a fenced code block with its language, a table, inline code, an https link and bold',
    (prompt, long) => {
      const reply = replyFor(prompt, long)
      const tokens = tokensOf(reply)
      const found = types(reply)
      for (const type of ['paragraph', 'list', 'code', 'table', 'codespan', 'link', 'strong']) expect(found, type).toContain(type)
      expect(tokens.filter((t) => t.type === 'paragraph').length).toBeGreaterThanOrEqual(3)
      const code = tokens.find((t): t is Tokens.Code => t.type === 'code')!
      expect(code.lang).toBe(codeLanguageFor(prompt))
      expect(CODE_LANGUAGES).toContain(code.lang)
      expect(code.text.split('\n').length).toBeGreaterThan(5)
      const links = tokens.filter((t): t is Tokens.Link => t.type === 'link')
      expect(links.length).toBeGreaterThan(0)
      for (const link of links) expect(link.href).toMatch(/^https:\/\//)
      const table = tokens.find((t): t is Tokens.Table => t.type === 'table')!
      expect(table.header).toHaveLength(3)
      expect(table.rows.length).toBeGreaterThanOrEqual(3)
      // Nothing that would be raw HTML: the client shows a reply's HTML as text, and the demo should not need to.
      expect(found).not.toContain('html')
    },
  )

  it('is a pure function of the prompt, and differs between prompts', () => {
    for (const prompt of PROMPTS) {
      expect(replyFor(prompt)).toBe(replyFor(prompt))
      expect(replyFor(prompt, true)).toBe(replyFor(prompt, true))
    }
    expect(new Set(PROMPTS.map((p) => replyFor(p))).size).toBe(PROMPTS.length)
  })

  it('picks among several code languages, by prompt', () => {
    const seen = new Set(Array.from({ length: 60 }, (_, i) => codeLanguageFor(`question ${i}`)))
    expect(seen.size).toBe(CODE_LANGUAGES.length)
  })

  it('answers in Chinese when the prompt has any Han character, in English otherwise', () => {
    const han = /\p{Script=Han}/u
    for (const prompt of PROMPTS) {
      const reply = replyFor(prompt)
      // The prose, not the code or the quoted prompt, carries the reply's language.
      const prose = tokensOf(reply)
        .filter((t): t is Tokens.Paragraph => t.type === 'paragraph')
        .map((t) => t.text)
        .slice(1)
        .join(' ')
      expect(isChinese(prompt)).toBe(han.test(prompt))
      if (isChinese(prompt)) {
        expect(prose).toMatch(han)
        expect(reply).not.toMatch(/Your message has/)
      } else {
        expect(prose).not.toMatch(han)
        expect(reply).toMatch(/Your message has \d+ words?\./)
      }
    }
  })

  it('the long reply (for slow) is longer, with a longer code block', () => {
    for (const prompt of PROMPTS) {
      const code = (text: string) => tokensOf(text).find((t): t is Tokens.Code => t.type === 'code')!.text
      expect(replyFor(prompt, true).length).toBeGreaterThan(replyFor(prompt).length * 1.5)
      expect(code(replyFor(prompt, true)).length).toBeGreaterThan(code(replyFor(prompt)).length)
    }
  })
})

describe('deltasOf', () => {
  it.each(PROMPTS)('concatenates back to the exact reply to %j, newlines and all', (prompt) => {
    for (const reply of [replyFor(prompt), replyFor(prompt, true)]) {
      const deltas = deltasOf(reply)
      expect(deltas.join('')).toBe(reply)
      expect(deltas.every((d) => d.length > 0)).toBe(true)
    }
    for (const edge of ['', ' ', 'one', 'trailing\n\n', '\n\nleading', '中文没有空格也要切开', 'a  b\t\tc\r\nd  ']) {
      expect(deltasOf(edge).join('')).toBe(edge)
      expect(deltasOf(edge, { min: 1, max: 3 }).join('')).toBe(edge)
    }
  })

  it('keeps ordinary replies to about a dozen deltas, and cuts Chinese text without spaces too', () => {
    const counts = PROMPTS.map((p) => deltasOf(replyFor(p)).length)
    expect(Math.max(...counts)).toBeLessThanOrEqual(20)
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(5)
    expect(deltasOf('这是一段没有任何空格的中文文字，它也必须被切成很多小块才能流式输出。', { min: 4, max: 8 }).length).toBeGreaterThan(4)
    expect(DELTA_SIZE.min).toBeLessThan(DELTA_SIZE.max)
  })

  it('splits the long reply’s code block across many deltas', () => {
    const reply = replyFor('Explain the retry policy in detail', true)
    const deltas = deltasOf(reply, SLOW_DELTA_SIZE)
    const fenceOpen = reply.indexOf('```')
    const fenceClose = reply.indexOf('```', fenceOpen + 3)
    let offset = 0
    let inside = 0
    for (const delta of deltas) {
      if (offset + delta.length > fenceOpen && offset < fenceClose) inside++
      offset += delta.length
    }
    expect(inside).toBeGreaterThanOrEqual(8)
  })
})
