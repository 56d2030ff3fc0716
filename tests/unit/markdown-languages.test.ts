import { describe, expect, it } from 'vitest'
import { GRAMMAR_LOADERS, isProse, LANGUAGE_IDS, LANGUAGE_NAMES, resolveLanguage } from '../../src/markdown/languages'

describe('resolveLanguage', () => {
  it.each([
    ['ts', 'typescript'],
    ['TypeScript', 'typescript'],
    ['tsx', 'tsx'],
    ['js', 'javascript'],
    ['jsx', 'jsx'],
    ['json', 'json'],
    ['bash', 'shellscript'],
    ['sh', 'shellscript'],
    ['shell', 'shellscript'],
    ['zsh', 'shellscript'],
    ['py', 'python'],
    ['python', 'python'],
    ['rs', 'rust'],
    ['rust', 'rust'],
    ['go', 'go'],
    ['golang', 'go'],
    ['java', 'java'],
    ['c', 'c'],
    ['cpp', 'cpp'],
    ['c++', 'cpp'],
    ['css', 'css'],
    ['html', 'html'],
    ['yaml', 'yaml'],
    ['yml', 'yaml'],
    ['toml', 'toml'],
    ['sql', 'sql'],
    ['diff', 'diff'],
    ['patch', 'diff'],
    ['md', 'markdown'],
    ['markdown', 'markdown'],
    [' language-py ', 'python'],
  ])('reads %j as %s', (tag, id) => {
    expect(resolveLanguage(tag)).toBe(id)
  })

  it.each([undefined, '', 'brainfuck', 'cobol', '__proto__', 'constructor', 'toString'])('leaves %j as plain text', (tag) => {
    expect(resolveLanguage(tag)).toBeUndefined()
  })

  it('has a loader and a name for every language', () => {
    expect(Object.keys(GRAMMAR_LOADERS).sort()).toEqual([...LANGUAGE_IDS].sort())
    expect(Object.keys(LANGUAGE_NAMES).sort()).toEqual([...LANGUAGE_IDS].sort())
  })
})

describe('isProse', () => {
  it.each(['md', 'markdown', 'MD', 'txt', ' Text ', 'rst', 'adoc', 'asciidoc', 'org', 'language-md'])('reads %j as prose', (tag) => {
    expect(isProse(tag)).toBe(true)
  })

  it.each([undefined, '', 'json', 'py', 'ts', 'sh', 'diff', 'csv', 'cobol'])('reads %j as code or unknown, not prose', (tag) => {
    expect(isProse(tag)).toBe(false)
  })
})
