/**
 * The session menu closes the way a menu does. In the
 * whole app against the mock daemon, in both languages:
 * - a press outside an open "⋯" menu closes it and leaves the focus where the press put it; a
 *   press on another session's "⋯" opens that one alone;
 * - Tab past the menu's last item closes it.
 */
import { screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { chooseFromMenu, expectFocusOn, renameField, renderAppAt, sessionPath, sessionsNav, user, wordsOf } from './session-helpers'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

describe.each(['en', 'zh'] as const)('session menu closing and telling (%s)', (lng) => {
  const t = wordsOf(lng)
  const menuButton = (title: string) => within(sessionsNav(t)).getByRole('button', { name: t('sessionMenu.actions', { title }) })
  const menu = (title: string) => within(sessionsNav(t)).queryByRole('group', { name: t('sessionMenu.actions', { title }) })

  it('a press outside the open menu closes it; the focus stays where the press put it', async () => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await user().click(menuButton('Deploy log'))
    expect(menu('Deploy log')).not.toBeNull()

    const composer = screen.getByRole('textbox', { name: t('composer.label') })
    await user().click(composer)
    expect(menu('Deploy log'), 'the menu after a press on the message box').toBeNull()
    expectFocusOn(composer, 'the message box that was pressed')
    expect(menuButton('Deploy log')).toHaveAttribute('aria-expanded', 'false')
  })

  it('a press on another session’s ⋯ opens that menu alone', async () => {
    createSession(daemon, 'Release notes')
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await user().click(menuButton('Deploy log'))
    await user().click(menuButton('Release notes'))
    expect(menu('Deploy log')).toBeNull()
    expect(menu('Release notes')).not.toBeNull()
  })

  it('a press on its own items still acts: Rename opens the field', async () => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Deploy log', 'rename')
    expectFocusOn(renameField(t, 'Deploy log'), 'the rename field')
  })

  it('Tab past the last item closes the menu', async () => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await user().click(menuButton('Deploy log'))
    const items = within(menu('Deploy log') as HTMLElement).getAllByRole('button')
    expectFocusOn(items[0] as HTMLElement, 'the first item')
    for (let i = 1; i < items.length; i++) await user().tab()
    expectFocusOn(items.at(-1) as HTMLElement, 'the last item')
    expect(menu('Deploy log'), 'the menu while its last item has the focus').not.toBeNull()
    await user().tab()
    expect(menu('Deploy log'), 'the menu once the focus left it').toBeNull()
  })
})
