/**
 * Every keyboard shortcut in the whole app against the mock daemon, with keydowns as the browser
 * sends them on a non-Apple platform (Ctrl) and on an Apple one (⌘): new session, the message
 * box, stop or cancel the armed retry, retry now or regenerate, previous and next session; and
 * the list of shortcuts (`?` outside a text field, and the header button), which Escape closes
 * with the focus going back where it was.
 */
import { screen, within } from '@testing-library/react'
import { http } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, advanceUntil, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { expectFocusOn, pressKey, renderAppAt, requestLines, sessionLink, sessionPath, user, wordsOf } from './session-helpers'

const { daemon, server } = startMockDaemonForFile()

function stubPlatform(platform: string) {
  vi.spyOn(navigator, 'platform', 'get').mockReturnValue(platform)
}

beforeEach(() => {
  installFakeClock()
  stubPlatform('Linux x86_64')
})
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

/** Leaves every field, as a click on the page's background does. */
function blur() {
  if (document.activeElement instanceof HTMLElement) document.activeElement.blur()
  expect(document.activeElement).toBe(document.body)
}

const ctrlShift = (key: string) => ({ key, ctrlKey: true, shiftKey: true })
const CREATES = /^POST \/api\/v1\/sessions$/
const CANCELS = /^POST \/api\/v1\/sessions\/[^/]+\/runs\/[^/]+\/cancel$/
const REGENERATES = /^POST \/api\/v1\/sessions\/[^/]+\/messages\/[^/]+\/regenerate$/

/** A session with one exchange that has ended as the plan says. */
async function sessionWithReply(title: string, plan: string[] = ['ok']): Promise<string> {
  daemon.plan(plan)
  const sid = createSession(daemon, title)
  const sent = daemon.send(sid, { content: `About ${title}`, client_message_id: `cmid-${title}` })
  if (!sent.ok) throw new Error(sent.refusal.body.code)
  await advance(300)
  return sid
}

describe.each(['en', 'zh'] as const)('shortcuts (%s)', (lng) => {
  const t = wordsOf(lng)
  const box = () => screen.getByRole('textbox', { name: t('composer.label') })
  const reply = () => screen.getAllByRole('article', { name: t('transcript.agent') }).at(-1)!
  const retryBox = () => reply().querySelector<HTMLElement>('[data-retry]')

  describe('Ctrl+Shift+O: new session', () => {
    it('from a session view, even with the focus in the message box: one session made, opened, ready to type', async () => {
      const sid = createSession(daemon, 'Current')
      await renderAppAt(sessionPath(sid), lng)
      box().focus()
      expect(pressKey(ctrlShift('O'), box())).toBe(false)
      await advanceUntil(() => window.location.pathname !== sessionPath(sid), 'the new session opened')
      await advance(20)
      expect(requestLines(daemon, CREATES)).toHaveLength(1)
      const made = daemon.state().sessions.find((s) => s.id !== sid)!
      expect(made.title).toBe('')
      expect(window.location.pathname).toBe(sessionPath(made.id))
      expectFocusOn(box(), 'the new session’s message box')
      expect(sessionLink(t, t('sessions.untitled'))).toHaveAttribute('aria-current', 'page')
    })

    it('from a session as new as one just made (untitled, nothing in it, nothing typed): that one again, ready to type; with a draft, a new one', async () => {
      const sid = createSession(daemon, '')
      await renderAppAt(sessionPath(sid), lng)
      await advanceUntil(() => screen.queryAllByRole('link', { name: new RegExp(`^${t('sessions.untitled')}`) }).length === 1, 'the list')
      await advance(50)
      blur()
      expect(pressKey(ctrlShift('O'))).toBe(false)
      await advance(50)
      expect(requestLines(daemon, CREATES)).toEqual([])
      expect(window.location.pathname).toBe(sessionPath(sid))
      expectFocusOn(box(), 'the message box of the session in view')
      // The button says the same.
      blur()
      await user().click(screen.getByRole('button', { name: t('sessions.new') }))
      await advance(50)
      expect(requestLines(daemon, CREATES)).toEqual([])
      expectFocusOn(box(), 'the message box of the session in view')
      // Something typed is worth keeping where it is: a session of its own is made.
      await user().type(box(), 'half a thought')
      await advance(50)
      await user().click(screen.getByRole('button', { name: t('sessions.new') }))
      await advanceUntil(() => window.location.pathname !== sessionPath(sid), 'the new session opened')
      expect(requestLines(daemon, CREATES)).toHaveLength(1)
      expect(daemon.state().sessions).toHaveLength(2)
    })

    it('from an untitled session whose first message is on its way: a new session, the message kept where it was sent', async () => {
      const sid = createSession(daemon, '')
      await renderAppAt(sessionPath(sid), lng)
      await advanceUntil(() => screen.queryAllByRole('link', { name: new RegExp(`^${t('sessions.untitled')}`) }).length === 1, 'the list')
      // The daemon holds the send: nothing is in the session's history yet, the send is in the outbox.
      server.use(http.post(`*/api/v1/sessions/${sid}/messages`, () => new Promise<never>(() => {}), { once: true }))
      await user().type(box(), 'the first message{Enter}')
      await advance(50)
      blur()
      expect(pressKey(ctrlShift('O'))).toBe(false)
      await advanceUntil(() => window.location.pathname !== sessionPath(sid), 'the new session opened')
      expect(requestLines(daemon, CREATES)).toHaveLength(1)
    })

    it('from the first screen; lower-case o (Caps Lock off) too', async () => {
      await renderAppAt('/', lng)
      blur()
      expect(pressKey(ctrlShift('o'))).toBe(false)
      await advanceUntil(() => window.location.pathname.startsWith('/sessions/'), 'the new session opened')
      expect(requestLines(daemon, CREATES)).toHaveLength(1)
    })

    it('a second press while the first create is on its way makes no second session', async () => {
      await renderAppAt('/', lng)
      // Hold the create, so the second press finds it on its way.
      server.use(http.post('*/api/v1/sessions', () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300)), { once: true }))
      pressKey(ctrlShift('O'))
      await advance(1)
      pressKey(ctrlShift('O'))
      await advance(500)
      expect(requestLines(daemon, CREATES)).toHaveLength(1)
      expect(daemon.state().sessions).toHaveLength(1)
    })

    it('Ctrl+O, Ctrl+Alt+Shift+O and ⌘+Shift+O do nothing here', async () => {
      await renderAppAt('/', lng)
      expect(pressKey({ key: 'o', ctrlKey: true })).toBe(true)
      expect(pressKey({ key: 'O', ctrlKey: true, shiftKey: true, altKey: true })).toBe(true)
      expect(pressKey({ key: 'O', metaKey: true, shiftKey: true })).toBe(true)
      await advance(50)
      expect(requestLines(daemon, CREATES)).toEqual([])
    })
  })

  describe('Shift+Esc and /: the message box', () => {
    it('Shift+Esc from a link, a button or nowhere', async () => {
      const sid = createSession(daemon, 'Current')
      await renderAppAt(sessionPath(sid), lng)
      sessionLink(t, 'Current').focus()
      expect(pressKey({ key: 'Escape', shiftKey: true })).toBe(false)
      expectFocusOn(box(), 'the message box')
      screen.getByRole('button', { name: t('sessions.new') }).focus()
      pressKey({ key: 'Escape', shiftKey: true })
      expectFocusOn(box(), 'the message box')
      blur()
      pressKey({ key: 'Escape', shiftKey: true })
      expectFocusOn(box(), 'the message box')
      // Plain Escape is not the shortcut.
      blur()
      expect(pressKey({ key: 'Escape' })).toBe(true)
      expect(document.activeElement).toBe(document.body)
    })

    it('/ outside a text field moves to the message box and types nothing there', async () => {
      const sid = createSession(daemon, 'Current')
      await renderAppAt(sessionPath(sid), lng)
      sessionLink(t, 'Current').focus()
      expect(pressKey({ key: '/' })).toBe(false)
      expectFocusOn(box(), 'the message box')
      expect(box()).toHaveValue('')
    })

    it('/ inside the message box is a slash: typed, not a shortcut', async () => {
      const sid = createSession(daemon, 'Current')
      await renderAppAt(sessionPath(sid), lng)
      await user().click(box())
      expect(pressKey({ key: '/' }, box())).toBe(true)
      await user().keyboard('a/b')
      expect(box()).toHaveValue('a/b')
    })
  })

  describe('Ctrl+Shift+Backspace: stop the reply, or cancel the armed retry', () => {
    it('stops the reply being written: it ends Stopped, with nothing armed', async () => {
      daemon.plan(['hang'])
      const sid = createSession(daemon, 'Busy')
      daemon.send(sid, { content: 'never ends', client_message_id: 'cmid-hang' })
      await renderAppAt(sessionPath(sid), lng)
      expect(reply()).toHaveAttribute('data-status', 'streaming')
      box().focus()
      expect(pressKey(ctrlShift('Backspace'), box())).toBe(false)
      await advance(50)
      expect(requestLines(daemon, CANCELS)).toHaveLength(1)
      expect(reply()).toHaveAttribute('data-status', 'cancelled')
      expect(within(reply()).getByText(t('status.cancelled'))).toBeInTheDocument()
      expect(retryBox()).toBeNull()
      await advance(10_000)
      expect(requestLines(daemon, REGENERATES)).toEqual([])
    })

    it('cancels the armed retry: no regenerate, however long the page stays', async () => {
      const sid = await sessionWithReply('Flaky', ['rate_limited'])
      await renderAppAt(sessionPath(sid), lng)
      expect(retryBox()).toHaveAttribute('data-retry', 'armed')
      expect(pressKey(ctrlShift('Backspace'))).toBe(false)
      await advance(20)
      expect(retryBox()).toHaveAttribute('data-retry', 'cancelled')
      await advance(60_000)
      expect(requestLines(daemon, REGENERATES)).toEqual([])
      expect(requestLines(daemon, CANCELS)).toEqual([])
    })

    it('with nothing to stop it does nothing, and the key is left to the browser', async () => {
      const sid = await sessionWithReply('Done')
      await renderAppAt(sessionPath(sid), lng)
      expect(reply()).toHaveAttribute('data-status', 'complete')
      expect(pressKey(ctrlShift('Backspace'))).toBe(true)
      await advance(50)
      expect(requestLines(daemon, CANCELS)).toEqual([])
    })
  })

  describe('Ctrl+Shift+Enter: retry now, or regenerate the last reply', () => {
    it('fires the armed retry now instead of in 2 s', async () => {
      const sid = await sessionWithReply('Flaky', ['rate_limited'])
      await renderAppAt(sessionPath(sid), lng)
      expect(retryBox()).toHaveAttribute('data-retry', 'armed')
      const armedAt = Date.now()
      expect(pressKey(ctrlShift('Enter'))).toBe(false)
      await advance(20)
      const regenerates = daemon.state().requests.filter((r) => REGENERATES.test(`${r.method} ${r.path}`))
      expect(regenerates).toHaveLength(1)
      expect(regenerates[0]!.at - armedAt).toBeLessThan(100)
      await advanceUntil(() => reply().getAttribute('data-status') === 'complete', 'the retried reply')
      expect(requestLines(daemon, REGENERATES)).toHaveLength(1)
    })

    it('regenerates the last reply when it has ended, with the focus in the message box too', async () => {
      const sid = await sessionWithReply('Done')
      await renderAppAt(sessionPath(sid), lng)
      box().focus()
      expect(pressKey(ctrlShift('Enter'), box())).toBe(false)
      await advance(20)
      expect(requestLines(daemon, REGENERATES)).toHaveLength(1)
      // Not a send: the box's Enter did not fire.
      expect(daemon.state().messages.filter((m) => m.role === 'operator')).toHaveLength(1)
      await advanceUntil(() => reply().getAttribute('data-status') === 'complete', 'the new reply')
      expect(within(reply()).getByRole('button', { name: t('transcript.earlierVersions', { count: 1 }) })).toBeInTheDocument()
    })

    it('while the reply is being written it does nothing', async () => {
      daemon.plan(['hang'])
      const sid = createSession(daemon, 'Busy')
      daemon.send(sid, { content: 'never ends', client_message_id: 'cmid-hang' })
      await renderAppAt(sessionPath(sid), lng)
      expect(pressKey(ctrlShift('Enter'))).toBe(true)
      await advance(50)
      expect(requestLines(daemon, REGENERATES)).toEqual([])
    })

    it('in an empty session it does nothing', async () => {
      const sid = createSession(daemon, 'Empty')
      await renderAppAt(sessionPath(sid), lng)
      expect(pressKey(ctrlShift('Enter'))).toBe(true)
      expect(pressKey(ctrlShift('Backspace'))).toBe(true)
      await advance(50)
      expect(requestLines(daemon, /^POST /)).toEqual([])
    })
  })

  describe('Alt+↑ and Alt+↓: previous and next session', () => {
    it('walks the list in its order (newest first) and stops at its ends', async () => {
      const a = createSession(daemon, 'Oldest')
      const b = createSession(daemon, 'Middle')
      const c = createSession(daemon, 'Newest')
      await renderAppAt(sessionPath(b), lng)
      blur()
      expect(pressKey({ key: 'ArrowDown', altKey: true })).toBe(false)
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(a))
      // At the end of the list: nothing to go to, and the key is left to the browser.
      expect(pressKey({ key: 'ArrowDown', altKey: true })).toBe(true)
      expect(window.location.pathname).toBe(sessionPath(a))
      pressKey({ key: 'ArrowUp', altKey: true })
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(b))
      pressKey({ key: 'ArrowUp', altKey: true })
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(c))
      expect(sessionLink(t, 'Newest')).toHaveAttribute('aria-current', 'page')
      expect(pressKey({ key: 'ArrowUp', altKey: true })).toBe(true)
      expect(window.location.pathname).toBe(sessionPath(c))
    })

    it('from the first screen: ↓ opens the newest, ↑ the oldest', async () => {
      const a = createSession(daemon, 'Oldest')
      const c = createSession(daemon, 'Newest')
      await renderAppAt('/', lng)
      blur()
      pressKey({ key: 'ArrowDown', altKey: true })
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(c))
      window.history.replaceState(null, '', '/')
      window.dispatchEvent(new PopStateEvent('popstate'))
      await advance(20)
      blur()
      pressKey({ key: 'ArrowUp', altKey: true })
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(a))
    })

    it('in the message box: switches while it is empty, moves the caret once it holds text', async () => {
      const a = createSession(daemon, 'Oldest')
      const b = createSession(daemon, 'Newest')
      await renderAppAt(sessionPath(b), lng)
      await user().click(box())
      await user().keyboard('draft')
      expect(pressKey({ key: 'ArrowDown', altKey: true }, box())).toBe(true)
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(b))
      await user().clear(box())
      expect(pressKey({ key: 'ArrowDown', altKey: true }, box())).toBe(false)
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(a))
    })

    it('Alt+Shift+↓ and Ctrl+Alt+↓ are not the shortcut', async () => {
      createSession(daemon, 'Oldest')
      const b = createSession(daemon, 'Newest')
      await renderAppAt(sessionPath(b), lng)
      blur()
      expect(pressKey({ key: 'ArrowDown', altKey: true, shiftKey: true })).toBe(true)
      expect(pressKey({ key: 'ArrowDown', altKey: true, ctrlKey: true })).toBe(true)
      await advance(20)
      expect(window.location.pathname).toBe(sessionPath(b))
    })
  })

  describe('?: the list of shortcuts', () => {
    const dialog = () => screen.getByRole('dialog', { name: t('shortcuts.title') })

    it('opens outside a text field with Close focused, lists every shortcut with Ctrl, and Escape gives the focus back', async () => {
      const sid = createSession(daemon, 'Current')
      await renderAppAt(sessionPath(sid), lng)
      const link = sessionLink(t, 'Current')
      link.focus()
      expect(pressKey({ key: '?', shiftKey: true })).toBe(false)
      expect(dialog()).toHaveAttribute('aria-modal', 'true')
      expectFocusOn(within(dialog()).getByRole('button', { name: t('shortcuts.close') }), 'Close')
      const rows = within(dialog())
        .getAllByRole('row')
        .map((row) => [within(row).getByRole('rowheader').textContent, row.querySelector('td')?.textContent])
      expect(rows).toEqual([
        [t('shortcuts.newSession'), 'Ctrl+Shift+O'],
        [t('shortcuts.focusComposer'), `Shift+Esc / / (${t('shortcuts.notInField')})`],
        [t('shortcuts.stopOrCancel'), 'Ctrl+Shift+Backspace'],
        [t('shortcuts.retryOrRegenerate'), 'Ctrl+Shift+Enter'],
        [t('shortcuts.focusApproval'), 'Ctrl+Shift+Y'],
        [t('shortcuts.previousSession'), 'Alt+↑'],
        [t('shortcuts.nextSession'), 'Alt+↓'],
        [t('shortcuts.find'), 'Ctrl+Shift+F'],
        [t('shortcuts.help'), `? (${t('shortcuts.notInField')})`],
        [t('shortcuts.sessionStart'), `Home (${t('shortcuts.inConversation')})`],
        [t('shortcuts.latest'), `End (${t('shortcuts.inConversation')})`],
        [t('shortcuts.send'), 'Enter'],
        [t('shortcuts.newLine'), 'Shift+Enter'],
      ])
      await user().keyboard('{Escape}')
      expect(screen.queryByRole('dialog')).toBeNull()
      expectFocusOn(link, 'the link that had the focus')
    })

    it('does not open from inside the message box: ? is typed there', async () => {
      const sid = createSession(daemon, 'Current')
      await renderAppAt(sessionPath(sid), lng)
      await user().click(box())
      expect(pressKey({ key: '?', shiftKey: true }, box())).toBe(true)
      await user().keyboard('why?')
      expect(screen.queryByRole('dialog')).toBeNull()
      expect(box()).toHaveValue('why?')
    })

    it('opens from the header button too; Close shuts it and the focus goes back to the button', async () => {
      await renderAppAt('/', lng)
      const button = screen.getByRole('button', { name: t('shortcuts.button') })
      await user().click(button)
      expect(dialog()).toBeInTheDocument()
      await user().click(within(dialog()).getByRole('button', { name: t('shortcuts.close') }))
      expect(screen.queryByRole('dialog')).toBeNull()
      expectFocusOn(button, 'the header button')
    })

    it('keeps Tab inside while open', async () => {
      await renderAppAt('/', lng)
      blur()
      pressKey({ key: '?', shiftKey: true })
      const close = within(dialog()).getByRole('button', { name: t('shortcuts.close') })
      expectFocusOn(close, 'Close')
      await user().tab()
      expectFocusOn(close, 'Close, the only control')
      await user().tab({ shift: true })
      expectFocusOn(close, 'Close, the only control')
    })
  })
})

describe('on an Apple platform', () => {
  beforeEach(() => stubPlatform('MacIntel'))
  const t = wordsOf('en')

  it('⌘ is the modifier: ⌘+Shift+O makes a session, Ctrl+Shift+O does not', async () => {
    await renderAppAt('/')
    expect(pressKey(ctrlShift('O'))).toBe(true)
    await advance(50)
    expect(requestLines(daemon, CREATES)).toEqual([])
    expect(pressKey({ key: 'O', metaKey: true, shiftKey: true })).toBe(false)
    await advanceUntil(() => window.location.pathname.startsWith('/sessions/'), 'the new session opened')
    expect(requestLines(daemon, CREATES)).toHaveLength(1)
  })

  it('⌘+Shift+Backspace stops the reply', async () => {
    daemon.plan(['hang'])
    const sid = createSession(daemon, 'Busy')
    daemon.send(sid, { content: 'never ends', client_message_id: 'cmid-hang' })
    await renderAppAt(sessionPath(sid))
    pressKey({ key: 'Backspace', metaKey: true, shiftKey: true })
    await advance(50)
    expect(requestLines(daemon, CANCELS)).toHaveLength(1)
  })

  it('the list prints the Apple keys', async () => {
    await renderAppAt('/')
    await user().click(screen.getByRole('button', { name: t('shortcuts.button') }))
    const dialog = screen.getByRole('dialog', { name: t('shortcuts.title') })
    const keysOf = (name: string) => within(dialog).getByRole('rowheader', { name }).closest('tr')?.querySelector('td')?.textContent
    expect(keysOf(t('shortcuts.newSession'))).toBe('⌘+⇧+O')
    expect(keysOf(t('shortcuts.stopOrCancel'))).toBe('⌘+⇧+⌫')
    expect(keysOf(t('shortcuts.previousSession'))).toBe('⌥+↑')
    expect(keysOf(t('shortcuts.newLine'))).toBe('⇧+Enter')
  })
})
