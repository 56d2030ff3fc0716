/**
 * The page's shortcuts do nothing behind an open modal dialog: with the delete question open,
 * Alt+↓ does not switch the session behind it, Ctrl+Shift+O makes no session, and `?` stacks no
 * shortcut list on top of it, so "Delete session" is always answered about the session in view.
 * In en and zh.
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
