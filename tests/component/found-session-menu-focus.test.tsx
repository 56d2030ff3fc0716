/**
 * Found: focus lands on <body> after three session-menu paths, so a keyboard or screen-reader
 * operator is thrown back to the top of the page.
 *
 * 1. Keep it (or Escape) on the delete question. The menu item that opened it is removed in the
 *    same commit as the dialog mounts (SessionMenu's `act` closes the menu, src/chat/session-list.tsx),
 *    so ModalDialog records <body> as the opener (src/chat/modal-dialog.tsx: `document.activeElement
 *    instanceof HTMLElement` holds for body) and hands the focus back to it on close.
 * 2. Export as Markdown / JSON: the same `act` removes the focused item and focuses nothing.
 * 3. Delete session on the open session: the dialog closes (setDeleting(undefined) in
 *    confirmDelete, src/chat/sessions-panel.tsx) before the DELETE answers, so its fallback
 *    `.sessions [aria-current="page"]` is the link of the session being deleted, which the list
 *    then drops.
 *
 * Fix: in SessionMenu, `const act = (run) => () => { close(); run() }` (close() focuses the "⋯"
 * button first, so it is the opener the dialog returns to); in ModalDialog never take <body> for
 * the opener; in SessionsPanel give the delete question a fallback that skips the session being
 * deleted (the link of `next`, else the message box).
 */
import { screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, it, vi } from 'vitest'
import { advance, advanceUntil, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { chooseFromMenu, expectFocusOn, renderAppAt, sessionLink, sessionPath, sessionsNav, user, wordsOf } from './session-helpers'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
  Reflect.deleteProperty(URL, 'createObjectURL')
  Reflect.deleteProperty(URL, 'revokeObjectURL')
})

describe.each(['en', 'zh'] as const)('focus after the session menu (%s)', (lng) => {
  const t = wordsOf(lng)
  const menuButton = (title: string) => within(sessionsNav(t)).getByRole('button', { name: t('sessionMenu.actions', { title }) })

  it.each(['Keep it', 'Escape'] as const)('%s on the delete question gives the focus back to the session’s ⋯ button', async (how) => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Deploy log', 'delete')
    const dialog = screen.getByRole('alertdialog')
    if (how === 'Escape') await user().keyboard('{Escape}')
    else await user().click(within(dialog).getByRole('button', { name: t('sessionMenu.deleteKeep') }))
    await advance(20)
    expectFocusOn(menuButton('Deploy log'), 'the ⋯ button that opened the question')
  })

  it.each(['exportMarkdown', 'exportJson'] as const)('%s gives the focus back to the session’s ⋯ button', async (item) => {
    Object.assign(URL, { createObjectURL: () => 'blob:http://daemon.test/1', revokeObjectURL: () => {} })
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Deploy log', item)
    await advance(20)
    expectFocusOn(menuButton('Deploy log'), 'the ⋯ button')
  })

  it('deleting the open session leaves the focus on the session that opens in its place', async () => {
    const next = createSession(daemon, 'Next one')
    const open = createSession(daemon, 'Open one')
    await renderAppAt(sessionPath(open), lng)
    await chooseFromMenu(t, 'Open one', 'delete')
    await user().click(within(screen.getByRole('alertdialog')).getByRole('button', { name: t('sessionMenu.deleteConfirm') }))
    await advanceUntil(() => window.location.pathname === sessionPath(next), 'the next session opened')
    await advance(50)
    expectFocusOn(sessionLink(t, 'Next one'), 'the link of the session now open')
  })
})
