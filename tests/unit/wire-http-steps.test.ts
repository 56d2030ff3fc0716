/**
 * The client's methods for agent steps and history pages against the mock daemon (MSW in node):
 * each reads its receipt through the wire schema, and a refusal or a body of another shape becomes
 * one of the wire's error classes.
 */
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { startMockDaemonForFile } from '../setup/mock-daemon'
import { MalformedPayloadError, RefusalError } from '../../src/wire/errors'
import { createDaemonClient } from '../../src/wire/http'
import { TOOL_OUTPUT_LIMIT, type Message, type ToolPart } from '../../src/wire/types'

const { daemon, server } = startMockDaemonForFile()
const client = createDaemonClient({ baseUrl: 'http://daemon.test' })
let ids = 0

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection, the call resolved')
}

const replyOf = (runId: string): Message => daemon.state().messages.find((m) => m.run_id === runId)!
const toolOf = (runId: string): ToolPart | undefined => replyOf(runId).parts?.find((p): p is ToolPart => p.type === 'tool')
const ended = (runId: string) => () => ['completed', 'failed', 'cancelled'].includes(daemon.state().runs.find((r) => r.id === runId)!.status)

/** A session with one message sent under `outcome`. */
async function sent(outcome: string, content = 'Where are the retry docs?') {
  daemon.plan([outcome])
  const session = await client.createSession()
  const clientMessageId = `cid-${++ids}`
  const receipt = await client.sendMessage(session.id, { content, client_message_id: clientMessageId })
  return { sessionId: session.id, clientMessageId, ...receipt }
}

describe('decide', () => {
  it('approves a tool awaiting approval, answers the same decision again, and refuses the other with decision_conflict', async () => {
    const { sessionId, run_id } = await sent('approval')
    await until(() => toolOf(run_id)?.status === 'awaiting_approval')
    const tcid = toolOf(run_id)!.tool_call_id
    expect(await client.decide(sessionId, run_id, tcid, 'approve')).toEqual({ tool_call_id: tcid, status: 'running' })
    expect(await client.decide(sessionId, run_id, tcid, 'approve')).toMatchObject({ tool_call_id: tcid })
    const conflict = await rejection(client.decide(sessionId, run_id, tcid, 'deny'))
    expect(conflict).toBeInstanceOf(RefusalError)
    expect(conflict).toMatchObject({ status: 409, code: 'decision_conflict' })
    const missing = await rejection(client.decide(sessionId, run_id, 'call_nope', 'deny'))
    expect(missing).toMatchObject({ status: 404, code: 'tool_call_not_found' })
    await until(ended(run_id))
    expect(daemon.state().requests.filter((r) => r.path.endsWith('/decision'))).toHaveLength(4)
  })

  it('rejects a receipt that is not one', async () => {
    server.use(http.post('*/api/v1/sessions/:sid/runs/:rid/tools/:tcid/decision', () => HttpResponse.json({ tool_call_id: 'x', status: 'approved' })))
    const error = await rejection(client.decide('s', 'r', 'x', 'approve'))
    expect(error).toBeInstanceOf(MalformedPayloadError)
  })
})

describe('toolOutput', () => {
  it('reads the whole output of a tool whose history holds 16 KiB of it', async () => {
    const { sessionId, run_id } = await sent('big_output')
    await until(ended(run_id))
    const tool = toolOf(run_id)!
    expect(tool.output_truncated).toBe(true)
    const whole = await client.toolOutput(sessionId, run_id, tool.tool_call_id)
    expect(new TextEncoder().encode(whole).length).toBe(tool.output_bytes)
    expect(whole.length).toBeGreaterThan(TOOL_OUTPUT_LIMIT)
    expect(whole.startsWith(tool.output!)).toBe(true)
    expect(await rejection(client.toolOutput(sessionId, run_id, 'call_nope'))).toMatchObject({ status: 404, code: 'tool_call_not_found' })
  })
})

describe('listMessagesPage', () => {
  it('reads the newest page, the one before it, and everything after a seq', async () => {
    daemon.plan(['hang'])
    const session = await client.createSession()
    for (let i = 1; i <= 4; i++) await client.sendMessage(session.id, { content: `m${i}`, client_message_id: `page-${++ids}` })
    const newest = await client.listMessagesPage(session.id, { limit: 3 })
    expect(newest.messages.map((m) => m.seq)).toEqual([6, 7, 8])
    expect(newest).toMatchObject({ has_more: true, skipped: 0 })
    const before = await client.listMessagesPage(session.id, { limit: 3, before: 6 })
    expect(before.messages.map((m) => m.seq)).toEqual([3, 4, 5])
    const after = await client.listMessagesPage(session.id, { after: 5 })
    expect(after).toMatchObject({ has_more: false })
    expect(after.messages.map((m) => m.seq)).toEqual([6, 7, 8])
    expect(daemon.state().requests.at(-1)!.path).toBe(`/api/v1/sessions/${session.id}/messages?after=5`)
    expect(await rejection(client.listMessagesPage(session.id, { limit: 5000 }))).toMatchObject({ status: 422, code: 'invalid_request' })
  })

  it('skips and counts a message it cannot read, and rejects a page without has_more', async () => {
    const good = { id: 'm1', session_id: 's', role: 'operator', content: 'hi', created_at: 1, superseded: false, seq: 1 }
    server.use(http.get('*/api/v1/sessions/:sid/messages', () => HttpResponse.json({ messages: [good, { id: 7 }], has_more: true })))
    expect(await client.listMessagesPage('s', { limit: 2 })).toEqual({ messages: [good], has_more: true, skipped: 1 })
    server.use(http.get('*/api/v1/sessions/:sid/messages', () => HttpResponse.json({ messages: [good] })))
    expect(await rejection(client.listMessagesPage('s', { limit: 2 }))).toBeInstanceOf(MalformedPayloadError)
  })
})

describe('findByClientMessageId', () => {
  it('finds a send and its reply by the id it was sent with, and [] for an id never sent', async () => {
    const { sessionId, clientMessageId, message_id, run_id } = await sent('plain')
    await until(ended(run_id))
    const found = await client.findByClientMessageId(sessionId, clientMessageId)
    expect(found.map((m) => [m.id, m.role])).toEqual([
      [message_id, 'operator'],
      [replyOf(run_id).id, 'agent'],
    ])
    expect(await client.findByClientMessageId(sessionId, 'not sent')).toEqual([])
    expect(daemon.state().requests.at(-1)!.path).toBe(`/api/v1/sessions/${sessionId}/messages?client_message_id=not+sent`)
  })
})

describe('searchMessages', () => {
  it('finds a tool name and the operator’s words, and refuses an empty query', async () => {
    const { sessionId, message_id, run_id } = await sent('ok', 'Where is the Gravity Well?')
    await until(ended(run_id))
    const result = await client.searchMessages(sessionId, 'gravity well', 10)
    expect(result.hits.map((h) => h.message_id)).toEqual([message_id, replyOf(run_id).id])
    expect(result).toMatchObject({ has_more: false, skipped: 0 })
    expect((await client.searchMessages(sessionId, 'SEARCH_DOCS', 10)).hits).toHaveLength(1)
    expect(await rejection(client.searchMessages(sessionId, ' ', 10))).toMatchObject({ status: 422, code: 'invalid_request' })
  })

  it('skips a hit it cannot read and rejects a body of another shape', async () => {
    server.use(
      http.get('*/api/v1/sessions/:sid/search', () =>
        HttpResponse.json({ hits: [{ message_id: 'm', seq: 1, snippet: 'x' }, { seq: 'two' }], has_more: false }),
      ),
    )
    expect(await client.searchMessages('s', 'x', 5)).toEqual({ hits: [{ message_id: 'm', seq: 1, snippet: 'x' }], has_more: false, skipped: 1 })
    server.use(http.get('*/api/v1/sessions/:sid/search', () => HttpResponse.json({ results: [] })))
    expect(await rejection(client.searchMessages('s', 'x', 5))).toBeInstanceOf(MalformedPayloadError)
  })
})
