/**
 * i18next set-up. Each call makes its own instance, so tests and stories never share language
 * state; the app makes one at boot (`createAppI18n`) with detection on and English bundled.
 * Tests and stories make theirs with both tables bundled (`createI18n` in bundled.ts).
 */
import i18next, { type BackendModule, type i18n as I18n, type InitOptions, type Resource } from 'i18next'
import LanguageDetector, { type DetectorOptions } from 'i18next-browser-languagedetector'
import { initReactI18next } from 'react-i18next'
import { enTranslation, SUPPORTED_LANGUAGES, toLanguage, type Language, type Translation } from './resources'

/** Where the detector reads the language from, first match wins; the choice is kept in localStorage. */
const DETECTION: DetectorOptions = {
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

/** What every instance shares (the app's and `createI18n`'s): languages, tag handling, no escaping (React escapes), no logging. */
export function baseOptions(extra: InitOptions): InitOptions {
  return {
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
    ...extra,
  }
}

/** A fresh instance bound to react-i18next, mirroring its language on `<html lang>`; with `detect`, the detector too. */
export function newInstance(detect: boolean | undefined): I18n {
  const instance = i18next.createInstance()
  instance.use(initReactI18next)
  if (detect) instance.use(LanguageDetector)
  // Registered before init so the first language is mirrored too.
  instance.on('languageChanged', () => syncHtmlLang(instance))
  return instance
}

/** Tables other than English, each its own chunk, fetched the first time its language is shown. */
const TABLE_LOADERS: Record<Exclude<Language, 'en'>, () => Promise<Translation>> = {
  zh: () => import('./zh-tables').then((module) => module.zhTranslation),
}

/** An i18next backend over TABLE_LOADERS (English is bundled and never asked for). */
const lazyTables: BackendModule = {
  type: 'backend',
  callbackApi: true,
  init() {},
  read(language, _namespace, callback) {
    const lang = toLanguage(language)
    const load = lang === undefined || lang === 'en' ? undefined : TABLE_LOADERS[lang]
    if (!load) {
      callback(null, {})
      return
    }
    load().then(
      (table) => callback(null, table),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    )
  },
}

/**
 * The app's instance: the language detected (query `?lang=`, localStorage, the browser), English
 * bundled, and any other table fetched before this resolves, so the first screen is already in
 * the operator's language and the initial script carries one table instead of two. A later
 * switch (`setLanguage`) fetches the table before the words change. If a table cannot be fetched
 * (offline after a deploy), the words fall back to English rather than to keys.
 */
export async function createAppI18n(): Promise<I18n> {
  const instance = newInstance(true)
  instance.use(lazyTables)
  const bundled: Resource = { en: { translation: enTranslation } }
  await instance.init(baseOptions({ resources: bundled, partialBundledLanguages: true }))
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
 * (localStorage `rebound.lang`) so a reload keeps it. Resolves once the switch is done: at once with
 * bundled resources, after its table is fetched otherwise.
 */
export async function setLanguage(instance: I18n, lng: Language): Promise<void> {
  await instance.changeLanguage(lng)
}

function syncHtmlLang(instance: I18n): void {
  // Node tests and server rendering have no document; the language still changes.
  if (typeof document === 'undefined') return
  document.documentElement.lang = HTML_LANG[currentLanguage(instance)]
}
