/**
 * The languages a reply's code fences are highlighted in: a curated set, each grammar its own
 * chunk, imported the first time a reply uses it. Anything else is shown as plain text.
 */
import type { LanguageRegistration } from 'shiki/core'

/** A grammar module as Shiki ships it: the grammar and the grammars it embeds. */
export type GrammarModule = { default: LanguageRegistration[] }

/** The languages highlighted, by Shiki's grammar name. */
export const LANGUAGE_IDS = [
  'typescript',
  'tsx',
  'javascript',
  'jsx',
  'json',
  'shellscript',
  'python',
  'rust',
  'go',
  'java',
  'c',
  'cpp',
  'css',
  'html',
  'yaml',
  'toml',
  'sql',
  'diff',
  'markdown',
] as const
export type LanguageId = (typeof LANGUAGE_IDS)[number]

/**
 * Each grammar's loader. A literal `import()` per grammar, so the bundler makes one chunk each
 * and nothing is fetched for a language no reply uses.
 *
 * Precompiled (patterns already JavaScript RegExps, nothing to translate) except where that loses
 * what the grammar says: an `end` that refers back to its `begin` (Python's triple-quoted
 * strings and docstrings, Markdown's fences, Rust's raw strings) is filled in from the text each
 * `begin` matched, which a RegExp made ahead of time cannot be; precompiled, such a string never
 * ends and every line after it is coloured as one. Those three come as Oniguruma source,
 * translated as the tokenizer meets each pattern (highlighter.ts's engine takes both): tens of
 * milliseconds on a language's first block, in the highlight worker. C++ has the same flaw in its
 * raw strings (`R"(…)"`) but stays precompiled: its source grammar takes seconds to translate on
 * first use, for a form of string agents rarely write.
 */
export const GRAMMAR_LOADERS: Record<LanguageId, () => Promise<GrammarModule>> = {
  typescript: () => import('@shikijs/langs-precompiled/typescript'),
  tsx: () => import('@shikijs/langs-precompiled/tsx'),
  javascript: () => import('@shikijs/langs-precompiled/javascript'),
  jsx: () => import('@shikijs/langs-precompiled/jsx'),
  json: () => import('@shikijs/langs-precompiled/json'),
  shellscript: () => import('@shikijs/langs-precompiled/shellscript'),
  python: () => import('@shikijs/langs/python'),
  rust: () => import('@shikijs/langs/rust'),
  go: () => import('@shikijs/langs-precompiled/go'),
  java: () => import('@shikijs/langs-precompiled/java'),
  c: () => import('@shikijs/langs-precompiled/c'),
  cpp: () => import('@shikijs/langs-precompiled/cpp'),
  css: () => import('@shikijs/langs-precompiled/css'),
  html: () => import('@shikijs/langs-precompiled/html'),
  yaml: () => import('@shikijs/langs-precompiled/yaml'),
  toml: () => import('@shikijs/langs-precompiled/toml'),
  sql: () => import('@shikijs/langs-precompiled/sql'),
  diff: () => import('@shikijs/langs-precompiled/diff'),
  markdown: () => import('@shikijs/langs/markdown'),
}

/** How each language is named in a code block's header (names of languages, not translated). */
export const LANGUAGE_NAMES: Record<LanguageId, string> = {
  typescript: 'TypeScript',
  tsx: 'TSX',
  javascript: 'JavaScript',
  jsx: 'JSX',
  json: 'JSON',
  shellscript: 'Shell',
  python: 'Python',
  rust: 'Rust',
  go: 'Go',
  java: 'Java',
  c: 'C',
  cpp: 'C++',
  css: 'CSS',
  html: 'HTML',
  yaml: 'YAML',
  toml: 'TOML',
  sql: 'SQL',
  diff: 'Diff',
  markdown: 'Markdown',
}

/** The fence tags models write for each language, beyond its own name. */
const ALIASES = new Map<string, LanguageId>(
  Object.entries({
    ts: 'typescript',
    mts: 'typescript',
    cts: 'typescript',
    js: 'javascript',
    mjs: 'javascript',
    cjs: 'javascript',
    node: 'javascript',
    jsonc: 'json',
    json5: 'json',
    bash: 'shellscript',
    sh: 'shellscript',
    shell: 'shellscript',
    zsh: 'shellscript',
    console: 'shellscript',
    py: 'python',
    python3: 'python',
    rs: 'rust',
    golang: 'go',
    h: 'c',
    'c++': 'cpp',
    cc: 'cpp',
    cxx: 'cpp',
    hpp: 'cpp',
    htm: 'html',
    xhtml: 'html',
    yml: 'yaml',
    patch: 'diff',
    md: 'markdown',
  } satisfies Record<string, LanguageId>),
)

const IDS = new Set<string>(LANGUAGE_IDS)

/**
 * The language a fence's tag names (`ts`, `TypeScript`, `c++`, `language-py`), or undefined
 * for a tag outside the curated set, which is then shown as plain text.
 */
export function resolveLanguage(tag: string | undefined): LanguageId | undefined {
  const name = tagName(tag)
  if (!name) return undefined
  if (IDS.has(name)) return name as LanguageId
  return ALIASES.get(name)
}

/** A fence's tag as compared: trimmed, lower case, without a `language-` prefix. */
function tagName(tag: string | undefined): string {
  return tag?.trim().toLowerCase().replace(/^language-/, '') ?? ''
}

/** Tags of plain text files, read as paragraphs (Markdown is a language of its own above). */
const PROSE_TAGS = new Set(['txt', 'text', 'rst', 'adoc', 'asciidoc', 'org'])

/** Whether text tagged `tag` is prose rather than code (Markdown, a plain text file): its lines wrap where code's scroll. */
export function isProse(tag: string | undefined): boolean {
  return resolveLanguage(tag) === 'markdown' || PROSE_TAGS.has(tagName(tag))
}
