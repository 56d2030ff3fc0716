/**
 * i18next set-up. Each call makes its own instance, so tests and stories never share language
 * state; the app makes one at boot with detection on.
 */
import i18next, { type i18n as I18n } from 'i18next'
import LanguageDetector, { type DetectorOptions } from 'i18next-browser-languagedetector'
import { initReactI18next } from 'react-i18next'
import { resources, SUPPORTED_LANGUAGES, toLanguage, type Language } from './resources'

/** Where the detector reads the language from, first match wins; the choice is kept in localStorage. */
export const DETECTION: DetectorOptions = {
  order: ['querystring', 'localStorage', 'navigator', 'htmlTag'],
  lookupQuerystring: 'lang',
  lookupLocalStorage: 'rebound.lang',
  caches: ['localStorage'],
}

/**
 * The `<html lang>` value for each language. Chinese is tagged with its script: browsers pick
 * Han glyphs by it, and this table is Simplified Chinese.
 */
export const HTML_LANG: Record<Language, string> = { en: 'en', zh: 'zh-Hans' }

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
  const instance = i18next.createInstance()
  instance.use(initReactI18next)
  if (options.detect) instance.use(LanguageDetector)
  // Registered before init so the first language is mirrored too.
  instance.on('languageChanged', () => syncHtmlLang(instance))
  // init returns a promise, but with bundled resources and initAsync off it has already settled.
  void instance.init({
    resources,
    ...(options.lng ? { lng: options.lng } : {}),
    fallbackLng: SUPPORTED_LANGUAGES[0],
    supportedLngs: SUPPORTED_LANGUAGES,
    // zh-CN, zh-TW, en-GB… resolve to the table of their language.
    load: 'languageOnly',
    // Language tags are case-insensitive: ?lang=ZH is Chinese too.
    cleanCode: true,
    nonExplicitSupportedLngs: true,
    defaultNS: 'translation',
    ns: ['translation'],
    initAsync: false,
    // React escapes what it renders; escaping here too would show "&amp;" to the operator.
    interpolation: { escapeValue: false },
    // On: every init would log its options, and console output fails tests.
    debug: false,
    detection: DETECTION,
  })
  return instance
}

/**
 * The supported language the instance is showing (`resolvedLanguage`, which is `zh` even when the
 * detected tag was `zh-CN`).
 */
export function currentLanguage(instance: I18n): Language {
  return toLanguage(instance.resolvedLanguage) ?? toLanguage(instance.language) ?? SUPPORTED_LANGUAGES[0]
}

/**
 * Switches the interface language. With detection on, the detector stores the choice
 * (localStorage `rebound.lang`) so a reload keeps it. Resolves once the switch is done, which with
 * bundled resources is at once.
 */
export async function setLanguage(instance: I18n, lng: Language): Promise<void> {
  await instance.changeLanguage(lng)
}

function syncHtmlLang(instance: I18n): void {
  // Node tests and server rendering have no document; the language still changes.
  if (typeof document === 'undefined') return
  document.documentElement.lang = HTML_LANG[currentLanguage(instance)]
}
