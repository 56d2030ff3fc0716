/**
 * Deleting a session, in the whole app against the mock daemon: a modal question that names the
 * session, with the safe choice focused; Keep it and Escape send nothing; Delete session removes
 * it (its running reply stopped first); deleting the open session opens the next one, or the one
 * before at the end of the list, or the first screen when it was the last session.
 */
import { screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, advanceUntil, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { chooseFromMenu, expectFocusOn, listedTitles, renderAppAt, requestLines, sessionLink, sessionPath, SESSION_WRITES, user, wordsOf } from './session-helpers'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

const DELETES = /^DELETE \/api\/v1\/sessions\//

describe.each(['en', 'zh'] as const)('delete (%s)', (lng) => {
  const t = wordsOf(lng)
  const question = (title: string) => screen.getByRole('alertdialog', { name: t('sessionMenu.deleteTitle', { title }) })

  it('asks first, naming the session, with Keep it focused; Keep it sends nothing and keeps the session', async () => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Deploy log', 'delete')
    const dialog = question('Deploy log')
    expect(dialog).toHaveAttribute('aria-modal', 'true')
    expect(dialog).toHaveAccessibleDescription(t('sessionMenu.deleteBody'))
    expect(within(dialog).getByRole('heading')).toHaveTextContent(t('sessionMenu.deleteTitle', { title: 'Deploy log' }))
    expectFocusOn(within(dialog).getByRole('button', { name: t('sessionMenu.deleteKeep') }), 'Keep it')
    expect(within(dialog).getByRole('button', { name: t('sessionMenu.deleteConfirm') })).toBeInTheDocument()

    await user().click(within(dialog).getByRole('button', { name: t('sessionMenu.deleteKeep') }))
    await advance(20)
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(requestLines(daemon, SESSION_WRITES)).toEqual([])
    expect(listedTitles(t)).toEqual(['Deploy log'])
    expect(daemon.state().sessions).toHaveLength(1)
    expect(window.location.pathname).toBe(sessionPath(sid))
  })

  it('Escape is Keep it: nothing is sent', async () => {
    const sid = createSession(daemon, 'Deploy log')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, 'Deploy log', 'delete')
    expect(question('Deploy log')).toBeInTheDocument()
    await user().keyboard('{Escape}')
    await advance(20)
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(requestLines(daemon, SESSION_WRITES)).toEqual([])
    expect(listedTitles(t)).toEqual(['Deploy log'])
  })

  it('the untitled label names an untitled session in the question', async () => {
    const sid = createSession(daemon, '')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, t('sessions.untitled'), 'delete')
    expect(question(t('sessions.untitled'))).toBeInTheDocument()
  })

  it('Delete session removes a session that is not open; the open one stays, with the focus on its link', async () => {
    const older = createSession(daemon, 'Older')
    const open = createSession(daemon, 'Open one')
    const doomed = createSession(daemon, 'Doomed')
    daemon.send(doomed, { content: 'a message', client_message_id: 'cmid-doomed' })
    await advance(200)
    await renderAppAt(sessionPath(open), lng)
    expect(listedTitles(t)).toEqual(['Doomed', 'Open one', 'Older'])

    await chooseFromMenu(t, 'Doomed', 'delete')
    await user().click(within(question('Doomed')).getByRole('button', { name: t('sessionMenu.deleteConfirm') }))
    await advance(20)
    expect(requestLines(daemon, DELETES)).toEqual([`DELETE /api/v1/sessions/${doomed}`])
    expect(listedTitles(t)).toEqual(['Open one', 'Older'])
    expect(daemon.state().sessions.map((s) => s.id)).toEqual([older, open])
    expect(daemon.state().messages.filter((m) => m.session_id === doomed)).toEqual([])
    expect(window.location.pathname).toBe(sessionPath(open))
    expectFocusOn(sessionLink(t, 'Open one'), 'the open session’s link')
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('deleting the open session opens the next one in the list (the older one below it)', async () => {
    const older = createSession(daemon, 'Older')
    const open = createSession(daemon, 'Open one')
    createSession(daemon, 'Newer')
    await renderAppAt(sessionPath(open), lng)
    await chooseFromMenu(t, 'Open one', 'delete')
    await user().click(within(question('Open one')).getByRole('button', { name: t('sessionMenu.deleteConfirm') }))
    await advanceUntil(() => window.location.pathname === sessionPath(older), 'the next session opened')
    await advance(20)
    expect(listedTitles(t)).toEqual(['Newer', 'Older'])
    expect(sessionLink(t, 'Older')).toHaveAttribute('aria-current', 'page')
    expect(screen.getByRole('textbox', { name: t('composer.label') })).toBeInTheDocument()
    expect(requestLines(daemon, DELETES)).toEqual([`DELETE /api/v1/sessions/${open}`])
  })

  it('deleting the open session at the end of the list opens the one before it', async () => {
    const last = createSession(daemon, 'Oldest')
    const before = createSession(daemon, 'Newest')
    await renderAppAt(sessionPath(last), lng)
    await chooseFromMenu(t, 'Oldest', 'delete')
    await user().click(within(question('Oldest')).getByRole('button', { name: t('sessionMenu.deleteConfirm') }))
    await advanceUntil(() => window.location.pathname === sessionPath(before), 'the session before opened')
    await advance(20)
    expect(listedTitles(t)).toEqual(['Newest'])
    expect(sessionLink(t, 'Newest')).toHaveAttribute('aria-current', 'page')
  })

  it('deleting the only session goes back to the first screen, ready to type', async () => {
    const only = createSession(daemon, 'Only one')
    await renderAppAt(sessionPath(only), lng)
    await chooseFromMenu(t, 'Only one', 'delete')
    await user().click(within(question('Only one')).getByRole('button', { name: t('sessionMenu.deleteConfirm') }))
    await advanceUntil(() => window.location.pathname === '/', 'the first screen')
    await advance(20)
    expect(screen.getByRole('heading', { name: t('start.heading') })).toBeInTheDocument()
    expect(screen.getByText(t('sessions.empty'))).toBeInTheDocument()
    expectFocusOn(screen.getByRole('textbox', { name: t('composer.label') }), 'the message box')
    expect(daemon.state().sessions).toEqual([])
  })

  it('deleting a session whose reply is being written stops the run first', async () => {
    daemon.plan(['hang'])
    const sid = createSession(daemon, 'Busy')
    daemon.send(sid, { content: 'never ends', client_message_id: 'cmid-busy' })
    const keep = createSession(daemon, 'Idle')
    await renderAppAt(sessionPath(sid), lng)
    expect(screen.getByRole('article', { name: t('transcript.agent') })).toHaveAttribute('data-status', 'streaming')
    await chooseFromMenu(t, 'Busy', 'delete')
    await user().click(within(question('Busy')).getByRole('button', { name: t('sessionMenu.deleteConfirm') }))
    await advanceUntil(() => window.location.pathname === sessionPath(keep), 'the other session opened')
    expect(daemon.state().runs).toEqual([])
    expect(daemon.state().sessions.map((s) => s.id)).toEqual([keep])
    // Nothing of the deleted session is asked for again.
    const after = daemon.state().requests.length
    await advance(5_000)
    expect(daemon.state().requests.slice(after).filter((r) => r.path.includes(sid))).toEqual([])
  })

  it('a refused delete (the session was already gone) is worded, and nothing else changes', async () => {
    const sid = createSession(daemon, 'Gone elsewhere')
    const other = createSession(daemon, 'Other')
    await renderAppAt(sessionPath(other), lng)
    await chooseFromMenu(t, 'Gone elsewhere', 'delete')
    daemon.deleteSession(sid)
    await user().click(within(question('Gone elsewhere')).getByRole('button', { name: t('sessionMenu.deleteConfirm') }))
    await advance(20)
    expect(screen.getByRole('alert')).toHaveTextContent(t('sessionMenu.deleteFailed', { reason: t('errors.session_not_found') }))
    expect(listedTitles(t)).toEqual(['Other'])
    expect(window.location.pathname).toBe(sessionPath(other))
  })
})
