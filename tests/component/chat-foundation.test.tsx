import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, createSession, reloadRuntime, renderApp, renderChat, installFakeClock, renderedReplyText, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })

/**
 * The daemon's answers to GET …/sessions/:sid/messages so far, whole or a page (`?limit`,
 * `?before`, `?after`): the history reads of a session.
 */
const historyReads = (sid: string) =>
  daemon.state().requests.filter((r) => r.method === 'GET' && new RegExp(`/sessions/${sid}/messages(\\?(limit|before|after)=|$)`).test(r.path))

function lastAgentReply() {
  const replies = screen.getAllByRole('article', { name: 'Agent' })
  return replies[replies.length - 1]!
}

describe('sessions', () => {
  it('creates a session, opens it and carries its id in the address', async () => {
    window.history.replaceState(null, '', '/')
    renderApp()
    await advance(50)
    expect(screen.getByText(/No sessions yet/)).toBeInTheDocument()
    await user().click(screen.getByRole('button', { name: 'New session' }))
    await advance(50)
    const [session] = daemon.state().sessions
    expect(session).toBeDefined()
    expect(window.location.pathname).toBe(`/sessions/${session!.id}`)
    // Untitled until its first message: labelled in the interface's language, not the daemon's.
    expect(session!.title).toBe('')
    expect(screen.getByRole('link', { current: 'page' })).toHaveTextContent('Untitled session')
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument()
  })
})

describe('streaming a reply', () => {
  it('sends on Enter, streams the reply live and completes it', async () => {
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user().type(box, 'Tell me about queues{Enter}')
    await advance(12)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'streaming')
    const partial = lastAgentReply().textContent ?? ''
    await advance(2000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    const stored = daemon.state().messages.find((m) => m.role === 'agent')!
    // Every character once: what is shown is exactly the stored reply, rendered.
    expect(lastAgentReply().querySelector('.message__body')?.textContent).toBe(renderedReplyText(stored.content))
    expect(stored.content.length).toBeGreaterThan(partial.length - 40)
    expect(box).toHaveValue('')
  })

  it('reads no history for a send whose run completes: the receipt and the stream tell all a read would', async () => {
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    const reads = () => historyReads(sid)
    const readsBefore = reads().length
    // A reply without steps: the stream told all there is (one with tools, next test).
    daemon.plan(['plain'])
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'no read at all{Enter}')
    await advance(12)
    // Shown from the receipt: the message as sent, its reply streaming, no read yet.
    expect(screen.getByRole('article', { name: 'You' })).toHaveTextContent('no read at all')
    expect(lastAgentReply()).toHaveAttribute('data-status', 'streaming')
    expect(reads()).toHaveLength(readsBefore)
    await advance(2000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    // The stream's end (its message id, its whole text) was written into the history held.
    expect(reads()).toHaveLength(readsBefore)
    expect(screen.getAllByRole('article', { name: 'You' })).toHaveLength(1)
    expect(screen.getAllByRole('article', { name: 'Agent' })).toHaveLength(1)
    const stored = daemon.state().messages.find((m) => m.role === 'agent')!
    expect(lastAgentReply().querySelector('.message__body')?.textContent).toBe(renderedReplyText(stored.content))
    expect(screen.getByRole('button', { name: 'Regenerate' })).toBeEnabled()
  })

  it('reads its reply once when a run with tools completes: shown complete from the stream, then the daemon’s times of its tools', async () => {
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    const reads = () => historyReads(sid)
    const readsBefore = reads().length
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'with a tool{Enter}')
    await advance(2000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    expect(reads()).toHaveLength(readsBefore + 1)
    const stored = daemon.state().messages.find((m) => m.role === 'agent')!
    const tool = stored.parts?.find((part) => part.type === 'tool')
    expect(tool?.type === 'tool' && tool.ended_at !== undefined).toBe(true)
    expect(lastAgentReply().querySelector('.message__body')?.textContent).toContain(renderedReplyText(stored.content))
  })

  it('reads history once when a send\'s run fails: its error and retry classification are history\'s', async () => {
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    const reads = () => historyReads(sid)
    const readsBefore = reads().length
    daemon.plan(['code:answer_empty'])
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'this one fails{Enter}')
    await advance(2000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
    expect(reads()).toHaveLength(readsBefore + 1)
  })

  it('Shift+Enter adds a line, and empty text cannot be sent', async () => {
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user().type(box, '   {Enter}')
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled()
    await user().type(box, 'one{Shift>}{Enter}{/Shift}two')
    expect(box).toHaveValue('   one\ntwo')
    await advance(50)
    expect(daemon.state().messages).toHaveLength(0)
  })

  it('does not send on Enter while an IME is composing', async () => {
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user().type(box, 'nihao')
    box.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true }))
    await user().keyboard('{Enter}')
    box.dispatchEvent(new CompositionEvent('compositionend', { bubbles: true }))
    await advance(50)
    expect(daemon.state().messages).toHaveLength(0)
    await user().keyboard('{Enter}')
    await advance(50)
    expect(daemon.state().messages.filter((m) => m.role === 'operator')).toHaveLength(1)
  })
})

describe('Stop', () => {
  it('cancels a streaming reply, which then shows as cancelled, never failed', async () => {
    daemon.plan(['hang'])
    const sid = createSession(daemon)
    renderChat(sid)
    await advance(10)
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'wait forever{Enter}')
    await advance(100)
    await user().click(within(lastAgentReply()).getByRole('button', { name: 'Stop' }))
    await advance(100)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'cancelled')
    expect(within(lastAgentReply()).getByText('Stopped')).toBeInTheDocument()
    expect(daemon.state().runs.map((r) => r.status)).toEqual(['cancelled'])
    expect(daemon.state().requests.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(1)
  })
})

describe('reload', () => {
  it('picks a streaming reply up where it left off after a reload', async () => {
    daemon.plan(['slow'])
    const sid = createSession(daemon)
    const first = renderChat(sid)
    await advance(10)
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'a long answer please{Enter}')
    await advance(1200)
    const before = lastAgentReply().querySelector('.message__body')?.textContent ?? ''
    expect(before.length).toBeGreaterThan(0)
    first.unmount()
    renderChat(sid, { runtime: reloadRuntime() })
    await advance(30_000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'complete')
    const stored = daemon.state().messages.find((m) => m.role === 'agent')!
    // Every character once: what is shown is exactly the stored reply, rendered.
    expect(lastAgentReply().querySelector('.message__body')?.textContent).toBe(renderedReplyText(stored.content))
    expect(renderedReplyText(stored.content).length).toBeGreaterThan(before.length)
    // Reattached with Last-Event-ID rather than replaying from the first event.
    const streams = daemon.state().requests.filter((r) => r.path.endsWith('/events'))
    expect(streams.length).toBeGreaterThanOrEqual(2)
  })
})

describe('malformed payloads', () => {
  it('shows a worded error instead of crashing when history is not what the wire promises', async () => {
    const sid = createSession(daemon)
    // A list that is not a list (one unreadable record is skipped instead: see bad-input tests).
    server.use(http.get('*/api/v1/sessions/:sid/messages', () => HttpResponse.json({ messages: { id: 1 } })))
    renderChat(sid)
    await advance(50)
    expect(screen.getByRole('alert')).toHaveTextContent('The conversation could not be loaded.')
    expect(screen.getByText('Code: payload_invalid')).toBeInTheDocument()
  })
})
