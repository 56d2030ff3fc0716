/**
 * A rename of a session deleted meanwhile (in another tab, while its title was being edited):
 * the daemon's 404 session_not_found is worded where the session menu's failures go, since the
 * row that held the rename field is gone with the session, and the focus stays in the page
 * instead of falling to <body>. In en and zh.
 */
import { screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { chooseFromMenu, renameField, renderAppAt, requestLines, sessionPath, user, wordsOf } from './session-helpers'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

describe.each(['en', 'zh'] as const)('rename of a session deleted meanwhile (%s)', (lng) => {
  const t = wordsOf(lng)

  it('words the session_not_found refusal and keeps the focus in the page', async () => {
    const open = createSession(daemon, 'In view')
    const sid = createSession(daemon, 'Gone soon')
    await renderAppAt(sessionPath(open), lng)
    await chooseFromMenu(t, 'Gone soon', 'rename')
    // Another tab deletes it while the title is being edited.
    daemon.deleteSession(sid)
    await user().type(renameField(t, 'Gone soon'), ' (edited){Enter}')
    await advance(50)
    expect(requestLines(daemon, /^PATCH /)).toEqual([`PATCH /api/v1/sessions/${sid}`])

    const expected = t('sessionMenu.renameFailed', { reason: t('errors.session_not_found') })
    expect(
      screen.queryAllByRole('alert').map((a) => a.textContent),
      'the refusal is shown somewhere',
    ).toContain(expected)
    expect(document.activeElement, 'focus is not thrown back to the body').not.toBe(document.body)
  })
})
