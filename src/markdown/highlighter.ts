/**
 * Code highlighting with Shiki's fine-grained core, its JavaScript engine and (mostly)
 * precompiled grammars: no WASM, so a strict Content-Security-Policy needs no 'wasm-unsafe-eval'. It runs in
 * the highlight worker (highlight.worker.ts, started with the first finished code block seen, in
 * a reply's text or a tool's input or output), or on the page where no worker can start (see
 * highlight-client.ts); each grammar is a chunk of its own (see languages.ts).
 *
 * The result is tokens, not HTML: the code block renders them as React elements.
 */
import { createHighlighterCore, type GrammarState, type HighlighterCore } from 'shiki/core'
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript'
// The high-contrast GitHub themes: every token reads at 4.5:1 or more on the code block's own
// background (the plain github-light comment and keyword colours fall just short of it).
import githubDark from 'shiki/themes/github-dark-high-contrast.mjs'
import githubLight from 'shiki/themes/github-light-high-contrast.mjs'
import { GRAMMAR_LOADERS, type GrammarModule, type LanguageId } from './languages'

/** One run of text in one colour: Shiki's colours for both themes, as CSS custom properties. */
type HighlightedToken = { content: string; style?: Record<string, string> }
/** The tokens of one line of code. */
export type HighlightedLine = HighlightedToken[]

export type CodeHighlighter = {
  /** The code's tokens; rejects when the grammar cannot be loaded or the code not tokenized. */
  highlight(code: string, language: LanguageId): Promise<HighlightedLine[]>
}

/** Longer code is left plain: tokenizing it would keep every block after it waiting too long. */
const MAX_HIGHLIGHTED_LENGTH = 100_000
/** Lines longer than this (minified code, data) are left plain within highlighted code. */
const MAX_TOKENIZED_LINE = 2_000

/** Lines tokenized in one step; the grammar's state carries over to the next step. */
const LINES_PER_STEP = 8
/**
 * On the page, tokenizing runs in slices of about this long, with a task between them: a long
 * block is many short tasks, never one long one. The highlight worker has no page to keep
 * responsive and tokenizes a block in one go.
 */
const SLICE_MS = 8

/** Lets the page paint and handle input between two code blocks (in the worker, lets the next request in). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/**
 * A highlighter over the given grammar loaders (the curated map by default). The core starts on
 * the first call; a grammar is loaded the first time its language is asked for, once. Requests
 * run one after another with a task between them, so a reply with many code blocks never becomes
 * one long task.
 */
export function createCodeHighlighter(loaders: Record<LanguageId, () => Promise<GrammarModule>> = GRAMMAR_LOADERS, { sliceMs = SLICE_MS }: { sliceMs?: number } = {}): CodeHighlighter {
  let core: Promise<HighlighterCore> | undefined
  const grammars = new Map<LanguageId, Promise<void>>()
  let queue: Promise<unknown> = Promise.resolve()

  const getCore = () =>
    (core ??= createHighlighterCore({
      // Copies: Shiki normalizes what it is given in place, and the modules' objects are shared by
      // every highlighter made in the same JavaScript realm (tests make several).
      themes: [structuredClone(githubLight), structuredClone(githubDark)],
      langs: [],
      // Most grammars come precompiled (their Oniguruma patterns already JavaScript RegExps), used
      // as they are: translating them as the tokenizer met them was a long task on the first
      // block of each language. The few whose ends refer back to their beginnings come as source
      // (languages.ts), and this engine translates those patterns, the back-references filled in.
      engine: createJavaScriptRegexEngine(),
    }))

  const loadGrammar = (highlighter: HighlighterCore, language: LanguageId): Promise<void> => {
    let loading = grammars.get(language)
    if (loading === undefined) {
      // Evaluating the grammar's chunk, copying it, registering it and the first lines (which
      // compile its patterns) are each a task of their own: together, on the first block of a
      // language, they were one long task.
      loading = loaders[language]().then(async (module) => {
        await nextTask()
        const grammar = structuredClone(module.default)
        await nextTask()
        await highlighter.loadLanguage(grammar)
        await nextTask()
      })
      // A grammar that failed to load (a network blip) is tried again by the next code block.
      loading.catch(() => grammars.delete(language))
      grammars.set(language, loading)
    }
    return loading
  }

  const run = async (code: string, language: LanguageId): Promise<HighlightedLine[]> => {
    if (code.length > MAX_HIGHLIGHTED_LENGTH) throw new RangeError('code too long to highlight')
    await nextTask()
    const highlighter = await getCore()
    await loadGrammar(highlighter, language)
    const options = {
      lang: language,
      themes: { light: 'github-light-high-contrast', dark: 'github-dark-high-contrast' },
      // Both themes as custom properties (--shiki-light, --shiki-dark); markdown.css picks one
      // with prefers-color-scheme, as the app's own colours do.
      defaultColor: false,
      tokenizeMaxLineLength: MAX_TOKENIZED_LINE,
    } as const
    const lines = code.split('\n')
    const out: HighlightedLine[] = []
    let state: GrammarState | undefined
    let sliceFrom = performance.now()
    for (let from = 0; from < lines.length; from += LINES_PER_STEP) {
      const step = lines.slice(from, from + LINES_PER_STEP).join('\n')
      const result = highlighter.codeToTokens(step, state ? { ...options, grammarState: state } : options)
      state = result.grammarState
      for (const line of result.tokens) out.push(line.map((token) => (token.htmlStyle ? { content: token.content, style: token.htmlStyle } : { content: token.content })))
      if (performance.now() - sliceFrom >= sliceMs) {
        await nextTask()
        sliceFrom = performance.now()
      }
    }
    return out
  }

  return {
    highlight(code, language) {
      const result = queue.then(() => run(code, language))
      queue = result.catch(() => undefined)
      return result
    },
  }
}
