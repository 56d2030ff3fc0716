/**
 * Both word tables bundled, for tests and stories, which switch language synchronously. Not
 * imported by the app: its instance (`createAppI18n`) fetches the Chinese table on demand, and a
 * static import of it from here would put it back in the initial script.
 */
import type { i18n as I18n } from 'i18next'
import { enTranslation, type Language } from './resources'
import { baseOptions, newInstance } from './setup'
import { zhTranslation } from './zh-tables'

/** i18next resources: one `translation` namespace per language, app chrome and errors merged. */
export const resources = {
  en: { translation: enTranslation },
  zh: { translation: zhTranslation },
} as const

export type CreateI18nOptions = {
  /** Start in this language; it wins over detection. Default: detected, else English. */
  lng?: Language
  /** Detect the language (query `?lang=`, localStorage, the browser, `<html lang>`) and remember a change. */
  detect?: boolean
}

/**
 * Creates and initialises an i18next instance with both tables, bound to react-i18next.
 * Initialisation is synchronous (resources are bundled and `initAsync` is off), so `t` works as
 * soon as this returns. `<html lang>` follows the language from here on, where there is a document.
 */
export function createI18n(options: CreateI18nOptions = {}): I18n {
  const instance = newInstance(options.detect)
  // init returns a promise, but with bundled resources and initAsync off it has already settled.
  void instance.init(baseOptions({ resources, ...(options.lng ? { lng: options.lng } : {}) }))
  return instance
}
