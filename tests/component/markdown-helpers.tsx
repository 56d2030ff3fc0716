/** Rendering helpers shared by the Markdown component tests. */
import { render, type RenderResult } from '@testing-library/react'
import type { ReactElement, ReactNode } from 'react'
import { I18nextProvider } from 'react-i18next'
import type { Language } from '../../src/i18n/resources'
import { createI18n } from '../../src/i18n/bundled'

/** Renders `ui` with its own i18n instance in `lng`; `rerender` keeps the same instance. */
export function renderInLanguage(ui: ReactElement, lng: Language = 'en'): RenderResult & { t: ReturnType<typeof createI18n>['t'] } {
  const i18n = createI18n({ lng })
  const wrap = (element: ReactNode) => <I18nextProvider i18n={i18n}>{element}</I18nextProvider>
  const result = render(wrap(ui))
  return { ...result, rerender: (next: ReactNode) => result.rerender(wrap(next)), t: i18n.t }
}
