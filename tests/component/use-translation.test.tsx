/**
 * The interface's translation hook: words in the provider's instance and language, rendered again
 * when the language changes and not otherwise, one `t` shared by every component until then.
 */
import { act, render, screen } from '@testing-library/react'
import { memo, useEffect } from 'react'
import { I18nextProvider } from 'react-i18next'
import type { TFunction } from 'i18next'
import { describe, expect, it, vi } from 'vitest'
import { createI18n } from '../../src/i18n/bundled'
import { useTranslation } from '../../src/i18n/use-translation'

function Word({ name, seen }: { name: string; seen: TFunction[] }) {
  const { t, i18n } = useTranslation()
  useEffect(() => {
    seen.push(t)
  })
  return <p data-testid={name} lang={i18n.language}>{t('composer.send')}</p>
}

const Still = memo(Word)

describe('useTranslation', () => {
  it('words in the provider’s language, and again in the new one when it changes, with one t per language for every component', async () => {
    const i18n = createI18n({ lng: 'en' })
    const seen: TFunction[] = []
    const view = render(
      <I18nextProvider i18n={i18n}>
        <Word name="a" seen={seen} />
        <Still name="b" seen={seen} />
      </I18nextProvider>,
    )
    const english = i18n.getFixedT('en')('composer.send')
    const chinese = i18n.getFixedT('zh')('composer.send')
    expect(english).not.toBe(chinese)
    expect(screen.getByTestId('a')).toHaveTextContent(english)
    expect(screen.getByTestId('b')).toHaveTextContent(english)
    expect(seen).toHaveLength(2)
    expect(seen[0]).toBe(seen[1])

    // A render for another reason keeps the same t.
    view.rerender(
      <I18nextProvider i18n={i18n}>
        <Word name="a" seen={seen} />
        <Still name="b" seen={seen} />
      </I18nextProvider>,
    )
    expect(seen).toHaveLength(3)
    expect(seen[2]).toBe(seen[0])

    // A language change renders both again, the memoized one too, in Chinese.
    await act(() => i18n.changeLanguage('zh'))
    expect(screen.getByTestId('a')).toHaveTextContent(chinese)
    expect(screen.getByTestId('b')).toHaveTextContent(chinese)
    expect(screen.getByTestId('b')).toHaveAttribute('lang', 'zh')
    expect(seen).toHaveLength(5)
    expect(seen[3]).toBe(seen[4])
    expect(seen[3]).not.toBe(seen[0])
  })

  it('keeps each instance apart: two providers, two languages', () => {
    const seen: TFunction[] = []
    const en = createI18n({ lng: 'en' })
    const zh = createI18n({ lng: 'zh' })
    render(
      <>
        <I18nextProvider i18n={en}>
          <Word name="en" seen={seen} />
        </I18nextProvider>
        <I18nextProvider i18n={zh}>
          <Word name="zh" seen={seen} />
        </I18nextProvider>
      </>,
    )
    expect(screen.getByTestId('en')).toHaveTextContent(en.t('composer.send'))
    expect(screen.getByTestId('zh')).toHaveTextContent(zh.t('composer.send'))
    expect(en.t('composer.send')).not.toBe(zh.t('composer.send'))
  })

  it('resolves a plain label once per language, and a call with options every time', async () => {
    const i18n = createI18n({ lng: 'en' })
    const expected = { en: i18n.getFixedT('en')('composer.send'), zh: i18n.getFixedT('zh')('composer.send'), three: i18n.getFixedT('en')('transcript.earlierVersions', { count: 3 }) }
    // i18next's resolver, which every t call that is not kept goes through (not in its public type).
    const { translator } = i18n as unknown as { translator: { translate: (key: unknown, options?: unknown) => unknown } }
    const translate = vi.spyOn(translator, 'translate')
    const words: string[] = []
    function Labels({ count }: { count: number }) {
      const { t } = useTranslation()
      words.push(t('composer.send'), t('transcript.earlierVersions', { count }))
      return null
    }
    const view = render(
      <I18nextProvider i18n={i18n}>
        <Labels count={1} />
      </I18nextProvider>,
    )
    for (const count of [2, 3])
      view.rerender(
        <I18nextProvider i18n={i18n}>
          <Labels count={count} />
        </I18nextProvider>,
      )
    const keys = (): string[] => translate.mock.calls.map((call: unknown[]) => String(call[0]))
    expect(keys().filter((key) => key === 'composer.send')).toHaveLength(1)
    expect(keys().filter((key) => key === 'transcript.earlierVersions')).toHaveLength(3)
    expect(words.filter((_, i) => i % 2 === 0)).toEqual(Array(3).fill(expected.en))
    expect(words.at(-1)).toBe(expected.three)

    // Another language: its own words, resolved once more.
    await act(() => i18n.changeLanguage('zh'))
    expect(keys().filter((key) => key === 'composer.send')).toHaveLength(2)
    expect(words.at(-2)).toBe(expected.zh)
  })
})
