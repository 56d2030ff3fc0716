/**
 * The interface's translation hook: words in the provider's instance and language, rendered again
 * when the language changes and not otherwise, one `t` shared by every component until then.
 */
import { act, render, screen } from '@testing-library/react'
import { memo, useEffect } from 'react'
import { I18nextProvider } from 'react-i18next'
import type { TFunction } from 'i18next'
import { describe, expect, it } from 'vitest'
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
})
