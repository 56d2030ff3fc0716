/**
 * Found: a rename refused with 404 session_not_found (the session was deleted in another tab
 * while its title was being edited) is never shown, and the focus falls to <body>.
 *
 * useRenameSession's `onSettled` (src/chat/api/use-sessions.ts) re-reads the session list, and
 * TanStack Query awaits it before the per-call `onError` of `rename.mutate` in
 * src/chat/sessions-panel.tsx runs. By then the list has dropped the session, so its row, and
 * the RenameField that would show the refusal (src/chat/session-list.tsx), are gone:
 * `setRenaming({ sessionId, error })` names a row that no longer exists.
 *
 * Fix: in SessionsPanel's rename `onError`, when the session is no longer listed (or the code is
 * session_not_found), end the rename and show the refusal where delete and export failures go:
 * `setRenaming(undefined); setActionError({ template: 'sessionMenu.renameFailed', error })`
 * (adding 'sessionMenu.renameFailed' to the actionError template type), and put the focus on the
 * session in view's link or the message box.
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
