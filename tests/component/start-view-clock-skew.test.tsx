/**
 * The first screen's idempotent create holds whatever the daemon's clock says ("Times on the wire
 * are the daemon's clock", daemon-wire.md): after a lost create answer,
 *
 * - a daemon 5 s behind: there is still one session, the one the lost answer made (none is left
 *   behind untitled and empty);
 * - a daemon 5 s ahead and a create that never reached it: an untitled session someone else made
 *   4 s before is not taken for this one, and the first message does not land in it.
 */
import { screen } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startSkewedDaemonForFile } from '../setup/mock-daemon'
import { advance, advanceUntil, installFakeClock } from './harness'
import { renderAppAt, user } from './session-helpers'

/** How far the daemon's clock is from the browser's, per test. */
const { daemon, server, skew } = startSkewedDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
})

/** The first create fails on the network: with `land`, after the daemon made the session (its answer is lost). */
function loseTheCreate({ land }: { land: boolean }): void {
  server.use(
    http.post(
      '*/api/v1/sessions',
      ({ request }) => {
        daemon.record(request.method, request.url)
        if (land) {
          const made = daemon.createSession(undefined)
          if (!made.ok) throw new Error(made.refusal.body.code)
        }
        return HttpResponse.error()
      },
      { once: true },
    ),
  )
}

describe('the first Enter, a lost create answer, and a daemon clock that is off', () => {
  it('a daemon 5 s behind: still one session, the one the lost answer made', async () => {
    skew.ms = -5_000
    await renderAppAt('/')
    loseTheCreate({ land: true })
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'One session only{Enter}')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    await advance(50)
    expect(daemon.state().sessions.map((s) => s.title)).toEqual(['One session only'])
  })

  it('a daemon 5 s ahead: an untitled session made 4 s before by someone else is not taken for a create that never arrived', async () => {
    skew.ms = 5_000
    const other = daemon.createSession(undefined)
    if (!other.ok) throw new Error(other.refusal.body.code)
    await advance(4_000)
    await renderAppAt('/')
    loseTheCreate({ land: false })
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'Into my own session{Enter}')
    await advanceUntil(() => daemon.state().runs.some((r) => r.status === 'completed'), 'the reply')
    await advance(50)
    expect(daemon.state().messages.filter((m) => m.session_id === other.value.id), 'messages in the other session').toEqual([])
    expect(daemon.state().sessions).toHaveLength(2)
  })
})
