/**
 * Where the interface language comes from, first match wins: `?lang=` in the address, the choice
 * kept in localStorage (`rebound.lang`), the browser's languages, `<html lang>`. A switch is kept
 * there. i18next picks the first of these it has a table for (zh-CN → zh), else English.
 *
 * Four lookups, so the app does not carry a general detector (cookies, session storage, paths,
 * subdomains) in its initial script.
 */
import type { LanguageDetectorModule } from 'i18next'

const STORED_LANGUAGE_KEY = 'rebound.lang'

/**
 * A tag as i18next takes one from outside (letters, digits, `-`, `_`, `@`, `.`; at most 128
 * characters): nothing detected can carry markup or quotes further.
 */
const isSafeTag = (tag: string) => /^[A-Za-z0-9_@.-]{1,128}$/.test(tag) && !tag.includes('..')

/** localStorage, or nothing where it throws (storage disabled, an opaque origin). */
function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage
  } catch {
    return undefined
  }
}

function detect(): string[] {
  const found: Array<string | null | undefined> = []
  if (typeof window !== 'undefined') found.push(new URLSearchParams(window.location.search).get('lang'))
  try {
    found.push(storage()?.getItem(STORED_LANGUAGE_KEY))
  } catch {
    // Reading can throw too (a storage quota error, a browser setting): nothing stored, then.
  }
  if (typeof navigator !== 'undefined') found.push(...(navigator.languages ?? []), navigator.language)
  if (typeof document !== 'undefined') found.push(document.documentElement.getAttribute('lang'))
  return found.filter((tag): tag is string => typeof tag === 'string' && isSafeTag(tag))
}

export const languageDetector: LanguageDetectorModule = {
  type: 'languageDetector',
  detect,
  cacheUserLanguage(language) {
    if (language === 'cimode') return
    try {
      storage()?.setItem(STORED_LANGUAGE_KEY, language)
    } catch {
      // Full or refused: the choice lasts this page only.
    }
  },
}
