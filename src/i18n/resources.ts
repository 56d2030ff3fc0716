/**
 * The word tables, typed. English is the source of the types: every Chinese table is assigned to
 * the type of its English twin, so a key present in English and missing in Chinese fails `tsc`
 * (and the reverse assignment catches a key only Chinese has). JSON imports type each string
 * value as `string`, which is what makes this a check of keys, not of wording.
 */
import enApp from '../../locales/en/app.json'
import enErrors from '../../locales/en/errors.json'
import type { ErrorCode, RefusalCode, RetryClass, ToolErrorCode } from '../wire/types'

/** Languages the interface is written in; the first is the fallback. */
export const SUPPORTED_LANGUAGES = ['en', 'zh'] as const
export type Language = (typeof SUPPORTED_LANGUAGES)[number]

/** True when `value` is one of SUPPORTED_LANGUAGES exactly (no region: use `toLanguage` for that). */
export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (SUPPORTED_LANGUAGES as readonly string[]).includes(value)
}

/**
 * The supported language a BCP 47 tag belongs to (`zh-CN` → `zh`, `en-GB` → `en`), or undefined.
 * Every Chinese tag maps to the Simplified table: it is the only Chinese one there is.
 */
export function toLanguage(tag: string | undefined | null): Language | undefined {
  const primary = tag?.toLowerCase().split(/[-_]/)[0]
  return isLanguage(primary) ? primary : undefined
}

// Every code the daemon can send and every retry class has an English entry (and so a Chinese one).
const _everyCodeWorded: Record<ErrorCode | RefusalCode | ToolErrorCode, string> = enErrors.errors
const _everyRetryClassWorded: Record<RetryClass, string> = enErrors.retryClass

// The two files are merged into one namespace; a top-level key in both would silently lose one side.
type SharedTopLevelKeys = keyof typeof enApp & keyof typeof enErrors
const _noSharedTopLevelKeys: [SharedTopLevelKeys] extends [never] ? true : false = true

/** The English error table: the source of the known codes. */
export const errorTable = enErrors.errors
/** The English retry-class table: the source of the known classes. */
export const retryClassTable = enErrors.retryClass
/** A code this client has words for (the daemon's code exactly, plus the client's own wire codes). */
export type KnownErrorCode = keyof typeof enErrors.errors
/** A retry class this client has words for. */
export type KnownRetryClass = keyof typeof enErrors.retryClass

/** The English `translation` namespace: app chrome and errors merged. Always bundled: it is the fallback. */
export const enTranslation = { ...enApp, ...enErrors }
export type Translation = typeof enTranslation
