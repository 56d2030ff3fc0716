/**
 * Where focus goes after each action on a reply, and that it never falls to <body> on the way:
 * checked after every step of fake time, not only at the end.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })

const replies = () => screen.queryAllByRole('article', { name: 'Agent' })
const lastReply = () => replies().at(-1)
const lastStatus = () => lastReply()?.getAttribute('data-status')
const box = () => screen.getByRole('textbox', { name: 'Message' })

/** Where focus is, in words a test can compare: the element's role (or tag) and its name or text. */
function focused(): string {
  const el = document.activeElement
  if (!el || el === document.body) return 'body'
  if (el instanceof HTMLButtonElement) return `button:${el.textContent}`
  if (el.tagName === 'ARTICLE') return `article:${el.getAttribute('aria-label')}`
  if (el.classList.contains('retry__line')) return `retry line:${el.textContent}`
  if (el instanceof HTMLTextAreaElement) return `textbox:${el.labels?.[0]?.textContent ?? ''}`
  return `${el.tagName.toLowerCase()}:${el.textContent}`
}

/**
 * Steps fake time until `check` holds, failing the moment focus is on <body> (the operator's
 * place lost). Focus must have been somewhere to begin with.
 */
async function until(check: () => boolean, what: string, max = 15_000): Promise<void> {
  for (let waited = 0, step = 10; waited <= max; waited += step, step = Math.min(step * 2, 200)) {
    expect(focused(), `focus while waiting for ${what}`).not.toBe('body')
    if (check()) return
    await advance(step)
  }
  throw new Error(`gave up waiting for ${what}`)
}

async function open(): Promise<string> {
  const sid = createSession(daemon)
  renderChat(sid)
  await advance(10)
  return sid
}

async function send(text: string): Promise<void> {
  await user().type(box(), `${text}{Enter}`)
}

/** Focuses a button of the last reply from the keyboard's point of view and presses Enter. */
async function press(name: string, reply: HTMLElement | undefined = lastReply()): Promise<void> {
  const button = within(reply!).getByRole('button', { name })
  button.focus()
  expect(focused()).toBe(`button:${name}`)
  await user().keyboard('{Enter}')
}

describe('focus after an action', () => {
  it('Stop: the article holds it while the run ends, then that reply’s Regenerate', async () => {
    daemon.plan(['slow'])
    await open()
    await send('Write a long report')
    await until(() => lastStatus() === 'streaming', 'the stream')
    const reply = lastReply()!
    const focusCalls = vi.spyOn(reply, 'focus')
    await press('Stop', reply)
    await until(() => focused() === 'button:Regenerate', 'Regenerate to take focus')
    expect(lastStatus()).toBe('cancelled')
    expect(reply.contains(document.activeElement)).toBe(true)
    // The article was a stepping stone, taken without scrolling: the view following the reply stays at the end.
    expect(focusCalls).toHaveBeenCalled()
    for (const [options] of focusCalls.mock.calls) expect(options).toEqual({ preventScroll: true })
  })

  it('Retry now: the retry line, which keeps it across the new attempt; Cancel retry: Regenerate', async () => {
    daemon.plan(['rate_limited', 'overloaded', 'overloaded'])
    await open()
    await send('hi')
    await until(() => document.querySelector('[data-retry="armed"]') !== null, 'the countdown')
    await press('Retry now')
    expect(focused()).toMatch(/^retry line:/)
    // The failed reply is replaced by the retry's reply: the line on the new one takes focus over.
    await until(() => within(lastReply()!).queryByText('Retry 2') !== null, 'the second attempt')
    expect(focused()).toBe('retry line:Retry 2Retrying in 4 s')
    expect(replies()).toHaveLength(1)
    await press('Cancel retry')
    expect(focused()).toBe('button:Regenerate')
    await advance(10_000)
    expect(focused()).toBe('button:Regenerate')
  })

  it('a retry that succeeds with focus on its line: the reply’s article, never <body>', async () => {
    daemon.plan(['rate_limited', 'ok'])
    await open()
    await send('hi')
    await until(() => document.querySelector('[data-retry="armed"]') !== null, 'the countdown')
    await press('Retry now')
    await until(() => lastStatus() === 'complete' && document.querySelector('[data-retry]') === null, 'the reply')
    expect(focused()).toBe('article:Agent')
    expect(document.activeElement).toBe(lastReply())
  })

  it('Regenerate: the reply that replaces it, once it is shown', async () => {
    daemon.plan(['ok', 'slow'])
    await open()
    await send('hi')
    await until(() => lastStatus() === 'complete', 'the reply')
    const before = lastReply()!
    const focusCalls = vi.spyOn(HTMLElement.prototype, 'focus')
    await press('Regenerate', before)
    await until(() => lastReply() !== before && lastReply()?.isConnected === true && document.activeElement === lastReply(), 'the new reply to take focus')
    expect(before.isConnected).toBe(false)
    expect(focused()).toBe('article:Agent')
    // Every reply's article took it without scrolling: the view stays where it was.
    const onArticles = focusCalls.mock.contexts.flatMap((element, i) => (element instanceof HTMLElement && element.tagName === 'ARTICLE' ? [focusCalls.mock.calls[i]![0]] : []))
    expect(onArticles.length).toBeGreaterThan(0)
    for (const options of onArticles) expect(options).toEqual({ preventScroll: true })
    focusCalls.mockRestore()
  })

  it('Regenerate from the message box by shortcut: focus stays in the box', async () => {
    daemon.plan(['ok', 'ok'])
    await open()
    await send('hi')
    await until(() => lastStatus() === 'complete', 'the reply')
    const before = lastReply()!
    box().focus()
    await user().keyboard('{Control>}{Shift>}{Enter}{/Shift}{/Control}')
    await until(() => lastReply() !== before && lastStatus() === 'complete', 'the new reply')
    expect(focused()).toBe('textbox:Message')
  })

  it('Replace: the new reply; Keep them: back to the Regenerate that opened the question', async () => {
    daemon.plan(['ok', 'ok', 'ok'])
    await open()
    await send('one')
    await until(() => lastStatus() === 'complete', 'the first reply')
    await send('two')
    await until(() => replies().length === 2 && lastStatus() === 'complete', 'the second reply')
    const first = replies()[0]!

    await press('Regenerate', first)
    const dialog = screen.getByRole('alertdialog')
    expect(focused()).toBe('button:Keep them')
    await user().keyboard('{Escape}')
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(document.activeElement).toBe(within(first).getByRole('button', { name: 'Regenerate' }))
    expect(dialog.isConnected).toBe(false)

    await press('Regenerate', first)
    within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Replace' }).focus()
    await user().keyboard('{Enter}')
    // While history is read, the reply being replaced holds focus; then its successor takes it.
    expect(document.activeElement).toBe(first)
    await until(() => replies().length === 1 && replies()[0] !== first && document.activeElement === replies()[0], 'the new reply to take focus')
    expect(focused()).toBe('article:Agent')
  })

  it('Send: focus waits in the box (read-only) while the Send button is disabled', async () => {
    daemon.plan(['ok'])
    await open()
    await user().type(box(), 'hello')
    await press('Send', document.querySelector('form')! as HTMLElement)
    expect(focused()).toBe('textbox:Message')
    await until(() => lastStatus() === 'complete', 'the reply')
    expect(focused()).toBe('textbox:Message')
  })

  it('Send again: focus waits on the parked message, then goes to the message box once it is sent', async () => {
    daemon.plan(['ok'])
    await open()
    let lost = 2
    server.use(
      http.post('*/api/v1/sessions/:sid/messages', ({ request }) => {
        if (lost <= 0) return undefined
        lost--
        daemon.record(request.method, request.url)
        return HttpResponse.error()
      }),
    )
    await send('hello')
    await until(() => screen.queryByRole('button', { name: 'Send again' }) !== null, 'the parked send')
    const parked = screen.getByRole('article', { name: 'You' })
    await press('Send again', parked)
    expect(document.activeElement).toBe(parked)
    await until(() => lastStatus() === 'complete', 'the reply')
    expect(parked.isConnected).toBe(false)
    expect(focused()).toBe('textbox:Message')
  })
})
