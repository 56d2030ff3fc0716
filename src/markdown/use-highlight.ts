import { useEffect, useState } from 'react'
import type { HighlightedLine } from './highlighter'
import type { LanguageId } from './languages'
import { setNewest } from '../storage/bounded'

/** Highlighted code kept across mounts (a reply scrolled out of a windowed list and back). */
const cache = new Map<string, HighlightedLine[]>()
/** Enough for the code blocks near the view and those just scrolled past; the oldest are dropped first. */
const CACHE_LIMIT = 60

const cacheKey = (language: LanguageId, code: string) => `${language}\u0000${code}`

function remember(key: string, lines: HighlightedLine[]): void {
  setNewest(cache, key, lines, CACHE_LIMIT)
}

/** Whether `code` has been highlighted as `language` already: a block showing it needs no highlighting made. */
export function isHighlighted(code: string, language: LanguageId): boolean {
  return cache.has(cacheKey(language, code))
}

/** The highlighter's client, imported on the first code block that asks for it (its own chunk; it starts the highlight worker). */
const loadHighlighter = () => import('./highlight-client')

/**
 * The highlighted lines of `code` once they are ready, or undefined meanwhile (and for no
 * language, or while `enabled` is false: the block is still streaming in). Lines highlighted
 * before (by this mount or another) show at once; new ones are made only once `start` is true
 * (the block has been seen). Shiki and the grammar load on first use; a failure to load leaves
 * the code plain, which is still correct.
 */
export function useHighlight(code: string, language: LanguageId | undefined, enabled: boolean, start = true): HighlightedLine[] | undefined {
  const key = language === undefined ? undefined : cacheKey(language, code)
  const [result, setResult] = useState<{ key: string; lines: HighlightedLine[] } | undefined>(() => {
    const lines = key === undefined ? undefined : cache.get(key)
    return key !== undefined && lines !== undefined ? { key, lines } : undefined
  })

  useEffect(() => {
    if (!enabled || !start || language === undefined || key === undefined || cache.has(key)) return
    let current = true
    loadHighlighter()
      .then(({ highlight }) => highlight(code, language))
      .then(
        (lines) => {
          remember(key, lines)
          if (current) setResult({ key, lines })
        },
        // Plain code is the fallback for anything that goes wrong; nothing to tell the operator.
        () => undefined,
      )
    return () => {
      current = false
    }
  }, [code, language, key, enabled, start])

  if (!enabled || key === undefined) return undefined
  if (result?.key === key) return result.lines
  // Highlighted by another mount since this one rendered first.
  return cache.get(key)
}
