/**
 * The first screen, in the whole app against the mock daemon: the message box has the focus; the
 * first Enter creates one untitled session and sends into it as one step, then opens it, and the
 * daemon titles it from the message's first line. The create is idempotent: a create whose
 * answer is lost is found in the session list instead of making a second session.
 */
import { screen, within } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { prefetchReplyParts } from '../../src/chat/reply/steps/lazy-reply-parts'
import { advance, advanceUntil, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { expectIdempotent } from './send-helpers'
import { expectFocusOn, listedTitles, renderAppAt, requestLines, sessionLink, sessionPath, user, wordsOf } from './session-helpers'

const { daemon, server } = startMockDaemonForFile()

// The first screen asks for the reply's steps chunk at idle, before any reply exists.
vi.mock('../../src/chat/reply/steps/lazy-reply-parts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/chat/reply/steps/lazy-reply-parts')>()
  return { ...original, prefetchReplyParts: vi.fn(original.prefetchReplyParts) }
})

beforeEach(() => installFakeClock())
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

const CREATES = /^POST \/api\/v1\/sessions$/
const SENDS = /^POST \/api\/v1\/sessions\/[^/]+\/messages$/
const SESSIONS = '*/api/v1/sessions'

describe.each(['en', 'zh'] as const)('the first screen (%s)', (lng) => {
  const t = wordsOf(lng)
  const box = () => screen.getByRole('textbox', { name: t('composer.label') })

  it('is ready to type: the message box has the focus, and nothing is created before Enter', async () => {
    vi.mocked(prefetchReplyParts).mockClear()
    await renderAppAt('/', lng)
    expect(screen.getByRole('heading', { name: t('start.heading') })).toBeInTheDocument()
    expect(screen.getByText(t('start.hint'))).toBeInTheDocument()
    expect(prefetchReplyParts).toHaveBeenCalled()
    expectFocusOn(box(), 'the message box')
    await user().keyboard('Half a thought')
    await advance(1_000)
    expect(box()).toHaveValue('Half a thought')
    expect(requestLines(daemon, CREATES)).toEqual([])
    expect(daemon.state().sessions).toEqual([])
  })

  it('the first Enter makes exactly one session and one message, opens it, titles it by the first line and streams the reply', async () => {
    await renderAppAt('/', lng)
    await user().keyboard('Deploy notes for Friday{Shift>}{Enter}{/Shift}Include the rollback plan.{Enter}')
    await advanceUntil(() => window.location.pathname.startsWith('/sessions/'), 'the new session opened')
    const [session] = daemon.state().sessions
    expect(daemon.state().sessions).toHaveLength(1)
    expect(window.location.pathname).toBe(sessionPath(session!.id))

    await advanceUntil(() => screen.queryByRole('article', { name: t('transcript.agent') })?.getAttribute('data-status') === 'complete', 'the reply')
    const state = daemon.state()
    expect(requestLines(daemon, CREATES)).toHaveLength(1)
    expect(requestLines(daemon, SENDS)).toEqual([`POST /api/v1/sessions/${session!.id}/messages`])
    expect(state.messages.filter((m) => m.role === 'operator').map((m) => m.content)).toEqual(['Deploy notes for Friday\nInclude the rollback plan.'])
    expect(state.runs).toHaveLength(1)
    expectIdempotent(state)
    // Titled by the daemon from the first line; the list shows it, marked as the one in view.
    expect(state.sessions[0]!.title).toBe('Deploy notes for Friday')
    await advanceUntil(() => listedTitles(t).includes('Deploy notes for Friday'), 'the title in the list')
    expect(sessionLink(t, 'Deploy notes for Friday')).toHaveAttribute('aria-current', 'page')

    // The session view: one operator message, one reply, and the box empty and ready again.
    expect(screen.getAllByRole('article', { name: t('transcript.operator') })).toHaveLength(1)
    expect(screen.getAllByRole('article', { name: t('transcript.agent') })).toHaveLength(1)
    expect(box()).toHaveValue('')
    expectFocusOn(box(), 'the message box of the new session')
    // The first screen's draft is gone too: back on "/", the box is empty.
    window.history.pushState(null, '', '/')
    window.dispatchEvent(new PopStateEvent('popstate'))
    await advance(20)
    expect(screen.getByRole('heading', { name: t('start.heading') })).toBeInTheDocument()
    expect(box()).toHaveValue('')
  })

  it('a second Enter while the first is on its way sends nothing more', async () => {
    await renderAppAt('/', lng)
    // Hold the create for a moment, so the operator can press Enter again meanwhile.
    server.use(http.post(SESSIONS, () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300)), { once: true }))
    await user().keyboard('Only once{Enter}')
    await advance(10)
    await user().keyboard('{Enter}{Enter}')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    await advance(100)
    expect(daemon.state().sessions).toHaveLength(1)
    expect(requestLines(daemon, CREATES)).toHaveLength(1)
    expect(requestLines(daemon, SENDS)).toHaveLength(1)
    expectIdempotent(daemon.state())
  })

  it('a create whose answer is lost (the daemon made it) is found in the list: still one session, one message, one run', async () => {
    await renderAppAt('/', lng)
    server.use(
      http.post(
        SESSIONS,
        async ({ request }) => {
          daemon.record(request.method, request.url)
          const made = daemon.createSession(await request.clone().json().catch(() => undefined))
          if (!made.ok) throw new Error(made.refusal.body.code)
          // The daemon made the session; its answer never arrives.
          return HttpResponse.error()
        },
        { once: true },
      ),
    )
    await user().keyboard('Lost answer, one session{Enter}')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    await advance(100)
    const state = daemon.state()
    expect(state.sessions).toHaveLength(1)
    expect(requestLines(daemon, CREATES)).toHaveLength(1)
    // It looked for the session the lost answer made instead of making another.
    expect(requestLines(daemon, /^GET \/api\/v1\/sessions$/).length).toBeGreaterThanOrEqual(1)
    expect(state.messages.filter((m) => m.role === 'operator')).toHaveLength(1)
    expect(state.runs).toHaveLength(1)
    expectIdempotent(state)
    expect(window.location.pathname).toBe(sessionPath(state.sessions[0]!.id))
    expect(state.sessions[0]!.title).toBe('Lost answer, one session')
    await advanceUntil(() => screen.queryByRole('article', { name: t('transcript.agent') })?.getAttribute('data-status') === 'complete', 'the reply shown')
  })

  it('the first send’s answer lost too (accept_then_drop): still one session, one message, one run', async () => {
    daemon.plan(['accept_then_drop'])
    await renderAppAt('/', lng)
    await user().keyboard('Both answers lost{Enter}')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    await advanceUntil(() => screen.queryByRole('article', { name: t('transcript.agent') })?.getAttribute('data-status') === 'complete', 'the reply shown')
    expect(daemon.state().sessions).toHaveLength(1)
    expect(daemon.state().messages.filter((m) => m.role === 'operator')).toHaveLength(1)
    expect(daemon.state().runs).toHaveLength(1)
    expectIdempotent(daemon.state())
    expect(screen.getAllByRole('article', { name: t('transcript.operator') })).toHaveLength(1)
  })

  it('a first send the daemon refuses (send_error) keeps its text in the new session, with Send again: one message once sent', async () => {
    daemon.plan(['send_error'])
    await renderAppAt('/', lng)
    await user().keyboard('Refused at first{Enter}')
    await advanceUntil(() => window.location.pathname.startsWith('/sessions/'), 'the session opened')
    await advanceUntil(() => screen.queryByRole('button', { name: t('actions.sendAgain') }) !== null, 'Send again')
    const parked = screen.getByRole('article', { name: t('transcript.operator') })
    expect(parked).toHaveAttribute('data-delivery', 'not_sent')
    expect(parked).toHaveTextContent('Refused at first')
    expect(daemon.state().messages).toEqual([])
    expect(daemon.state().sessions).toHaveLength(1)
    await user().click(screen.getByRole('button', { name: t('actions.sendAgain') }))
    await advanceUntil(() => screen.queryByRole('article', { name: t('transcript.agent') })?.getAttribute('data-status') === 'complete', 'the reply')
    expect(screen.getAllByRole('article', { name: t('transcript.operator') })).toHaveLength(1)
    expect(daemon.state().messages.filter((m) => m.role === 'operator').map((m) => m.content)).toEqual(['Refused at first'])
    expect(daemon.state().sessions[0]!.title).toBe('Refused at first')
    expectIdempotent(daemon.state())
  })

  it('a create lost before it reached the daemon is made again, once', async () => {
    await renderAppAt('/', lng)
    server.use(
      http.post(
        SESSIONS,
        ({ request }) => {
          daemon.record(request.method, request.url)
          return HttpResponse.error()
        },
        { once: true },
      ),
    )
    await user().keyboard('Try again{Enter}')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    expect(daemon.state().sessions).toHaveLength(1)
    expect(requestLines(daemon, CREATES)).toHaveLength(2)
    expect(daemon.state().messages.filter((m) => m.role === 'operator')).toHaveLength(1)
    expectIdempotent(daemon.state())
  })

  it('an untitled session made long before is not taken for the one a lost answer made', async () => {
    const old = createSession(daemon, '')
    await advance(60_000)
    await renderAppAt('/', lng)
    server.use(
      http.post(
        SESSIONS,
        ({ request }) => {
          daemon.record(request.method, request.url)
          return HttpResponse.error()
        },
        { once: true },
      ),
    )
    await user().keyboard('Not into the old one{Enter}')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    const state = daemon.state()
    expect(state.sessions).toHaveLength(2)
    expect(state.messages.filter((m) => m.session_id === old)).toEqual([])
    expect(state.sessions.find((s) => s.id === old)?.title).toBe('')
    expect(window.location.pathname).not.toBe(sessionPath(old))
  })

  it('a refused create keeps the text in the box and words the refusal', async () => {
    await renderAppAt('/', lng)
    server.use(http.post(SESSIONS, () => HttpResponse.json({ error: 'The daemon is shutting down.', code: 'daemon_unavailable' }, { status: 503 }), { once: true }))
    await user().keyboard('Keep this text{Enter}')
    await advance(50)
    expect(window.location.pathname).toBe('/')
    expect(box()).toHaveValue('Keep this text')
    const form = box().closest('form')!
    expect(within(form).getByRole('alert')).toHaveTextContent(t('start.failed', { reason: t('errors.daemon_unavailable') }))
    expect(daemon.state().sessions).toEqual([])
    expect(requestLines(daemon, SENDS)).toEqual([])

    // Enter again, once the daemon is back: one session, one message.
    await user().keyboard('{Enter}')
    await advanceUntil(() => window.location.pathname.startsWith('/sessions/'), 'the session opened')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    expect(daemon.state().sessions).toHaveLength(1)
    expect(daemon.state().messages.filter((m) => m.role === 'operator').map((m) => m.content)).toEqual(['Keep this text'])
  })

  it('a first line longer than 80 characters is cut for the title', async () => {
    await renderAppAt('/', lng)
    const line = `${'很长的标题'.repeat(20)}`
    await user().click(box())
    await user().paste(line)
    await user().keyboard('{Enter}')
    await advanceUntil(() => daemon.state().sessions[0]?.title !== undefined && daemon.state().sessions[0]!.title !== '', 'the title')
    expect(Array.from(daemon.state().sessions[0]!.title)).toHaveLength(80)
    expect(line.startsWith(daemon.state().sessions[0]!.title)).toBe(true)
  })
})
