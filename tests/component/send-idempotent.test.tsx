/**
 * Idempotent sending, through the chat view over the real mock daemon: one `client_message_id`
 * per send, kept with the text in the outbox until the daemon accepts it, reused for the retry
 * after a transport error and for the re-send after a reload.
 */
import { render, screen, within } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient, Providers } from '../../src/app/providers'
import { ChatView } from '../../src/chat/chat-view'
import type { ChatRuntime } from '../../src/thread/runtime'
import { createI18n } from '../../src/i18n/bundled'
import { advance, createSession, installFakeClock, reloadRuntime, renderedReplyText, startMockDaemonForFile } from './harness'
import { agentArticles, box, expectIdempotent, MESSAGES, onlyOperator, open, operatorArticles, operatorMessages, posts, sendFaults, typeAndSend, user, UUID } from './send-helpers'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const { spyOnSends, hangNextSend, failSendsInTransit } = sendFaults(daemon, server)

describe('a send', () => {
  it('shows the message at once as "Sending…" with the text locked in the box, then "Sent" when accepted', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    // Hold the daemon's answer for half a second of fake time, then let it through.
    server.use(http.post(MESSAGES, () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 500)), { once: true }))
    await open(sid)
    await typeAndSend('hello there')
    await advance(1)
    const [pending] = operatorArticles()
    expect(pending).toHaveAttribute('data-delivery', 'sending')
    expect(within(pending!).getByText('Sending…')).toBeInTheDocument()
    expect(within(pending!).getByText('hello there')).toBeInTheDocument()
    expect(box()).toHaveValue('hello there')
    expect(box()).toHaveAttribute('readonly')
    expect(daemon.state().messages).toHaveLength(0)

    await advance(500)
    const [sent] = operatorArticles()
    expect(operatorArticles()).toHaveLength(1)
    expect(sent).toHaveAttribute('data-delivery', 'sent')
    expect(within(sent!).getByText('Sent')).toBeInTheDocument()
    expect(box()).toHaveValue('')
    expect(box()).not.toHaveAttribute('readonly')
    expect(bodies).toHaveLength(1)
    expect(bodies[0]!.client_message_id).toMatch(UUID)
    expect(onlyOperator(daemon).client_message_id).toBe(bodies[0]!.client_message_id)
    expect(daemon.state().runs).toHaveLength(1)
  })

  it('makes a new id for each send', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    await open(sid)
    await typeAndSend('first')
    await advance(50)
    await typeAndSend('second')
    await advance(50)
    expect(bodies.map((b) => b.content)).toEqual(['first', 'second'])
    expect(new Set(bodies.map((b) => b.client_message_id)).size).toBe(2)
    expect(operatorMessages(daemon.state()).map((m) => m.client_message_id)).toEqual(bodies.map((b) => b.client_message_id))
  })
})

describe('a reload in the middle of a send', () => {
  it.each([
    { land: false, what: 'that never reached the daemon' },
    { land: true, what: 'that the daemon took before the tab went away' },
  ])('re-sends a send $what with the same id, once', async ({ land }) => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    hangNextSend({ land })
    const first = await open(sid)
    await typeAndSend('do not lose me')
    await advance(20)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sending')
    expect(bodies).toHaveLength(1)
    first.unmount()

    await open(sid)
    await advance(2000)
    expect(bodies).toHaveLength(2)
    expect(bodies[1]).toEqual(bodies[0])
    const state = daemon.state()
    expect(operatorMessages(state)).toHaveLength(1)
    expect(onlyOperator(daemon).client_message_id).toBe(bodies[0]!.client_message_id)
    expect(state.runs).toHaveLength(1)
    expectIdempotent(state)
    expect(operatorArticles()).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sent')
    expect(within(operatorArticles()[0]!).getByText('do not lose me')).toBeInTheDocument()
    expect(agentArticles()).toHaveLength(1)
    expect(agentArticles()[0]).toHaveAttribute('data-status', 'complete')
    // The text went out as a message; it is not also left in the box to be sent a second time.
    expect(box()).toHaveValue('')
  })

  it('keeps the text of a send that was in flight when the tab went away, before the re-send settles', async () => {
    const sid = createSession(daemon)
    hangNextSend({ land: false })
    const first = await open(sid)
    await typeAndSend('still here')
    await advance(20)
    first.unmount()
    // The re-send hangs as well: the text must still be on screen, once, while it does.
    hangNextSend({ land: false })
    await open(sid)
    await advance(50)
    const shown = screen.getAllByText('still here')
    expect(shown).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sending')
    // Pressing Enter now cannot send a second copy.
    await user().type(box(), '{Enter}')
    await advance(50)
    expect(daemon.state().messages).toHaveLength(0)
  })
})

describe('transport errors', () => {
  it('retries once with the same id after a send that got no response', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    failSendsInTransit(1)
    await open(sid)
    await typeAndSend('through the noise')
    await advance(50)
    expect(bodies).toHaveLength(2)
    expect(bodies[1]).toEqual(bodies[0])
    expect(posts(daemon.state())).toHaveLength(2)
    expect(onlyOperator(daemon).client_message_id).toBe(bodies[0]!.client_message_id)
    expect(daemon.state().runs).toHaveLength(1)
    expect(operatorArticles()).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sent')
  })

  it('accept_then_drop: one copy of the message and one reply on screen, one message and one run in the daemon', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    daemon.plan(['accept_then_drop'])
    await open(sid)
    await typeAndSend('accepted but dropped')
    await advance(2000)
    // The retry carried the same id and the daemon answered 409: nothing created twice.
    expect(bodies).toHaveLength(2)
    expect(bodies[1]!.client_message_id).toBe(bodies[0]!.client_message_id)
    const state = daemon.state()
    expect(state.plan).toEqual([])
    expect(operatorMessages(state)).toHaveLength(1)
    expect(state.runs).toHaveLength(1)
    expect(state.runs[0]!.status).toBe('completed')
    expectIdempotent(state)
    expect(operatorArticles()).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sent')
    expect(screen.getAllByText('accepted but dropped')).toHaveLength(1)
    expect(agentArticles()).toHaveLength(1)
    expect(agentArticles()[0]).toHaveAttribute('data-status', 'complete')
    const reply = state.messages.find((m) => m.role === 'agent')!
    expect(agentArticles()[0]!.querySelector('.message__body')?.textContent).toBe(renderedReplyText(reply.content))
    expect(box()).toHaveValue('')
  })

  it('409 message_duplicate: finds its own message by id and follows its run', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    daemon.plan(['slow'])
    // The daemon takes the send, but the answer that comes back is the 409 of a second delivery.
    server.use(
      http.post(
        MESSAGES,
        async ({ request, params }) => {
          daemon.record(request.method, request.url)
          const body: unknown = await request.clone().json()
          daemon.send(String(params.sid), body)
          const again = daemon.send(String(params.sid), body)
          if (again.ok) throw new Error('expected the daemon to refuse a duplicate')
          return HttpResponse.json(again.refusal.body, { status: again.refusal.status })
        },
        { once: true },
      ),
    )
    await open(sid)
    await typeAndSend('find me')
    await advance(500)
    expect(bodies).toHaveLength(1)
    expect(operatorArticles()).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sent')
    expect(agentArticles()).toHaveLength(1)
    expect(agentArticles()[0]).toHaveAttribute('data-status', 'streaming')
    await advance(20_000)
    expect(agentArticles()[0]).toHaveAttribute('data-status', 'complete')
    const state = daemon.state()
    expect(operatorMessages(state)).toHaveLength(1)
    expect(state.runs).toHaveLength(1)
    expect(box()).toHaveValue('')
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })

  it('two transport errors and nothing in history: "Not sent", and Send again re-sends with the same id', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    failSendsInTransit(2)
    await open(sid)
    await typeAndSend('lost in transit')
    await advance(50)
    expect(bodies).toHaveLength(2)
    expect(daemon.state().messages).toHaveLength(0)
    const [parked] = operatorArticles()
    expect(parked).toHaveAttribute('data-delivery', 'not_sent')
    expect(within(parked!).getByText('Not sent')).toBeInTheDocument()
    expect(within(parked!).getByText('lost in transit')).toBeInTheDocument()
    // The text is safe in the not-sent entry, so the box is free for the next message.
    expect(box()).toHaveValue('')

    await user().click(within(parked!).getByRole('button', { name: 'Send again' }))
    await advance(50)
    expect(bodies).toHaveLength(3)
    expect(bodies[2]).toEqual(bodies[0])
    expect(onlyOperator(daemon).client_message_id).toBe(bodies[0]!.client_message_id)
    expect(operatorArticles()).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sent')
    expect(daemon.state().runs).toHaveLength(1)
  })

  it('history unreadable after two transport errors: "Not sent" too', async () => {
    const sid = createSession(daemon)
    await open(sid)
    failSendsInTransit(2)
    server.use(http.get(MESSAGES, () => HttpResponse.error(), { once: true }))
    await typeAndSend('no way to tell')
    await advance(50)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'not_sent')
    expect(daemon.state().messages).toHaveLength(0)
  })

  it('Edit on a "Not sent" message puts its text back in the box and sends nothing', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    failSendsInTransit(2)
    await open(sid)
    await typeAndSend('let me rephrase')
    await advance(50)
    await user().click(within(operatorArticles()[0]!).getByRole('button', { name: 'Edit' }))
    await advance(10)
    expect(box()).toHaveValue('let me rephrase')
    expect(box()).toHaveFocus()
    expect(operatorArticles()).toHaveLength(0)
    expect(bodies).toHaveLength(2)
    // Sent from the box after editing, it is a new send with a new id.
    await user().type(box(), ', please{Enter}')
    await advance(50)
    expect(bodies).toHaveLength(3)
    expect(bodies[2]!.content).toBe('let me rephrase, please')
    expect(bodies[2]!.client_message_id).not.toBe(bodies[0]!.client_message_id)
    expect(onlyOperator(daemon).content).toBe('let me rephrase, please')
  })

  it('a "Not sent" message survives a reload with its Send again and the same id', async () => {
    const sid = createSession(daemon)
    const bodies = spyOnSends()
    failSendsInTransit(2)
    const first = await open(sid)
    await typeAndSend('after the reload')
    await advance(50)
    first.unmount()
    await open(sid)
    await advance(50)
    expect(bodies).toHaveLength(2)
    const [parked] = operatorArticles()
    expect(parked).toHaveAttribute('data-delivery', 'not_sent')
    await user().click(within(parked!).getByRole('button', { name: 'Send again' }))
    await advance(50)
    expect(bodies[2]).toEqual(bodies[0])
    expect(onlyOperator(daemon).content).toBe('after the reload')
  })
})

describe('a refusal after a lost answer', () => {
  /** The first POST gets no response (after landing when `landed`); the retry is answered 503. */
  function loseThenRefuse(landed: boolean) {
    let count = 0
    server.use(
      http.post(MESSAGES, async ({ request, params }) => {
        count++
        if (count === 1) {
          daemon.record(request.method, request.url)
          if (landed) daemon.send(String(params.sid), await request.clone().json())
          return HttpResponse.error()
        }
        if (count === 2) return HttpResponse.json({ error: 'The daemon is restarting.', code: 'daemon_unavailable' }, { status: 503 })
        return undefined
      }),
    )
  }

  it('is checked against history: the first attempt landed, so it is sent, not refused', async () => {
    const sid = createSession(daemon)
    loseThenRefuse(true)
    await open(sid)
    await typeAndSend('did it land')
    await advance(50)
    expect(operatorArticles()).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sent')
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    // Left in the box, the text would be one Enter away from a second message.
    expect(box()).toHaveValue('')
    expect(onlyOperator(daemon).content).toBe('did it land')
    expect(daemon.state().runs).toHaveLength(1)
  })

  it('nothing in history: the refusal stands, worded, with the draft in the box', async () => {
    const sid = createSession(daemon)
    loseThenRefuse(false)
    await open(sid)
    await typeAndSend('it did not')
    await advance(50)
    expect(screen.getByRole('alert')).toHaveTextContent('Not sent: The daemon is unavailable right now and changed nothing. Try again shortly.')
    expect(box()).toHaveValue('it did not')
    expect(operatorArticles()).toHaveLength(0)
    expect(daemon.state().messages).toHaveLength(0)
  })
})

describe('leaving the session while a send is on the wire', () => {
  /** One page (runtime and query client) whose view switches sessions, as the app's router does. */
  function renderSwitchable(runtime: ChatRuntime, first: string) {
    const queryClient = createQueryClient()
    const i18n = createI18n({ lng: 'en' })
    const ui = (sessionId: string) => (
      <Providers i18n={i18n} queryClient={queryClient} runtime={runtime}>
        <ChatView key={sessionId} sessionId={sessionId} />
      </Providers>
    )
    const view = render(ui(first))
    return (sessionId: string) => view.rerender(ui(sessionId))
  }

  it.each([
    { answer: 'accepted', delivery: 'sent' },
    { answer: 'refused', delivery: 'not_sent' },
  ])('does not send it again on coming back, and shows its text once ($answer)', async ({ answer, delivery }) => {
    const sid = createSession(daemon, 'A')
    const other = createSession(daemon, 'B')
    const bodies = spyOnSends()
    // The daemon's answer comes half a second later.
    server.use(
      http.post(
        MESSAGES,
        () =>
          new Promise<Response | undefined>((resolve) =>
            setTimeout(() => resolve(answer === 'refused' ? HttpResponse.json({ error: 'Restarting.', code: 'daemon_unavailable' }, { status: 503 }) : undefined), 500),
          ),
        { once: true },
      ),
    )
    const show = renderSwitchable(reloadRuntime(), sid)
    await advance(10)
    await typeAndSend('on my way out')
    await advance(10)
    show(other)
    await advance(10)
    show(sid)
    await advance(10)
    expect(bodies).toHaveLength(1)
    expect(screen.getAllByText('on my way out')).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', 'sending')
    await advance(600)
    expect(bodies).toHaveLength(1)
    expect(operatorArticles()).toHaveLength(1)
    expect(operatorArticles()[0]).toHaveAttribute('data-delivery', delivery)
    expect(screen.getAllByText('on my way out')).toHaveLength(1)
    expect(box()).toHaveValue('')
    expect(operatorMessages(daemon.state())).toHaveLength(answer === 'accepted' ? 1 : 0)
  })
})
