import { render, screen } from '@testing-library/react'
import { I18nextProvider } from 'react-i18next'
import { describe, expect, it } from 'vitest'
import { FailureNotice } from '../../src/chat/reply/failure-notice'
import type { Language } from '../../src/i18n/resources'
import { createI18n } from '../../src/i18n/bundled'

function renderIn(lng: Language, ui: React.ReactElement) {
  const i18n = createI18n({ lng })
  return { t: i18n.t, ...render(<I18nextProvider i18n={i18n}>{ui}</I18nextProvider>) }
}

describe('FailureNotice', () => {
  it('marks the daemon’s own sentence as untranslated outside English, and keeps the code in small print', () => {
    const { t } = renderIn('zh', <FailureNotice error={{ code: 'flux_capacitor_depleted', message: 'The flux capacitor is depleted.' }} />)
    expect(screen.getByText('The flux capacitor is depleted.')).toHaveAttribute('lang', 'en')
    expect(screen.getByText(t('failure.raw'))).toBeInTheDocument()
    expect(screen.getByText('错误码：flux_capacitor_depleted')).toBeInTheDocument()
  })

  it('does not mark it in English, where the sentence reads as it is', () => {
    const { t } = renderIn('en', <FailureNotice error={{ code: 'flux_capacitor_depleted', message: 'The flux capacitor is depleted.' }} />)
    expect(screen.getByText('The flux capacitor is depleted.')).not.toHaveAttribute('lang')
    expect(screen.queryByText(t('failure.raw'))).toBeNull()
  })

  it('never marks a worded code, and renders daemon text as text, not HTML', () => {
    const { t, container } = renderIn('zh', <FailureNotice error={{ code: '', message: '<img src=x onerror="alert(1)">' }} />)
    expect(container.querySelector('img')).toBeNull()
    expect(screen.getByText('<img src=x onerror="alert(1)">')).toBeInTheDocument()
    renderIn('zh', <FailureNotice error={{ code: 'answer_empty', message: 'The model returned nothing.' }} />)
    expect(screen.getAllByText(t('failure.raw'))).toHaveLength(1)
  })

  it('says the retry class it is given, in the operator\'s language; a class no table knows is named', () => {
    const en = renderIn('en', <FailureNotice error={{ code: 'context_overflow', message: 'Too long.' }} retryClass="context_overflow" />)
    expect(screen.getByText(en.t('retryClass.context_overflow'))).toBeInTheDocument()
    en.unmount()
    const zh = renderIn('zh', <FailureNotice error={{ code: 'context_overflow', message: 'Too long.' }} retryClass="context_overflow" />)
    expect(screen.getByText(zh.t('retryClass.context_overflow'))).toBeInTheDocument()
    expect(zh.t('retryClass.context_overflow')).not.toBe(en.t('retryClass.context_overflow'))
    zh.unmount()
    renderIn('en', <FailureNotice error={{ code: 'x', message: 'x' }} retryClass="solar_flare" />)
    expect(screen.getByText(/solar_flare/)).toBeInTheDocument()
  })
})
