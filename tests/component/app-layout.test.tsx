/**
 * The shell's sessions panel on a narrow screen (matchMedia stubbed; jsdom has none, which reads
 * as wide): a button with aria-expanded and aria-controls, focus into the panel on open and back
 * on close, Escape closes it, picking a session closes it, the conversation behind is inert.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { resources } from '../../src/i18n/bundled'
import { NARROW_LAYOUT } from '../../src/app/use-media-query'
import { advance, advanceUntil, createSession, installFakeClock, renderApp, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()
const user = () => userEvent.setup({ delay: null })

/** A matchMedia where only the narrow-layout query matches, or none does. */
function stubWidth(narrow: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: narrow && query === NARROW_LAYOUT,
    media: query,
    addEventListener: () => {},
    removeEventListener: () => {},
  }))
}

beforeEach(() => {
  installFakeClock()
  window.history.replaceState(null, '', '/')
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
  window.history.replaceState(null, '', '/')
})

describe.each(['en', 'zh'] as const)('narrow screen (%s)', (lng) => {
  const words = resources[lng].translation

  it('folds the sessions panel behind a button worked from the keyboard', async () => {
    stubWidth(true)
    createSession(daemon, 'Older')
    createSession(daemon, 'Newer')
    renderApp({ lng })
    await advance(50)
    const toggle = screen.getByRole('button', { name: words.layout.sessionsToggle })
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    const panel = document.getElementById(toggle.getAttribute('aria-controls') ?? '')
    expect(panel).not.toBeNull()
    expect(panel).not.toHaveClass('app__side--open')
    expect(screen.getByRole('main')).not.toHaveAttribute('inert')

    toggle.focus()
    await user().keyboard('{Enter}')
    expect(toggle).toHaveAttribute('aria-expanded', 'true')
    expect(panel).toHaveClass('app__side--open')
    expect(screen.getByRole('main', { hidden: true })).toHaveAttribute('inert')
    // No session in view yet: focus goes to the first control, New session.
    expect(within(panel!).getByRole('button', { name: words.sessions.new })).toHaveFocus()

    await user().keyboard('{Escape}')
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(toggle).toHaveFocus()

    // Picking a session opens it and closes the panel, focus back on the button.
    await user().keyboard('{Enter}')
    await user().click(within(panel!).getByRole('link', { name: /Older/ }))
    await advance(50)
    expect(window.location.pathname).toMatch(/^\/sessions\//)
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(toggle).toHaveFocus()

    // Opened again, focus lands on the session in view.
    await user().click(toggle)
    await advanceUntil(() => within(panel!).queryByRole('link', { current: 'page' }) !== null, 'the current session marked')
    expect(within(panel!).getByRole('link', { current: 'page' })).toHaveFocus()
    await user().click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
  })
})

describe('wide screen', () => {
  it('leaves the panel in place: the button never opens an overlay, Escape does nothing', async () => {
    stubWidth(false)
    renderApp()
    await advance(50)
    const toggle = screen.getByRole('button', { name: resources.en.translation.layout.sessionsToggle, hidden: true })
    await user().click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(screen.getByRole('main')).not.toHaveAttribute('inert')
    expect(screen.getByRole('button', { name: resources.en.translation.sessions.new })).toBeInTheDocument()
  })
})
