/**
 * The focus after the session menu, so a keyboard or screen-reader operator is never thrown back
 * to the top of the page: Keep it (or Escape) on the delete question and an export give it back
 * to the session's "⋯" button, whose menu item is gone by then; deleting the open session puts it
 * on the link of the session that opens in its place, never on the deleted one's. In en and zh.
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
