/**
 * The mock daemon's agent steps (`shared/design/daemon-wire.md`, "Agent steps" and the outcome
 * table): each outcome's events in order, the parts its reply keeps, a reattach replaying the same
 * parts, the run's usage, reloads, and the pings a stream gets while a run is open.
 */
import { describe, expect, it, vi } from 'vitest'
import { createDaemon, type DaemonStorage } from '../../mocks/model'
import { replyFor } from '../../mocks/replies'
import { BIG_INPUT_BYTES, BIG_INPUT_MS, BIG_OUTPUT_BYTES } from '../../mocks/script'
import { PING_INTERVAL_MS } from '../../mocks/handlers/runs'
import { TOOL_OUTPUT_LIMIT, type DecisionReceipt, type Usage } from '../../src/wire/types'
import {
  D,
  advanceUntil,
  boot,
  call,
  data,
  finish,
  foldFrames,
  harness,
  log,
  names,
  readStream,
  replyOf,
  runOf,
  runWith,
  shape,
  toolsOf,
  untimed,
  withStepDaemon,
} from './mock-steps-helpers'

withStepDaemon()

const PROMPT = 'How do retries back off?'
const ZH_PROMPT = '重试是怎样退避的？'
const bytes = (text: string) => new TextEncoder().encode(text).length
const eventsNamed = (rid: string, name: string) => log(rid).filter((e) => e.event === name)
const textParts = (rid: string) => (replyOf(rid).parts ?? []).filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)

describe('ok', () => {
  it('reasons, calls search_docs with its input streamed, reads a short output, answers, and sends usage before done', async () => {
    const { rid } = await runWith('ok', PROMPT)
    await finish(rid)
    expect(shape(log(rid))).toEqual([
      'start',
      'reasoning',
      'tool_call',
      'tool_input',
      'usage',
      'tool_running',
      'tool_result',
      'delta',
      'usage',
      'done',
    ])
    const call = data<{ tool_call_id: string; name: string; effect: string }>(eventsNamed(rid, 'tool_call')[0])
    expect(call).toEqual({ tool_call_id: expect.any(String), name: 'search_docs', effect: 'read' })
    const inputs = eventsNamed(rid, 'tool_input').map((e) => data<{ tool_call_id: string; delta: string }>(e))
    // Streamed in pieces, every one naming the call; whole, the pieces are the JSON input.
    expect(inputs.length).toBeGreaterThan(1)
    expect(inputs.every((i) => i.tool_call_id === call.tool_call_id)).toBe(true)
    expect(JSON.parse(inputs.map((i) => i.delta).join(''))).toEqual({ query: PROMPT, limit: 3 })

    const reply = replyOf(rid)
    // The answer is the reply it always was: the steps come before it.
    expect(reply.content).toBe(replyFor(PROMPT))
    expect(reply.status).toBe('complete')
    expect(reply.parts?.map((p) => p.type)).toEqual(['reasoning', 'tool', 'text'])
    const [tool] = toolsOf(reply)
    expect(tool).toMatchObject({
      tool_call_id: call.tool_call_id,
      name: 'search_docs',
      effect: 'read',
      input: JSON.stringify({ query: PROMPT, limit: 3 }),
      status: 'done',
      output_bytes: bytes(tool!.output!),
      output_truncated: false,
    })
    expect(tool!.output).toMatch(/^3 results/)
    expect(tool!.ended_at).toBeGreaterThanOrEqual(tool!.started_at)
  })

  it('keeps the running usage after each model call on the message and the run, growing', async () => {
    const { rid } = await runWith('ok')
    await finish(rid)
    const usages = eventsNamed(rid, 'usage').map((e) => data<Usage>(e))
    expect(usages).toHaveLength(2)
    expect(usages[1]!.input_tokens).toBeGreaterThan(usages[0]!.input_tokens)
    expect(usages[1]!.output_tokens).toBeGreaterThan(usages[0]!.output_tokens)
    expect(usages[1]!.cost_usd).toBeGreaterThan(usages[0]!.cost_usd!)
    expect(replyOf(rid).usage).toEqual(usages[1])
    expect(runOf(rid).usage).toEqual(usages[1])
    const wire = await call<{ usage: Usage }>('GET', `/sessions/${runOf(rid).session_id}/runs/${rid}`)
    expect(wire.body.usage).toEqual(usages[1])
  })

  it('writes reasoning and outputs in Chinese for a Chinese prompt, tool names staying English', async () => {
    const { rid } = await runWith('ok', ZH_PROMPT)
    await finish(rid)
    const reply = replyOf(rid)
    expect(reply.content).toBe(replyFor(ZH_PROMPT))
    expect(reply.parts![0]).toMatchObject({ type: 'reasoning', text: expect.stringMatching(/\p{Script=Han}/u) })
    expect(toolsOf(reply)[0]).toMatchObject({ name: 'search_docs', output: expect.stringMatching(/条结果/) })
  })

  it('is what an empty plan runs', async () => {
    const { sid } = await runWith('ok')
    const second = await call<{ run_id: string }>('POST', `/sessions/${sid}/messages`, { content: 'again', client_message_id: 'ok-2' })
    await finish(second.body.run_id)
    expect(runOf(second.body.run_id).outcome).toBe('ok')
    expect(names(second.body.run_id)).toContain('tool_call')
  })
})

describe('plain', () => {
  it('streams today’s text-only reply: no reasoning, no tools, no usage', async () => {
    const { rid } = await runWith('plain', PROMPT)
    await finish(rid)
    expect(shape(log(rid))).toEqual(['start', 'delta', 'done'])
    expect(replyOf(rid).parts).toEqual([{ type: 'text', text: replyFor(PROMPT) }])
    expect(replyOf(rid).content).toBe(replyFor(PROMPT))
  })
})

describe('tools:N', () => {
  it('tools:3 runs the first two at once, then a line of text, the third, more text and the answer', async () => {
    const { rid } = await runWith('tools:3', PROMPT)
    await finish(rid)
    expect(shape(log(rid))).toEqual([
      'start',
      'reasoning',
      'tool_call',
      'tool_input',
      'tool_call',
      'tool_input',
      'usage',
      'tool_running',
      'tool_result',
      'delta',
      'tool_call',
      'tool_input',
      'usage',
      'tool_running',
      'tool_result',
      'delta',
      'usage',
      'done',
    ])
    // Both running before either ends: two tool_running events in a row.
    const steps = log(rid).map((e) => e.event)
    const firstRunning = steps.indexOf('tool_running')
    expect(steps.slice(firstRunning, firstRunning + 4)).toEqual(['tool_running', 'tool_running', 'tool_result', 'tool_result'])
    const reply = replyOf(rid)
    expect(reply.parts!.map((p) => p.type)).toEqual(['reasoning', 'tool', 'tool', 'text', 'tool', 'text'])
    const tools = toolsOf(reply)
    expect(tools.map((t) => [t.name, t.effect, t.status])).toEqual([
      ['search_docs', 'read', 'done'],
      ['read_file', 'read', 'done'],
      ['list_files', 'read', 'done'],
    ])
    expect(new Set(tools.map((t) => t.tool_call_id)).size).toBe(3)
    for (const tool of tools) expect(() => JSON.parse(tool.input)).not.toThrow()
    // `content` is the text parts joined, the answer last.
    expect(reply.content).toBe(textParts(rid).join(''))
    expect(reply.content.endsWith(replyFor(PROMPT))).toBe(true)
  })

  it('tools:1 runs one tool; tools:5 five, with a line of text before each after the first two', async () => {
    const one = await runWith('tools:1')
    await finish(one.rid)
    expect(toolsOf(replyOf(one.rid))).toHaveLength(1)
    const five = await runWith('tools:5')
    await finish(five.rid)
    expect(toolsOf(replyOf(five.rid)).map((t) => t.name)).toEqual(['search_docs', 'read_file', 'list_files', 'grep_code', 'search_docs'])
    expect(replyOf(five.rid).parts!.map((p) => p.type)).toEqual(['reasoning', 'tool', 'tool', 'text', 'tool', 'text', 'tool', 'text', 'tool', 'text'])
  })
})

describe('approval', () => {
  async function awaiting(outcome = 'approval', prompt = PROMPT) {
    const run = await runWith(outcome, prompt)
    await advanceUntil(() => names(run.rid).includes('tool_approval'))
    const tcid = toolsOf(replyOf(run.rid))[0]!.tool_call_id
    const decide = (decision: string) => call<DecisionReceipt>('POST', `/sessions/${run.sid}/runs/${run.rid}/tools/${tcid}/decision`, { decision })
    return { ...run, tcid, decide }
  }

  it('asks before write_file, with a reason, and waits as long as it takes', async () => {
    const { rid, tcid } = await awaiting()
    expect(shape(log(rid))).toEqual(['start', 'reasoning', 'tool_call', 'tool_input', 'usage', 'tool_approval'])
    expect(data(eventsNamed(rid, 'tool_call')[0])).toEqual({ tool_call_id: tcid, name: 'write_file', effect: 'write' })
    expect(data(eventsNamed(rid, 'tool_approval')[0])).toEqual({ tool_call_id: tcid, reason: expect.stringContaining('notes/how-do-retries-back.md') })
    const before = log(rid).length
    await vi.advanceTimersByTimeAsync(60 * 60_000)
    expect(log(rid)).toHaveLength(before)
    expect(runOf(rid).status).toBe('running')
    expect(toolsOf(replyOf(rid))[0]).toMatchObject({ status: 'awaiting_approval' })
    expect(JSON.parse(toolsOf(replyOf(rid))[0]!.input)).toMatchObject({ path: 'notes/how-do-retries-back.md' })
  })

  it('approved: the tool runs at once, then the agent says what it wrote and answers', async () => {
    const { rid, tcid, decide } = await awaiting()
    expect(await decide('approve')).toEqual({ status: 200, body: { tool_call_id: tcid, status: 'running' } })
    expect(log(rid).at(-1)).toMatchObject({ event: 'tool_running' })
    await finish(rid)
    expect(shape(log(rid)).slice(5)).toEqual(['tool_approval', 'tool_running', 'tool_result', 'delta', 'usage', 'done'])
    const reply = replyOf(rid)
    expect(toolsOf(reply)[0]).toMatchObject({ status: 'done', output: expect.stringMatching(/^Wrote \d+ bytes to notes\/how-do-retries-back\.md\.$/) })
    expect(reply.content).toMatch(/^I wrote `notes\/how-do-retries-back\.md` \(\d+ bytes\)/)
    expect(reply.content.endsWith(replyFor(PROMPT))).toBe(true)
    expect(runOf(rid).status).toBe('completed')
  })

  it('denied: the tool ends denied without running, and the agent answers without it', async () => {
    const { rid, tcid, decide } = await awaiting()
    expect(await decide('deny')).toEqual({ status: 200, body: { tool_call_id: tcid, status: 'denied' } })
    await finish(rid)
    expect(names(rid)).not.toContain('tool_running')
    expect(data(eventsNamed(rid, 'tool_result')[0])).toEqual({ tool_call_id: tcid, status: 'denied', output_bytes: 0, output_truncated: false })
    const reply = replyOf(rid)
    expect(toolsOf(reply)[0]).toMatchObject({ status: 'denied' })
    expect(toolsOf(reply)[0]!.output).toBeUndefined()
    expect(reply.content).toMatch(/^You declined the write, so nothing was saved\./)
    expect(reply.content.endsWith(replyFor(PROMPT))).toBe(true)
  })

  it('words its reason and its reply in Chinese for a Chinese prompt', async () => {
    const { rid, decide } = await awaiting('approval', ZH_PROMPT)
    expect(data<{ reason: string }>(eventsNamed(rid, 'tool_approval')[0]).reason).toMatch(/会在工作区写入 notes\/note\.md/)
    await decide('approve')
    await finish(rid)
    expect(replyOf(rid).content).toMatch(/^我已写入 `notes\/note\.md`/)
  })

  it('cancelling the run ends the pending tool cancelled, then the run', async () => {
    const { sid, rid, tcid, decide } = await awaiting()
    expect((await call('POST', `/sessions/${sid}/runs/${rid}/cancel`)).status).toBe(200)
    expect(shape(log(rid)).slice(-3)).toEqual(['tool_approval', 'tool_result', 'cancelled'])
    expect(data(log(rid).at(-2))).toEqual({ tool_call_id: tcid, status: 'cancelled', output_bytes: 0, output_truncated: false })
    expect(toolsOf(replyOf(rid))[0]).toMatchObject({ status: 'cancelled' })
    expect(replyOf(rid)).toMatchObject({ status: 'cancelled' })
    // What the first model call spent stays on a cancelled run.
    expect(runOf(rid).usage).toEqual(data(eventsNamed(rid, 'usage')[0]))
    expect((await decide('approve')).body).toMatchObject({ code: 'tool_not_awaiting' })
  })

  it('approval:auto runs the same write_file without asking', async () => {
    const { rid } = await runWith('approval:auto', PROMPT)
    await finish(rid)
    expect(names(rid)).not.toContain('tool_approval')
    expect(shape(log(rid))).toEqual(['start', 'reasoning', 'tool_call', 'tool_input', 'usage', 'tool_running', 'tool_result', 'delta', 'usage', 'done'])
    expect(toolsOf(replyOf(rid))[0]).toMatchObject({ name: 'write_file', effect: 'write', status: 'done' })
    expect(replyOf(rid).content).toMatch(/^I wrote `notes\//)
  })
})

describe('tool_fail', () => {
  it('ends the tool failed with tool_failed, and the agent answers anyway', async () => {
    const { rid } = await runWith('tool_fail', PROMPT)
    await finish(rid)
    const result = data<{ status: string; error: { code: string; message: string } }>(eventsNamed(rid, 'tool_result')[0])
    expect(result).toMatchObject({ status: 'failed', error: { code: 'tool_failed', message: expect.stringContaining('ENOENT') } })
    const reply = replyOf(rid)
    expect(toolsOf(reply)[0]).toMatchObject({ name: 'read_file', status: 'failed', error: { code: 'tool_failed' } })
    expect(reply.status).toBe('complete')
    expect(reply.error).toBeUndefined()
    expect(reply.content).toMatch(/^I could not read `config\/daemon\.toml`/)
    expect(reply.content.endsWith(replyFor(PROMPT))).toBe(true)
  })
})

describe('big_output', () => {
  it.each([
    ['English', PROMPT],
    ['Chinese (three bytes a character, so the cut falls inside one)', ZH_PROMPT],
  ])('sends at most 16 KiB of a 1 MiB output, cut between characters, and serves the whole of it (%s)', async (_name, prompt) => {
    const { sid, rid } = await runWith('big_output', prompt)
    await finish(rid)
    const result = data<{ output: string; output_bytes: number; output_truncated: boolean }>(eventsNamed(rid, 'tool_result')[0])
    expect(result.output_bytes).toBe(BIG_OUTPUT_BYTES)
    expect(result.output_truncated).toBe(true)
    expect(bytes(result.output)).toBeLessThanOrEqual(TOOL_OUTPUT_LIMIT)
    expect(bytes(result.output)).toBeGreaterThan(TOOL_OUTPUT_LIMIT - 4)
    expect(result.output).not.toContain('\uFFFD')
    const tool = toolsOf(replyOf(rid))[0]!
    expect(tool).toMatchObject({ output: result.output, output_bytes: BIG_OUTPUT_BYTES, output_truncated: true })

    const response = await fetch(`http://daemon.test/api/v1/sessions/${sid}/runs/${rid}/tools/${tool.tool_call_id}/output`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const whole = await response.text()
    expect(bytes(whole)).toBe(BIG_OUTPUT_BYTES)
    expect(whole.startsWith(result.output)).toBe(true)
    expect(replyOf(rid).content.endsWith(replyFor(prompt))).toBe(true)
  })

  it('serves a short output whole too, and refuses an unknown tool call or run with 404', async () => {
    const { sid, rid } = await runWith('ok')
    await finish(rid)
    const tool = toolsOf(replyOf(rid))[0]!
    const output = await fetch(`http://daemon.test/api/v1/sessions/${sid}/runs/${rid}/tools/${tool.tool_call_id}/output`)
    expect(await output.text()).toBe(tool.output)
    expect(await call('GET', `/sessions/${sid}/runs/${rid}/tools/call_nope/output`)).toEqual({
      status: 404,
      body: { error: expect.any(String), code: 'tool_call_not_found' },
    })
    expect((await call('GET', `/sessions/${sid}/runs/run_nope/tools/${tool.tool_call_id}/output`)).status).toBe(404)
  })
})

describe('big_input', () => {
  it('writes a 200 KiB JSON input over 10 s, then runs it without asking', async () => {
    const { rid } = await runWith('big_input', PROMPT)
    await advanceUntil(() => names(rid).includes('tool_call'))
    const calledAt = Date.now()
    const input = () => toolsOf(replyOf(rid))[0]!.input
    await vi.advanceTimersByTimeAsync(BIG_INPUT_MS / 2)
    // Half way: about half of it written, and not yet running.
    expect(bytes(input())).toBeGreaterThan(BIG_INPUT_BYTES * 0.4)
    expect(bytes(input())).toBeLessThan(BIG_INPUT_BYTES * 0.6)
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('input')
    await advanceUntil(() => names(rid).includes('tool_running'))
    expect(Date.now() - calledAt).toBeGreaterThanOrEqual(BIG_INPUT_MS)
    expect(Date.now() - calledAt).toBeLessThan(BIG_INPUT_MS + 10 * D)
    expect(bytes(input())).toBe(BIG_INPUT_BYTES)
    expect(JSON.parse(input())).toMatchObject({ path: 'data/fixture.json', content: expect.any(String) })
    await finish(rid)
    expect(names(rid)).not.toContain('tool_approval')
    expect(toolsOf(replyOf(rid))[0]).toMatchObject({ name: 'write_file', effect: 'write', status: 'done' })
    expect(runOf(rid).status).toBe('completed')
  })
})

describe('long_tool:S', () => {
  it('runs the tool S seconds, then answers', async () => {
    const { rid } = await runWith('long_tool:20', PROMPT)
    await advanceUntil(() => names(rid).includes('tool_running'))
    await vi.advanceTimersByTimeAsync(20_000 - 1)
    expect(toolsOf(replyOf(rid))[0]).toMatchObject({ name: 'run_command', status: 'running' })
    await vi.advanceTimersByTimeAsync(1)
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('done')
    await finish(rid)
    expect(replyOf(rid).content).toMatch(/^The tests pass \(148 of 148, 20 s\)\./)
  })

  it('Stop while it runs: the tool ends cancelled, then the run, keeping what it spent', async () => {
    const { sid, rid } = await runWith('long_tool:300')
    await advanceUntil(() => names(rid).includes('tool_running'))
    await vi.advanceTimersByTimeAsync(100_000)
    expect(await call('POST', `/sessions/${sid}/runs/${rid}/cancel`)).toEqual({ status: 200, body: { run_id: rid, status: 'cancelled' } })
    expect(shape(log(rid)).slice(-4)).toEqual(['usage', 'tool_running', 'tool_result', 'cancelled'])
    expect(data(log(rid).at(-2))).toMatchObject({ status: 'cancelled' })
    expect(toolsOf(replyOf(rid))[0]).toMatchObject({ status: 'cancelled', ended_at: Date.now() })
    expect(runOf(rid)).toMatchObject({ status: 'cancelled', usage: { input_tokens: expect.any(Number) } })
    expect(runOf(rid).retry).toBeUndefined()
    // Nothing is left to fire.
    const count = log(rid).length
    await vi.advanceTimersByTimeAsync(300_000)
    expect(log(rid)).toHaveLength(count)
  })
})

describe('write_then_fail', () => {
  it('runs write_file without asking, then fails model_unavailable (overloaded) at once, with no tier 1 retry', async () => {
    const { rid } = await runWith('write_then_fail', PROMPT)
    await finish(rid)
    expect(shape(log(rid))).toEqual(['start', 'reasoning', 'tool_call', 'tool_input', 'usage', 'tool_running', 'tool_result', 'error'])
    expect(names(rid)).not.toContain('retrying')
    expect(data(log(rid).at(-1))).toEqual({ error: expect.any(String), code: 'model_unavailable' })
    const reply = replyOf(rid)
    expect(reply).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' }, retry: { retryable: true, retry_class: 'overloaded' } })
    expect(toolsOf(reply)[0]).toMatchObject({ name: 'write_file', effect: 'write', status: 'done' })
    expect(runOf(rid)).toMatchObject({ status: 'failed', retry: { retryable: true, retry_class: 'overloaded' }, usage: reply.usage })
    expect(reply.usage).toBeDefined()
  })
})

describe('silent:S', () => {
  it('sends nothing, not even a ping, for S seconds after the first delta, then carries on', async () => {
    const { sid, rid } = await runWith('silent:50', PROMPT)
    const reading = await readStream(sid, rid)
    const firstDelta = reading.frames.findIndex((f) => f.event === 'delta')
    expect(reading.frames.at(-1)!.event).toBe('done')
    // 50 s of nothing at all, where an idle stream would have had three pings.
    expect(reading.arrivals[firstDelta + 1]! - reading.arrivals[firstDelta]!).toBeGreaterThanOrEqual(50_000)
    expect(reading.comments).toEqual([])
    expect(reading.frames[firstDelta + 1]!.event).toBe('delta')
    expect(replyOf(rid).content).toBe(replyFor(PROMPT))
  })

  it('a stream opened during the silence gets no ping either, and the run then completes', async () => {
    const { sid, rid } = await runWith('silent:40', PROMPT)
    await advanceUntil(() => names(rid).includes('delta'))
    const reading = await readStream(sid, rid, undefined, 38_000)
    expect(reading.frames.at(-1)!.event).toBe('delta')
    expect(reading.comments).toEqual([])
    expect(runOf(rid).status).toBe('running')
    await finish(rid)
    expect(runOf(rid).status).toBe('completed')
  })
})

describe('pings', () => {
  it('every 15 s while a decision waits, and while a long tool runs', async () => {
    const approval = await runWith('approval')
    const waiting = await readStream(approval.sid, approval.rid, undefined, 62_000)
    expect(waiting.frames.at(-1)!.event).toBe('tool_approval')
    expect(waiting.comments.length).toBeGreaterThanOrEqual(4)
    expect(waiting.comments.every((c) => c.text === 'ping')).toBe(true)
    const gaps = waiting.comments.slice(1).map((c, i) => c.at - waiting.comments[i]!.at)
    expect(gaps.every((gap) => gap <= PING_INTERVAL_MS)).toBe(true)

    const long = await runWith('long_tool:100')
    const running = await readStream(long.sid, long.rid, undefined, 50_000)
    expect(running.frames.at(-1)!.event).toBe('tool_running')
    expect(running.comments.length).toBeGreaterThanOrEqual(3)
  })
})

describe('replay', () => {
  it.each(['ok', 'tools:3', 'tool_fail', 'big_output', 'approval:auto', 'write_then_fail'])(
    '%s: the stream folds into exactly the parts and usage history keeps, read whole or reattached from any event',
    async (outcome) => {
      const { sid, rid } = await runWith(outcome, PROMPT)
      const live = await readStream(sid, rid)
      const reply = replyOf(rid)
      const folded = foldFrames(live.frames)
      expect(folded.parts).toEqual(untimed(reply.parts))
      expect(folded.usage).toEqual(reply.usage)
      expect(live.frames.map((f) => f.id)).toEqual(live.frames.map((_, i) => i + 1))
      for (const cut of [1, 3, Math.floor(live.frames.length / 2), live.frames.length - 2]) {
        const head = foldFrames(live.frames.slice(0, cut))
        const rest = await readStream(sid, rid, cut)
        expect(rest.frames).toEqual(live.frames.slice(cut))
        expect(foldFrames(rest.frames, head.parts).parts).toEqual(untimed(reply.parts))
      }
    },
  )

  it('a reattach mid-run replays the parts so far, then follows live to the same end', async () => {
    const { sid, rid } = await runWith('tools:3', PROMPT)
    await advanceUntil(() => names(rid).includes('tool_result'))
    const seen = log(rid).length
    const head = await readStream(sid, rid, undefined, 0)
    expect(head.frames.length).toBeGreaterThanOrEqual(seen)
    const rest = await readStream(sid, rid, head.frames.length)
    expect(foldFrames(rest.frames, foldFrames(head.frames).parts).parts).toEqual(untimed(replyOf(rid).parts))
  })
})

function memoryStorage(initial: string | null = null): DaemonStorage & { value: string | null } {
  const storage = {
    value: initial,
    load: () => storage.value,
    save: (state: string) => {
      storage.value = state
    },
  }
  return storage
}

describe('a reload (the browser daemon’s storage)', () => {
  it('keeps parts, usage and seq, and a run waiting for a decision goes on from the decision', async () => {
    const storage = memoryStorage()
    boot({ storage })
    const { sid, rid } = await runWith('approval', PROMPT)
    await advanceUntil(() => names(rid).includes('tool_approval'))
    await vi.advanceTimersByTimeAsync(0)
    const before = harness.daemon.state()
    const reloaded = memoryStorage(storage.value)
    boot({ storage: reloaded })
    expect(harness.daemon.state()).toEqual(before)
    harness.daemon.resume()
    const tcid = toolsOf(replyOf(rid))[0]!.tool_call_id
    const decided = await call<DecisionReceipt>('POST', `/sessions/${sid}/runs/${rid}/tools/${tcid}/decision`, { decision: 'approve' })
    expect(decided.body).toEqual({ tool_call_id: tcid, status: 'running' })
    await vi.advanceTimersByTimeAsync(0)
    // Reloaded again after the decision, before the tool ended: it carries on, and never asks twice.
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('running')
    boot({ storage: memoryStorage(reloaded.value) })
    harness.daemon.resume()
    await finish(rid)
    expect(eventsNamed(rid, 'tool_approval')).toHaveLength(1)
    expect(eventsNamed(rid, 'tool_running')).toHaveLength(1)
    expect(toolsOf(replyOf(rid))[0]!.status).toBe('done')
    expect(replyOf(rid).content.endsWith(replyFor(PROMPT))).toBe(true)
    expect(replyOf(rid).seq).toBe(2)
  })

  it('loads a save from before parts and seq, numbering its messages in order', () => {
    const at = Date.UTC(2026, 0, 1)
    const message = (id: string, session: string, role: 'operator' | 'agent', content: string) => ({
      id,
      session_id: session,
      role,
      content,
      created_at: at,
      superseded: false,
      ...(role === 'agent' ? { status: 'complete', run_id: `run_${id}`, reply_to: 'm1' } : { client_message_id: `c-${id}` }),
    })
    const old = {
      version: 1,
      tag: 'old0',
      counter: 9,
      sessions: [
        { id: 's1', title: 'old', status: 'idle', created_at: at, updated_at: at },
        { id: 's2', title: 'other', status: 'idle', created_at: at, updated_at: at },
      ],
      messages: [message('m1', 's1', 'operator', 'hi'), message('m2', 's2', 'operator', 'yo'), message('m3', 's1', 'agent', 'Hello **there**')],
      runs: [
        {
          id: 'run_m3', session_id: 's1', anchor_message_id: 'm1', reply_message_id: 'm3', status: 'completed', outcome: 'ok', created_at: at,
          events: [{ id: 1, event: 'start', data: '{"message_id":"m3"}' }, { id: 2, event: 'delta', data: '{"text":"Hello **there**"}' }, { id: 3, event: 'done', data: '{"message_id":"m3"}' }],
        },
      ],
      requests: [],
      plan: [],
    }
    const daemon = createDaemon({ storage: memoryStorage(JSON.stringify(old)) })
    const messages = daemon.state().messages
    expect(messages.map((m) => [m.id, m.seq])).toEqual([['m1', 1], ['m2', 1], ['m3', 2]])
    expect(messages[2]).toMatchObject({ content: 'Hello **there**', status: 'complete' })
    expect(messages[2]!.parts).toBeUndefined()
    // A new message takes the next seq of its session.
    const sent = daemon.send('s1', { content: 'next', client_message_id: 'c-next' })
    expect(sent.ok).toBe(true)
    expect(daemon.state().messages.filter((m) => m.session_id === 's1').map((m) => m.seq)).toEqual([1, 2, 3, 4])
    daemon.dispose()
  })
})
