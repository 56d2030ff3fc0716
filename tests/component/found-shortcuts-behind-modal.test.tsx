/**
 * Found: the page's shortcuts act behind an open modal dialog. With the delete question open
 * (the page behind it is inert), Alt+↓ switches the session behind it, Ctrl+Shift+O makes and
 * opens a new session, and `?` stacks the shortcut list on top of the question, so "Delete
 * session" is then answered about a session no longer in view.
 *
 * useShortcuts (src/chat/use-core.ts) listens on the document and acts on every keydown that
 * nothing prevented; a ModalDialog (src/chat/modal-dialog.tsx) handles only Escape and Tab.
 *
 * Fix: in useShortcuts' listener, return early while a modal is open, e.g.
 * `if (document.querySelector('dialog[aria-modal="true"]')) return` (or have ModalDialog's
 * onKeyDown stop the propagation of every key but Tab, which it traps itself).
 */
import { screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { chooseFromMenu, pressKey, renderAppAt, requestLines, sessionPath, wordsOf } from './session-helpers'

const { daemon } = startMockDaemonForFile()

beforeEach(() => {
  installFakeClock()
  vi.spyOn(navigator, 'platform', 'get').mockReturnValue('Linux x86_64')
})
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

describe.each(['en', 'zh'] as const)('shortcuts while the delete question is open (%s)', (lng) => {
  const t = wordsOf(lng)

  it.each([
    ['Alt+↓', { key: 'ArrowDown', altKey: true }],
    ['Ctrl+Shift+O', { key: 'O', ctrlKey: true, shiftKey: true }],
    ['?', { key: '?', shiftKey: true }],
  ] as const)('%s does nothing behind the question', async (_name, key) => {
    createSession(daemon, 'Older')
    const open = createSession(daemon, 'Open one')
    await renderAppAt(sessionPath(open), lng)
    await chooseFromMenu(t, 'Open one', 'delete')
    const question = screen.getByRole('alertdialog', { name: t('sessionMenu.deleteTitle', { title: 'Open one' }) })
    pressKey(key, question.querySelector('button')!)
    await advance(50)
    expect(window.location.pathname, 'the session in view').toBe(sessionPath(open))
    expect(requestLines(daemon, /^POST /), 'requests made').toEqual([])
    expect(screen.queryByRole('dialog', { name: t('shortcuts.title') }), 'a second dialog').toBeNull()
    expect(screen.getByRole('alertdialog')).toBe(question)
  })
})
