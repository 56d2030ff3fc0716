/**
 * Sends that must not go out, or not twice: worded refusals that hand the draft back, double
 * Enter, double click and IME Enter, and one mixed sequence of all the faults checked against the
 * idempotency invariants (the random sequences are in tests/unit/send-invariants.test.ts).
 */
import { act, fireEvent, screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { advance, createSession, DAEMON_ORIGIN, installFakeClock, startMockDaemonForFile } from './harness'
import { agentArticles, box, expectIdempotent, onlyOperator, open, operatorArticles, operatorMessages, sendFaults, typeAndSend, user } from './send-helpers'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const { spyOnSends, hangNextSend, failSendsInTransit, refuseNextSend } = sendFaults(daemon, server)

describe('refusals', () => {
  it.each([
    { status: 422, code: 'content_empty', worded: 'Not sent: The message is empty. Write something before sending.' },
    {
      status: 422,
      code: 'content_too_long',
      worded: 'Not sent: The message is over the 32,000-character limit. Shorten it or split it into several messages.',
    },
  ])('$code is worded, the draft stays in the box and nothing is created', async ({ status, code, worded }) => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    refuseNextSend(status, code, 'refused in English')
    await open(sid)
    await typeAndSend('refuse this')
    await advance(50)
    expect(screen.getByRole('alert')).toHaveTextContent(worded)
    expect(box()).toHaveValue('refuse this')
    expect(box()).not.toHaveAttribute('readonly')
    expect(operatorArticles()).toHaveLength(0)
    // A refusal is an answer: no retry.
    expect(bodies).toHaveLength(1)
    expect(daemon.state().messages).toHaveLength(0)
    expect(daemon.state().runs).toHaveLength(0)
  })

  it('500 send_error is worded, keeps the draft, creates nothing; the next Enter sends it once', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    daemon.plan(['send_error'])
    await open(sid)
    await typeAndSend('try me again')
    await advance(50)
    expect(screen.getByRole('alert')).toHaveTextContent('Not sent: The daemon ran into an internal error and changed nothing. Try again.')
    expect(box()).toHaveValue('try me again')
    expect(operatorArticles()).toHaveLength(0)
    expect(bodies).toHaveLength(1)
    expect(daemon.state().messages).toHaveLength(0)
    expect(daemon.state().runs).toHaveLength(0)

    await user().type(box(), '{Enter}')
    await advance(50)
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    expect(bodies).toHaveLength(2)
    expect(onlyOperator(daemon).content).toBe('try me again')
    expect(daemon.state().runs).toHaveLength(1)
    expect(box()).toHaveValue('')
  })

  it('a refused Send again keeps the text as "Not sent" instead of dropping it', async () => {
    const sid = createSession(daemon)
    failSendsInTransit(2)
    await open(sid)
    await typeAndSend('keep me safe')
    await advance(50)
    expect(box()).toHaveValue('')
    daemon.plan(['send_error'])
    await user().click(within(operatorArticles()[0]!).getByRole('button', { name: 'Send again' }))
    await advance(50)
    expect(daemon.state().plan).toEqual([])
    expect(daemon.state().messages).toHaveLength(0)
    const [parked] = operatorArticles()
    expect(parked).toHaveAttribute('data-delivery', 'not_sent')
    expect(within(parked!).getByText('keep me safe')).toBeInTheDocument()
  })
})

describe('never twice', () => {
  it('double Enter sends once', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    await open(sid)
    await user().type(box(), 'once only{Enter}{Enter}')
    await advance(50)
    expect(bodies).toHaveLength(1)
    expect(operatorMessages(daemon.state())).toHaveLength(1)
  })

  it('two Enter presses before React renders send once', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    await open(sid)
    await user().type(box(), 'fast fingers')
    act(() => {
      fireEvent.keyDown(box(), { key: 'Enter', code: 'Enter' })
      fireEvent.keyDown(box(), { key: 'Enter', code: 'Enter' })
    })
    await advance(50)
    expect(bodies).toHaveLength(1)
    expect(operatorMessages(daemon.state())).toHaveLength(1)
  })

  it('double click on Send sends once', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    await open(sid)
    await user().type(box(), 'click click')
    await user().dblClick(screen.getByRole('button', { name: 'Send' }))
    await advance(50)
    expect(bodies).toHaveLength(1)
    expect(operatorMessages(daemon.state())).toHaveLength(1)
  })

  it('Enter while an IME is composing sends nothing; Enter after it ends sends once', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    await open(sid)
    await user().type(box(), 'ni hao')
    // The Enter that picks a candidate: while composing, as the event says, and as browsers
    // that end the composition first report it (keyCode 229).
    fireEvent.compositionStart(box())
    fireEvent.keyDown(box(), { key: 'Enter', code: 'Enter' })
    fireEvent.keyDown(box(), { key: 'Enter', code: 'Enter', isComposing: true })
    fireEvent.compositionEnd(box())
    fireEvent.keyDown(box(), { key: 'Enter', code: 'Enter', keyCode: 229 })
    await advance(50)
    expect(bodies).toHaveLength(0)
    expect(box()).toHaveValue('ni hao')
    await user().keyboard('{Enter}')
    await advance(50)
    expect(bodies).toHaveLength(1)
    expect(bodies[0]!.content).toBe('ni hao')
  })
})

describe('a mixed sequence', () => {
  it('sends, lost answers, 409s, 500s, reloads and double submits: one message and one run per send, nothing lost', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    const typed: string[] = []
    let view = await open(sid)
    const reload = async () => {
      view.unmount()
      view = await open(sid)
    }
    const say = async (text: string) => {
      typed.push(text)
      await typeAndSend(text)
      await advance(50)
    }

    await say('alpha')
    daemon.plan(['accept_then_drop'])
    await say('bravo')
    daemon.plan(['send_error'])
    await say('charlie')
    expect(screen.getByRole('alert')).toHaveTextContent('internal error')
    expect(box()).toHaveValue('charlie')
    await user().type(box(), '{Enter}')
    await advance(50)

    failSendsInTransit(2)
    await say('delta')
    await reload()
    const parked = operatorArticles().find((a) => a.getAttribute('data-delivery') === 'not_sent')!
    expect(within(parked).getByText('delta')).toBeInTheDocument()
    await user().click(within(parked).getByRole('button', { name: 'Send again' }))
    await advance(50)

    hangNextSend({ land: true })
    typed.push('echo')
    await typeAndSend('echo')
    await advance(20)
    await reload()
    await advance(50)

    typed.push('foxtrot')
    await user().type(box(), 'foxtrot')
    await user().dblClick(screen.getByRole('button', { name: 'Send' }))
    await advance(50)

    typed.push('golf')
    await user().type(box(), 'golf')
    act(() => {
      fireEvent.keyDown(box(), { key: 'Enter', code: 'Enter' })
      fireEvent.keyDown(box(), { key: 'Enter', code: 'Enter' })
    })
    await advance(50)

    // Someone replays alpha's request by hand: refused as a duplicate, nothing created.
    const alpha = operatorMessages(daemon.state()).find((m) => m.content === 'alpha')!
    const replay = await fetch(`${DAEMON_ORIGIN}/api/v1/sessions/${sid}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'alpha', client_message_id: alpha.client_message_id }),
    })
    expect(replay.status).toBe(409)

    await advance(3000)
    await reload()
    await advance(100)

    const state = daemon.state()
    expectIdempotent(state)
    expect(state.plan).toEqual([])
    expect(operatorMessages(state).map((m) => m.content)).toEqual(typed)
    expect(state.runs).toHaveLength(typed.length)
    expect(state.runs.every((r) => r.status === 'completed')).toBe(true)
    // Each text went out under one id, however many times it was delivered; only a refusal
    // (nothing created) ends a send, so Enter on charlie's draft after its 500 was a new one.
    const idsOf = (text: string) => new Set(bodies.filter((b) => b.content === text).map((b) => b.client_message_id)).size
    expect(Object.fromEntries(typed.map((text) => [text, idsOf(text)]))).toEqual({ ...Object.fromEntries(typed.map((text) => [text, 1])), charlie: 2 })
    expect(operatorArticles().map((a) => a.querySelector('.message__body')?.textContent)).toEqual(typed)
    expect(operatorArticles().every((a) => a.getAttribute('data-delivery') === 'sent')).toBe(true)
    expect(agentArticles()).toHaveLength(typed.length)
    expect(box()).toHaveValue('')
  })
})
