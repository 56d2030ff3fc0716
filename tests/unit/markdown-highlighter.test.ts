import { describe, expect, it, vi } from 'vitest'
import { createCodeHighlighter } from '../../src/markdown/highlighter'
import { GRAMMAR_LOADERS, LANGUAGE_IDS, type GrammarModule, type LanguageId } from '../../src/markdown/languages'

/** The real loaders, each wrapped in a spy, so a test sees which grammars were imported. */
function spiedLoaders() {
  const spies = Object.fromEntries(LANGUAGE_IDS.map((id) => [id, vi.fn(GRAMMAR_LOADERS[id])])) as Record<LanguageId, ReturnType<typeof vi.fn<() => Promise<GrammarModule>>>>
  const imported = () => LANGUAGE_IDS.filter((id) => spies[id].mock.calls.length > 0)
  return { spies, imported }
}

describe('createCodeHighlighter', () => {
  it('colours TypeScript for both themes, importing only its grammar, once', async () => {
    const { spies, imported } = spiedLoaders()
    const highlighter = createCodeHighlighter(spies)
    const code = 'const answer: number = 42 // why\nexport function f() {\n  return "s"\n}'

    const lines = await highlighter.highlight(code, 'typescript')
    expect(lines).toHaveLength(4)
    // Tokens put back together are the code, exactly.
    expect(lines.map((line) => line.map((token) => token.content).join('')).join('\n')).toBe(code)
    const keyword = lines[0]!.find((token) => token.content === 'const')
    expect(keyword?.style).toEqual({ '--shiki-light': expect.stringMatching(/^#[0-9A-F]{6}$/i), '--shiki-dark': expect.stringMatching(/^#[0-9A-F]{6}$/i) })
    // A keyword is coloured apart from plain text (the space after it).
    expect(keyword?.style?.['--shiki-light']).not.toBe(lines[0]!.find((token) => token.content === ' ')?.style?.['--shiki-light'])

    await highlighter.highlight('let x = 1', 'typescript')
    expect(imported()).toEqual(['typescript'])
    expect(spies.typescript).toHaveBeenCalledTimes(1)
  })

  it('imports a second grammar only when a second language is asked for', async () => {
    const { spies, imported } = spiedLoaders()
    const highlighter = createCodeHighlighter(spies)
    await highlighter.highlight('print("hi")', 'python')
    expect(imported()).toEqual(['python'])
    await highlighter.highlight('{"a": 1}', 'json')
    expect(imported()).toEqual(['json', 'python'])
  })

  it('rejects when a grammar cannot be loaded, and tries again next time', async () => {
    const { spies } = spiedLoaders()
    spies.rust.mockRejectedValueOnce(new Error('chunk failed to load'))
    const highlighter = createCodeHighlighter(spies)
    await expect(highlighter.highlight('fn main() {}', 'rust')).rejects.toThrow('chunk failed to load')
    const lines = await highlighter.highlight('fn main() {}', 'rust')
    expect(lines[0]!.some((token) => token.style !== undefined)).toBe(true)
    expect(spies.rust).toHaveBeenCalledTimes(2)
  })

  it('leaves code too long to highlight to the caller, as plain text', async () => {
    const { spies, imported } = spiedLoaders()
    const highlighter = createCodeHighlighter(spies)
    await expect(highlighter.highlight('x'.repeat(100_001), 'typescript')).rejects.toThrow(RangeError)
    expect(imported()).toEqual([])
  })
})

describe('strings whose end refers back to their beginning', () => {
  /** The light colour of the token `content` on line `line`. */
  const colourOf = (lines: { content: string; style?: Record<string, string> }[][], line: number, content: string) =>
    lines[line]!.find((token) => token.content.trim() === content)?.style?.['--shiki-light']

  it.each([
    // A docstring, then code: the code is coloured as it is on its own, not as the string.
    ['python', 'def f():\n    """Seconds to wait."""\n    return 1', 2, 'return', 'return 1'],
    ['python', 'x = r"""raw\n text"""\ndef g(): pass', 2, 'def', 'def g(): pass'],
    ['rust', 'let s = r#"a "quoted" b"#;\nfn main() {}', 1, 'fn', 'fn main() {}'],
    ['markdown', '```sh\nls\n```\n# Title', 3, '# Title', '# Title'],
  ] as const)('%s: %j ends its string, and the line after is coloured as on its own', async (language, code, line, token, alone) => {
    const highlighter = createCodeHighlighter()
    const lines = await highlighter.highlight(code, language)
    expect(lines.map((l) => l.map((t) => t.content).join('')).join('\n')).toBe(code)
    const expected = colourOf(await highlighter.highlight(alone, language), 0, token)
    expect(expected).toBeDefined()
    expect(colourOf(lines, line, token)).toBe(expected)
  })
})

describe('tokenizing in steps', () => {
  it('colours long code exactly as one pass would, across a comment and a string that span steps', async () => {
    const { spies } = spiedLoaders()
    const highlighter = createCodeHighlighter(spies)
    const body = Array.from({ length: 30 }, (_, i) => `  const v${i} = compute(${i}) // step ${i}`)
    // A block comment and a template string each open in one step of eight lines and close in the next.
    const code = ['/**', ' * Opens here', ...body.slice(0, 5), ' * closes later', ' */', 'const t = `line one', ...body.slice(5, 12), 'end ${x}`', ...body.slice(12)].join('\n')
    const stepped = await highlighter.highlight(code, 'typescript')

    const { createHighlighterCore } = await import('shiki/core')
    const { createJavaScriptRawEngine } = await import('shiki/engine/javascript')
    const light = (await import('shiki/themes/github-light-high-contrast.mjs')).default
    const dark = (await import('shiki/themes/github-dark-high-contrast.mjs')).default
    const grammar = (await GRAMMAR_LOADERS.typescript()).default
    const core = await createHighlighterCore({ themes: [structuredClone(light), structuredClone(dark)], langs: [structuredClone(grammar)], engine: createJavaScriptRawEngine() })
    const once = core
      .codeToTokens(code, { lang: 'typescript', themes: { light: 'github-light-high-contrast', dark: 'github-dark-high-contrast' }, defaultColor: false })
      .tokens.map((line) => line.map((token) => (token.htmlStyle ? { content: token.content, style: token.htmlStyle } : { content: token.content })))

    expect(stepped).toHaveLength(code.split('\n').length)
    expect(stepped).toEqual(once)
    // The line inside the template string is coloured as a string, not as code.
    const inside = stepped[code.split('\n').indexOf(body[5]!)]!
    expect(inside.every((token) => token.style?.['--shiki-light'] === inside[0]!.style?.['--shiki-light'])).toBe(true)
  })
})
