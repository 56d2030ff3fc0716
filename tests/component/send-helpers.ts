/**
 * Shared by the send suites: spies and faults on POST …/messages, the idempotency invariants over
 * the daemon's state, and the few screen helpers both use.
 */
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import type { SetupServer } from 'msw/node'
import { afterEach, expect } from 'vitest'
import type { DaemonState, MockDaemon } from '../../mocks/model'
import { advance, reloadRuntime, renderChat } from './harness'

export const user = () => userEvent.setup({ delay: null })
export const MESSAGES = '*/api/v1/sessions/:sid/messages'
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export type SentBody = { content: string; client_message_id: string }

export const box = () => screen.getByRole('textbox', { name: 'Message' })
export const operatorArticles = () => screen.queryAllByRole('article', { name: 'You' })
export const agentArticles = () => screen.queryAllByRole('article', { name: 'Agent' })
export const posts = (state: DaemonState) => state.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'))
export const operatorMessages = (state: DaemonState) => state.messages.filter((m) => m.role === 'operator')

/**
 * The invariants over the daemon's state: one operator message per client id, at most one
 * run per client id, and every run anchored on an operator message that exists.
 */
export function expectIdempotent(state: DaemonState) {
  const operators = operatorMessages(state)
  const ids = operators.map((m) => m.client_message_id)
  expect(new Set(ids).size, 'one operator message per client_message_id').toBe(ids.length)
  for (const run of state.runs) {
    const anchor = state.messages.find((m) => m.id === run.anchor_message_id)
    expect(anchor?.role, `run ${run.id} has its operator message`).toBe('operator')
  }
  for (const m of operators) {
    expect(state.runs.filter((r) => r.anchor_message_id === m.id).length, `runs from ${m.client_message_id}`).toBeLessThanOrEqual(1)
  }
}

export async function open(sid: string, runtime = reloadRuntime()) {
  const view = renderChat(sid, { runtime })
  await advance(10)
  return view
}

export async function typeAndSend(text: string) {
  await user().type(box(), `${text}{Enter}`)
}

export function onlyOperator(daemonRef: MockDaemon) {
  const operators = operatorMessages(daemonRef.state())
  expect(operators).toHaveLength(1)
  return operators[0]!
}

/** Faults and spies on sending, bound to one file's daemon and server. */
export function sendFaults(daemon: MockDaemon, server: SetupServer) {
  afterEach(() => server.events.removeAllListeners())
  return {
    /**
     * Records the body of every POST of a message as it starts, whichever handler then answers it
     * (the daemon's own or a test's override).
     */
    spyOnSends(): SentBody[] {
      const bodies: SentBody[] = []
      server.events.on('request:start', ({ request }) => {
        if (request.method !== 'POST' || !/\/sessions\/[^/]+\/messages$/.test(new URL(request.url).pathname)) return
        // Read as the request starts; every assertion comes after an advance(), when it is in.
        void request
          .clone()
          .json()
          .then((body: unknown) => void bodies.push(body as SentBody))
      })
      return bodies
    },
    /** A POST that never gets an answer: the tab goes away before it does. `land` lets the daemon take it first. */
    hangNextSend({ land }: { land: boolean }) {
      server.use(
        http.post(
          MESSAGES,
          async ({ request, params }) => {
            daemon.record(request.method, request.url)
            if (land) daemon.send(String(params.sid), await request.clone().json())
            await new Promise<never>(() => {})
          },
          { once: true },
        ),
      )
    },
    /** The next `count` POSTs fail without reaching the daemon (no response at all). */
    failSendsInTransit(count: number) {
      let left = count
      server.use(
        http.post(MESSAGES, ({ request }) => {
          if (left <= 0) return undefined
          left--
          daemon.record(request.method, request.url)
          return HttpResponse.error()
        }),
      )
    },
    refuseNextSend(status: number, code: string, error: string) {
      server.use(http.post(MESSAGES, () => HttpResponse.json({ error, code }, { status }), { once: true }))
    },
  }
}
