/**
 * `POST …/runs/:rid/tools/:tcid/decision` on the mock daemon: answered once, the same decision
 * again changes nothing, the other one is a conflict; refusals for what is not awaiting, unknown
 * runs and tools, and bad bodies; every decision in the request log; and over real HTTP a foreign
 * page cannot approve.
 */
import { describe, expect, it, vi } from 'vitest'
import { startDaemonServer } from '../../mocks/server'
import type { DecisionReceipt, RefusalBody, SendReceipt, Session } from '../../src/wire/types'
import { advanceUntil, call, finish, harness, log, names, replyOf, runOf, runWith, toolsOf, withStepDaemon } from './mock-steps-helpers'

withStepDaemon()

/** A run of `outcome` whose first tool has been called (and, for `approval`, is awaiting a decision). */
async function withTool(outcome = 'approval') {
  const run = await runWith(outcome)
  await advanceUntil(() => names(run.rid).includes(outcome === 'approval' ? 'tool_approval' : 'tool_result'))
  const tcid = toolsOf(replyOf(run.rid))[0]!.tool_call_id
  const decide = (body: unknown, tool = tcid, rid = run.rid, sid = run.sid) =>
    call<DecisionReceipt | RefusalBody>('POST', `/sessions/${sid}/runs/${rid}/tools/${tool}/decision`, body)
  return { ...run, tcid, decide }
}

const refusal = (status: number, code: string) => ({ status, body: { error: expect.any(String), code } })

describe('a decision', () => {
  it('approve twice (a double click, a second tab): the second answers the same and changes nothing', async () => {
    const { rid, tcid, decide } = await withTool()
    expect(await decide({ decision: 'approve' })).toEqual({ status: 200, body: { tool_call_id: tcid, status: 'running' } })
    const events = log(rid).length
    expect(await decide({ decision: 'approve' })).toEqual({ status: 200, body: { tool_call_id: tcid, status: 'running' } })
    expect(log(rid)).toHaveLength(events)
    await finish(rid)
    // After the tool ended, the same decision still answers, with the status it has now.
    expect(await decide({ decision: 'approve' })).toEqual({ status: 200, body: { tool_call_id: tcid, status: 'done' } })
    expect(names(rid).filter((n) => n === 'tool_running')).toHaveLength(1)
  })

  it('deny after approve is 409 decision_conflict, and the approval stands', async () => {
    const { rid, decide } = await withTool()
    await decide({ decision: 'approve' })
    expect(await decide({ decision: 'deny' })).toEqual(refusal(409, 'decision_conflict'))
    await finish(rid)
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('done')
  })

  it('approve after deny is 409 decision_conflict, and deny again answers denied', async () => {
    const { rid, tcid, decide } = await withTool()
    expect(await decide({ decision: 'deny' })).toEqual({ status: 200, body: { tool_call_id: tcid, status: 'denied' } })
    expect(await decide({ decision: 'approve' })).toEqual(refusal(409, 'decision_conflict'))
    expect(await decide({ decision: 'deny' })).toEqual({ status: 200, body: { tool_call_id: tcid, status: 'denied' } })
    await finish(rid)
    expect(names(rid)).not.toContain('tool_running')
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('denied')
  })

  it.each([
    ['a read tool (ok)', 'ok'],
    ['a write tool run without asking (approval:auto)', 'approval:auto'],
  ])('is refused 409 tool_not_awaiting for %s', async (_name, outcome) => {
    const { rid, decide } = await withTool(outcome)
    const before = log(rid).length
    expect(await decide({ decision: 'approve' })).toEqual(refusal(409, 'tool_not_awaiting'))
    expect(await decide({ decision: 'deny' })).toEqual(refusal(409, 'tool_not_awaiting'))
    expect(log(rid)).toHaveLength(before)
  })

  it('is refused 409 tool_not_awaiting once the run was cancelled (the tool ended cancelled)', async () => {
    const { sid, rid, decide } = await withTool()
    await call('POST', `/sessions/${sid}/runs/${rid}/cancel`)
    expect(await decide({ decision: 'approve' })).toEqual(refusal(409, 'tool_not_awaiting'))
    expect(runOf(rid).status).toBe('cancelled')
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('cancelled')
  })

  it('is refused 404 for an unknown run, another session’s run, or an unknown tool call', async () => {
    const { rid, tcid, decide } = await withTool()
    const other = (await call<Session>('POST', '/sessions', {})).body
    expect(await decide({ decision: 'approve' }, tcid, 'run_nope')).toEqual(refusal(404, 'run_not_found'))
    expect(await decide({ decision: 'approve' }, tcid, rid, other.id)).toEqual(refusal(404, 'run_not_found'))
    expect(await decide({ decision: 'approve' }, 'call_nope')).toEqual(refusal(404, 'tool_call_not_found'))
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('awaiting_approval')
  })

  it.each([
    ['no body', undefined, 422],
    ['an empty object', {}, 422],
    ['another word', { decision: 'maybe' }, 422],
    ['the word in another case', { decision: 'Approve' }, 422],
    ['an array', ['approve'], 422],
    ['text that is not JSON', '{decision', 400],
  ])('is refused invalid_request for %s, and changes nothing', async (_name, body, status) => {
    const { rid, decide } = await withTool()
    const before = log(rid).length
    expect(await decide(body)).toEqual(refusal(status, 'invalid_request'))
    expect(log(rid)).toHaveLength(before)
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('awaiting_approval')
  })

  it('is in the request log, refused or not, so tests can count decisions', async () => {
    const { sid, rid, tcid, decide } = await withTool()
    await decide({ decision: 'approve' })
    await decide({ decision: 'approve' })
    await decide({ decision: 'deny' })
    const decisions = harness.daemon.state().requests.filter((r) => r.path.endsWith('/decision'))
    expect(decisions).toEqual(
      Array.from({ length: 3 }, () => ({ method: 'POST', path: `/api/v1/sessions/${sid}/runs/${rid}/tools/${tcid}/decision`, at: Date.now() })),
    )
    // Tool runs are counted from the parts: one, however many decisions.
    await vi.advanceTimersByTimeAsync(1000)
    expect(toolsOf(replyOf(rid)).filter((t) => t.status === 'done')).toHaveLength(1)
  })
})

describe('a decision over real HTTP', () => {
  it('is refused to a foreign Origin (403) or Host (421) and changes nothing; a loopback page may decide', async () => {
    vi.useRealTimers()
    // MSW's interception would answer these requests itself: this test talks to the socket.
    harness.server.close()
    const server = await startDaemonServer({ port: 0, deltaDelayMs: 1 })
    try {
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${server.url}/api/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
      server.daemon.plan(['approval'])
      const session = (await (await post('/sessions', {})).json()) as Session
      const receipt = (await (await post(`/sessions/${session.id}/messages`, { content: 'save it', client_message_id: 'http-1' })).json()) as SendReceipt
      const deadline = Date.now() + 5000
      const reply = () => server.daemon.state().messages.find((m) => m.run_id === receipt.run_id)!
      while (!reply().parts?.some((p) => p.type === 'tool' && p.status === 'awaiting_approval')) {
        if (Date.now() > deadline) throw new Error('the tool never asked')
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      const tool = toolsOf(reply())[0]!
      const path = `/sessions/${session.id}/runs/${receipt.run_id}/tools/${tool.tool_call_id}/decision`
      const requestsBefore = server.daemon.state().requests.length

      for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
        const foreign = await post(path, { decision: 'approve' }, { origin })
        expect(foreign.status).toBe(403)
        expect(await foreign.json()).toEqual({ error: expect.any(String), code: 'origin_forbidden' })
        expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
      }
      const rebound = await new Promise<number>((resolve, reject) => {
        // fetch will not send a foreign Host; node's http will.
        void import('node:http').then(({ request }) => {
          const url = new URL(`${server.url}/api/v1${path}`)
          const req = request(
            { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
            (res) => {
              res.resume()
              resolve(res.statusCode ?? 0)
            },
          )
          req.on('error', reject)
          req.end(JSON.stringify({ decision: 'approve' }))
        })
      })
      expect(rebound).toBe(421)
      // Refused before any handler: nothing logged, nothing decided.
      expect(server.daemon.state().requests).toHaveLength(requestsBefore)
      expect(toolsOf(reply())[0]!.status).toBe('awaiting_approval')

      const loopback = await post(path, { decision: 'approve' }, { origin: 'http://localhost:5173' })
      expect(loopback.status).toBe(200)
      expect(loopback.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
      expect(await loopback.json()).toEqual({ tool_call_id: tool.tool_call_id, status: 'running' })
    } finally {
      await server.close()
    }
  })
})
