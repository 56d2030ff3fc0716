// @vitest-environment jsdom
// Detection reads the address, localStorage and the browser's languages, and `<html lang>` needs
// a document: this file alone of the i18n suite runs in jsdom.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createI18n, resources } from '../../src/i18n/bundled'
import { createAppI18n, currentLanguage, setLanguage } from '../../src/i18n/setup'
import { isLanguage, SUPPORTED_LANGUAGES, toLanguage } from '../../src/i18n/resources'

afterEach(() => {
  localStorage.clear()
  window.history.replaceState(null, '', '/')
  document.documentElement.lang = ''
})

describe('createI18n', () => {
  it('is ready as soon as it returns, in English by default', () => {
    const i18n = createI18n()
    expect(i18n.isInitialized).toBe(true)
    expect(currentLanguage(i18n)).toBe('en')
    expect(i18n.t('errors.answer_empty')).toBe(resources.en.translation.errors.answer_empty)
    expect(i18n.t('app.title')).toBe('Rebound')
  })

  it('starts in the language asked for and sets <html lang>', () => {
    const i18n = createI18n({ lng: 'zh' })
    expect(i18n.t('errors.answer_empty')).toBe(resources.zh.translation.errors.answer_empty)
    expect(document.documentElement.lang).toBe('zh-Hans')
  })

  it('does not escape interpolated values (React does)', () => {
    const i18n = createI18n({ lng: 'en' })
    expect(i18n.t('failure.unknown', { code: 'a<b>&c' })).toContain('a<b>&c')
  })

  it('keeps separate instances independent', async () => {
    const a = createI18n({ lng: 'en' })
    const b = createI18n({ lng: 'en' })
    await setLanguage(b, 'zh')
    expect(currentLanguage(a)).toBe('en')
    expect(currentLanguage(b)).toBe('zh')
  })
})

describe('detection', () => {
  it('takes ?lang= first', () => {
    window.history.replaceState(null, '', '/?lang=zh')
    localStorage.setItem('rebound.lang', 'en')
    expect(currentLanguage(createI18n({ detect: true }))).toBe('zh')
  })

  it('then the stored choice', () => {
    localStorage.setItem('rebound.lang', 'zh')
    expect(currentLanguage(createI18n({ detect: true }))).toBe('zh')
  })

  it('then the browser language, zh-CN resolving to zh', () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['zh-CN', 'en'])
    const i18n = createI18n({ detect: true })
    expect(currentLanguage(i18n)).toBe('zh')
    expect(i18n.t('failure.generic')).toBe(resources.zh.translation.failure.generic)
    expect(document.documentElement.lang).toBe('zh-Hans')
  })

  it('falls back to English for a language it has no table for', () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['fr-FR'])
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('fr-FR')
    const i18n = createI18n({ detect: true })
    expect(currentLanguage(i18n)).toBe('en')
    expect(i18n.t('failure.generic')).toBe(resources.en.translation.failure.generic)
  })

  it('remembers a switch in localStorage and mirrors it on <html lang>', async () => {
    const i18n = createI18n({ detect: true, lng: 'en' })
    expect(document.documentElement.lang).toBe('en')
    await setLanguage(i18n, 'zh')
    expect(localStorage.getItem('rebound.lang')).toBe('zh')
    expect(document.documentElement.lang).toBe('zh-Hans')
    expect(currentLanguage(createI18n({ detect: true }))).toBe('zh')
  })
})

describe('language helpers', () => {
  it('maps tags to supported languages', () => {
    expect(SUPPORTED_LANGUAGES).toEqual(['en', 'zh'])
    expect(toLanguage('zh-CN')).toBe('zh')
    expect(toLanguage('zh_TW')).toBe('zh')
    expect(toLanguage('EN-gb')).toBe('en')
    expect(toLanguage('fr')).toBeUndefined()
    expect(toLanguage(undefined)).toBeUndefined()
    expect(isLanguage('zh')).toBe(true)
    expect(isLanguage('zh-CN')).toBe(false)
  })
})

describe('createAppI18n (the app: English bundled, Chinese fetched)', () => {
  it('starts in English with nothing to fetch', async () => {
    const i18n = await createAppI18n()
    expect(currentLanguage(i18n)).toBe('en')
    expect(i18n.t('errors.answer_empty')).toBe(resources.en.translation.errors.answer_empty)
    expect(i18n.hasResourceBundle('zh', 'translation')).toBe(false)
  })

  it('fetches the Chinese table before it resolves when ?lang=zh asks for it, so the first words are Chinese', async () => {
    window.history.replaceState(null, '', '/?lang=zh')
    const i18n = await createAppI18n()
    expect(currentLanguage(i18n)).toBe('zh')
    expect(i18n.t('errors.answer_empty')).toBe(resources.zh.translation.errors.answer_empty)
    expect(document.documentElement.lang).toBe('zh-Hans')
  })

  it('fetches the Chinese table on a switch, and the choice survives the next start', async () => {
    const i18n = await createAppI18n()
    await setLanguage(i18n, 'zh')
    expect(currentLanguage(i18n)).toBe('zh')
    expect(i18n.t('app.title')).toBe(resources.zh.translation.app.title)
    expect(i18n.t('errors.model_rate_limited')).toBe(resources.zh.translation.errors.model_rate_limited)
    await setLanguage(i18n, 'en')
    expect(i18n.t('errors.model_rate_limited')).toBe(resources.en.translation.errors.model_rate_limited)
    await setLanguage(i18n, 'zh')
    const next = await createAppI18n()
    expect(currentLanguage(next)).toBe('zh')
    expect(next.t('errors.answer_empty')).toBe(resources.zh.translation.errors.answer_empty)
  })
})
