// @vitest-environment jsdom
/**
 * The fault simulator panel over a real in-memory mock daemon: the tier 1 quick buttons plan
 * what they say, and an unknown outcome is worded in the operator's language, the outcome names
 * kept verbatim, and reworded when the language changes.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { createElement } from 'react'
import { I18nextProvider } from 'react-i18next'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { handleFor } from '../../mocks/handle'
import { createDaemon, type MockDaemon } from '../../mocks/model'
import SimulatorPanel from '../../src/app/simulator-panel'
import type { Language } from '../../src/i18n/resources'
import { createI18n } from '../../src/i18n/bundled'

let daemon: MockDaemon

beforeEach(() => {
  daemon = createDaemon()
  window.__mockDaemon = handleFor(daemon)
})
afterEach(() => {
  cleanup()
  daemon.dispose()
  delete window.__mockDaemon
})

function renderPanel(lng: Language) {
  const i18n = createI18n({ lng })
  render(
    createElement(
      I18nextProvider,
      { i18n },
      createElement(QueryClientProvider, { client: new QueryClient() }, createElement(SimulatorPanel)),
    ),
  )
  return i18n
}

function submit(text: string) {
  const input = document.querySelector<HTMLInputElement>('#simulator-plan')!
  fireEvent.change(input, { target: { value: text } })
  fireEvent.submit(input.form!)
}

describe('the simulator panel', () => {
  it('offers tier1:1, tier1:2, tier1:3, rate_limited:20 and rate_limited:90, each queued as it reads', () => {
    renderPanel('en')
    const quick = ['tier1:1', 'tier1:2', 'tier1:3', 'rate_limited:20', 'rate_limited:90']
    for (const outcome of quick) fireEvent.click(screen.getByRole('button', { name: outcome }))
    expect(daemon.state().plan).toEqual(quick)
    expect(document.querySelector('.simulator code')?.textContent).toBe(quick.join(', '))
  })

  it('words an unknown outcome in Chinese, with the entry, its position and the known forms verbatim', () => {
    const i18n = renderPanel('zh')
    daemon.plan(['hang'])
    submit('ok, tier1:2, tier1:two')
    const alert = screen.getByRole('alert')
    expect(alert.textContent).toContain('第 3 项“tier1:two”不是已知的结果')
    expect(alert.textContent).toContain('tier1:N')
    expect(alert.textContent).toContain('rate_limited:S')
    // No English sentence around the names: only outcome names (a-z, digits, _ and :) are Latin.
    const latin = (alert.textContent ?? '').match(/[A-Za-z][A-Za-z0-9_:]*/g) ?? []
    expect(latin.filter((word) => !/^[a-z0-9_]+(:[A-Za-z0-9_]+)?$/.test(word))).toEqual([])
    expect(alert.textContent).not.toMatch(/Unknown|outcome|position/)
    // A refused plan changes nothing.
    expect(daemon.state().plan).toEqual(['hang'])

    act(() => void i18n.changeLanguage('en'))
    expect(screen.getByRole('alert').textContent).toMatch(/^Unknown outcome “tier1:two” at position 3\. Known outcomes: ok, slow, /)
  })

  it('clears the error once a plan is accepted', () => {
    renderPanel('en')
    submit('flux')
    expect(screen.getByRole('alert').textContent).toContain('“flux” at position 1')
    submit('tier1:3')
    expect(screen.queryByRole('alert')).toBeNull()
    expect(daemon.state().plan).toEqual(['tier1:3'])
  })
})
