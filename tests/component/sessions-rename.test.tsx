/**
 * Renaming a session in place, in the whole app against the mock daemon: from the "⋯" menu and
 * by double-click; Enter saves with one PATCH, Escape keeps the old title and sends nothing; the
 * daemon's refusals (title_empty, title_too_long) are worded under the field in both languages;
 * focus goes back to the session's link when the rename ends.
 */
import { screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MAX_TITLE_LENGTH } from '../../src/wire/types'
import { advance, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { chooseFromMenu, expectFocusOn, listedTitles, renameField, renderAppAt, requestLines, sessionLink, sessionPath, SESSION_WRITES, user, wordsOf } from './session-helpers'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

const PATCHES = /^PATCH \/api\/v1\/sessions\//

describe.each(['en', 'zh'] as const)('rename (%s)', (lng) => {
  const t = wordsOf(lng)

  it('from the menu: the field holds the title, selected; Enter saves with one PATCH and focus goes back to the link', async () => {
    createSession(daemon, 'Release notes')
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    expect(listedTitles(t)).toEqual(['Deploy log', 'Release notes'])

    await chooseFromMenu(t, 'Deploy log', 'rename')
    const field = renameField(t, 'Deploy log')
    expect(field).toHaveValue('Deploy log')
    expectFocusOn(field, 'the rename field')
    expect([field.selectionStart, field.selectionEnd]).toEqual([0, 'Deploy log'.length])
    expect(requestLines(daemon, PATCHES)).toEqual([])

    // The whole title is selected: typing replaces it.
    await user().keyboard('Deploy log, 30 Nov{Enter}')
    await advance(20)
    expect(requestLines(daemon, PATCHES)).toEqual([`PATCH /api/v1/sessions/${sid}`])
    expect(daemon.state().sessions.find((s) => s.id === sid)?.title).toBe('Deploy log, 30 Nov')
    expect(screen.queryByRole('textbox', { name: t('sessionMenu.renameLabel', { title: 'Deploy log' }) })).toBeNull()
    expect(listedTitles(t)).toEqual(['Deploy log, 30 Nov', 'Release notes'])
    const link = sessionLink(t, 'Deploy log, 30 Nov')
    expectFocusOn(link, 'the renamed session’s link')
    // Still the session in view.
    expect(link).toHaveAttribute('aria-current', 'page')
    expect(window.location.pathname).toBe(sessionPath(sid))
    expect(requestLines(daemon, SESSION_WRITES)).toEqual([`PATCH /api/v1/sessions/${sid}`])
  })

  it('by double-click on a session that is not open; a title with Chinese and spaces is trimmed by the daemon', async () => {
    const sid = createSession(daemon, 'Old title')
    const other = createSession(daemon, 'In view')
    await renderAppAt(sessionPath(other), lng)
    await user().dblClick(sessionLink(t, 'Old title'))
    const field = renameField(t, 'Old title')
    expectFocusOn(field, 'the rename field')
    await user().clear(field)
    await user().type(field, '  部署日志 11 月  {Enter}')
    await advance(20)
    expect(daemon.state().sessions.find((s) => s.id === sid)?.title).toBe('部署日志 11 月')
    expect(listedTitles(t)).toEqual(['In view', '部署日志 11 月'])
    expectFocusOn(sessionLink(t, '部署日志 11 月'), 'the renamed link')
    expect(requestLines(daemon, PATCHES)).toHaveLength(1)
  })

  it('Escape keeps the old title, sends nothing and gives the focus back to the link', async () => {
    const sid = createSession(daemon, 'Keep me')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Keep me', 'rename')
    await user().keyboard('Something else')
    expect(renameField(t, 'Keep me')).toHaveValue('Something else')
    await user().keyboard('{Escape}')
    await advance(20)
    expect(screen.queryByRole('textbox', { name: t('sessionMenu.renameLabel', { title: 'Keep me' }) })).toBeNull()
    expect(listedTitles(t)).toEqual(['Keep me'])
    expectFocusOn(sessionLink(t, 'Keep me'), 'the session’s link')
    expect(requestLines(daemon, SESSION_WRITES)).toEqual([])
    expect(daemon.state().sessions[0]?.title).toBe('Keep me')
  })

  it('the ⋯ menu: Escape closes it and gives the focus back to its button; the button toggles it', async () => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    const button = screen.getByRole('button', { name: t('sessionMenu.actions', { title: 'Deploy log' }) })
    expect(button).toHaveAttribute('aria-expanded', 'false')
    await user().click(button)
    expect(button).toHaveAttribute('aria-expanded', 'true')
    const menu = screen.getByRole('group', { name: t('sessionMenu.actions', { title: 'Deploy log' }) })
    expect(button).toHaveAttribute('aria-controls', menu.id)
    expectFocusOn(within(menu).getByRole('button', { name: t('sessionMenu.rename') }), 'the first item')
    await user().keyboard('{Escape}')
    expect(screen.queryByRole('group', { name: t('sessionMenu.actions', { title: 'Deploy log' }) })).toBeNull()
    expectFocusOn(button, 'the ⋯ button')
    await user().click(button)
    await user().click(button)
    expect(screen.queryByRole('group', { name: t('sessionMenu.actions', { title: 'Deploy log' }) })).toBeNull()
    expect(requestLines(daemon, SESSION_WRITES)).toEqual([])
  })

  it('Enter on the unchanged title is no rename: nothing is sent', async () => {
    const sid = createSession(daemon, 'Same')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Same', 'rename')
    await user().keyboard('{Enter}')
    await advance(20)
    expect(requestLines(daemon, PATCHES)).toEqual([])
    expectFocusOn(sessionLink(t, 'Same'), 'the session’s link')
  })

  it('an untitled session is renamed from its label in the operator’s language', async () => {
    const sid = createSession(daemon, '')
    await renderAppAt(sessionPath(sid), lng)
    const untitled = t('sessions.untitled')
    expect(listedTitles(t)).toEqual([untitled])
    await chooseFromMenu(t, untitled, 'rename')
    const field = renameField(t, untitled)
    // The field holds the daemon's title (empty), not the label: the label is no title.
    expect(field).toHaveValue('')
    await user().type(field, 'Named at last{Enter}')
    await advance(20)
    expect(daemon.state().sessions[0]?.title).toBe('Named at last')
    expectFocusOn(sessionLink(t, 'Named at last'), 'the renamed link')
  })

  it.each([
    ['title_empty', '   '],
    ['title_too_long', 'x'.repeat(MAX_TITLE_LENGTH + 1)],
  ] as const)('%s: refused, worded under the field, the old title kept; Escape then keeps it', async (code, typed) => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Deploy log', 'rename')
    const field = renameField(t, 'Deploy log')
    await user().clear(field)
    await user().click(field)
    await user().paste(typed)
    await user().keyboard('{Enter}')
    await advance(20)
    expect(requestLines(daemon, PATCHES)).toHaveLength(1)

    const expected = t('sessionMenu.renameFailed', { reason: t(`errors.${code}`) })
    const alert = within(field.parentElement!).getByRole('alert')
    expect(alert).toHaveTextContent(expected)
    // The field stays, with what was typed, marked invalid and described by the refusal.
    expect(renameField(t, 'Deploy log')).toBe(field)
    expect(field).toHaveValue(typed)
    expect(field).toHaveAttribute('aria-invalid', 'true')
    expect(field).toHaveAccessibleDescription(expected)
    expect(daemon.state().sessions[0]?.title).toBe('Deploy log')

    await user().keyboard('{Escape}')
    expect(screen.queryByRole('alert')).toBeNull()
    expect(listedTitles(t)).toEqual(['Deploy log'])
    expectFocusOn(sessionLink(t, 'Deploy log'), 'the session’s link')
    expect(requestLines(daemon, PATCHES)).toHaveLength(1)
  })

  it('a refusal then a valid title: the second Enter saves and clears the refusal', async () => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Deploy log', 'rename')
    const field = renameField(t, 'Deploy log')
    await user().clear(field)
    await user().keyboard('{Enter}')
    await advance(20)
    expect(within(field.parentElement!).getByRole('alert')).toHaveTextContent(t('errors.title_empty'))
    await user().type(field, 'Fixed{Enter}')
    await advance(20)
    expect(screen.queryByRole('alert')).toBeNull()
    expect(listedTitles(t)).toEqual(['Fixed'])
    expectFocusOn(sessionLink(t, 'Fixed'), 'the renamed link')
    expect(requestLines(daemon, PATCHES)).toHaveLength(2)
  })
})
