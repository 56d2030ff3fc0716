import { describe, expect, it } from 'vitest'
import enApp from '../../locales/en/app.json'
import enErrors from '../../locales/en/errors.json'
import zhApp from '../../locales/zh/app.json'
import zhErrors from '../../locales/zh/errors.json'
import { ERROR_CODES, REFUSAL_CODES, RETRY_CLASSES } from '../../src/wire/types'

type Table = { readonly [key: string]: unknown }

/** Every leaf of a nested table as [dotted key, value]. */
function leaves(table: Table, prefix = ''): [string, unknown][] {
  return Object.entries(table).flatMap(([key, value]): [string, unknown][] =>
    typeof value === 'object' && value !== null ? leaves(value as Table, `${prefix}${key}.`) : [[`${prefix}${key}`, value]],
  )
}

/** The `{{var}}` names in a string (format suffixes like `{{n, number}}` dropped), sorted. */
function variables(text: string): string[] {
  return [...text.matchAll(/\{\{\s*([^},\s]+)[^}]*\}\}/g)].map((m) => m[1]!).sort()
}

const pairs = [
  { file: 'app.json', en: enApp as Table, zh: zhApp as Table },
  { file: 'errors.json', en: enErrors as Table, zh: zhErrors as Table },
]

describe.each(pairs)('$file', ({ en, zh }) => {
  it('has exactly the same keys in en and zh', () => {
    expect(leaves(zh).map(([key]) => key).sort()).toEqual(leaves(en).map(([key]) => key).sort())
  })

  it('has only non-empty strings as leaves', () => {
    for (const [key, value] of [...leaves(en), ...leaves(zh)]) {
      expect(typeof value === 'string' && value.trim() !== '', key).toBe(true)
    }
  })

  it('uses the same interpolation variables in en and zh for every key', () => {
    const zhByKey = new Map(leaves(zh))
    for (const [key, value] of leaves(en)) {
      expect(variables(String(zhByKey.get(key))), key).toEqual(variables(String(value)))
    }
  })
})

describe('errors.json coverage', () => {
  const codes = [...ERROR_CODES, ...REFUSAL_CODES]

  it.each(codes)('words %s in en and zh, keyed by the daemon code exactly', (code) => {
    expect(Object.hasOwn(enErrors.errors, code)).toBe(true)
    expect(Object.hasOwn(zhErrors.errors, code)).toBe(true)
  })

  it.each(RETRY_CLASSES)('words retry class %s in en and zh', (retryClass) => {
    expect(Object.hasOwn(enErrors.retryClass, retryClass)).toBe(true)
    expect(Object.hasOwn(zhErrors.retryClass, retryClass)).toBe(true)
  })

  it('keeps HTML out of every string', () => {
    for (const [key, value] of [...leaves(enErrors), ...leaves(zhErrors)]) {
      expect(String(value), key).not.toMatch(/<[a-z/!]|&[a-z#0-9]+;/i)
    }
  })
})

describe('zh errors.json reads as Chinese', () => {
  // Latin words a Chinese product leaves as they are: the daemon's codes, names, and "API".
  const allowed = new Set<string>([
    ...Object.keys(enErrors.errors),
    ...Object.keys(enErrors.retryClass),
    'Rebound',
    'API',
    // Key names as printed on the keys ("按 Esc 保留原标题").
    'Esc',
    'HH',
    'MM',
  ])
  const cjk = /[\u3400-\u9fff]/

  it.each(leaves(zhErrors))('%s is written in Chinese', (key, value) => {
    const text = String(value)
    expect(text, key).toMatch(cjk)
    // Placeholders are filled in at runtime and are not words the operator reads.
    const words = text.replace(/\{\{[^}]*\}\}/g, '').match(/[A-Za-z][A-Za-z_'-]*/g) ?? []
    expect(words.filter((word) => !allowed.has(word)), key).toEqual([])
  })

  it('is not a copy of any English entry', () => {
    const enByKey = new Map(leaves(enErrors))
    for (const [key, value] of leaves(zhErrors)) expect(value, key).not.toBe(enByKey.get(key))
  })
})
