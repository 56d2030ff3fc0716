/**
 * The thread: one session's snapshot composed from history, the outbox and the live runs, and
 * the rules of its actions (when a regenerate asks first, what the tail shortcuts do, when the
 * session's streams are let go), over a scripted client and a real query cache.
 */
import { QueryClient } from '@tanstack/query-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { neighbourOf, successorOf } from '../../src/thread/session-order'
import { explainedClass, replyState } from '../../src/thread/reply-state'
import { addUsage, countSegments, EMPTY_LEDGER, ledgerSpent } from '../../src/thread/usage'
import { nextOutcomes, openingMemory } from '../../src/thread/session-outcomes'
import { createChatRuntime } from '../../src/thread/runtime'
import { createThread, type Thread } from '../../src/thread/thread'
import { createDaemonClient } from '../../src/wire/http'
import type { CancelReceipt, Message, RegenerateReceipt, Session } from '../../src/wire/types'
import { pageOf } from './history-pages'
import { memoryBackend } from './memory-backend'

const SID = 'ses_1'

const operator = (id: string, extra: Partial<Message> = {}): Message => ({ id, session_id: SID, role: 'operator', content: `question ${id}`, created_at: 0, superseded: false, ...extra })
const reply = (id: string, replyTo: string, status: Message['status'] = 'complete', extra: Partial<Message> = {}): Message => ({
  id,
  session_id: SID,
  role: 'agent',
  content: `answer ${id}`,
  created_at: 0,
  superseded: false,
  reply_to: replyTo,
  run_id: `run_${id}`,
  status,
  ...extra,
})

const open: Thread[] = []
const disconnects: Array<() => void> = []
afterEach(() => {
  for (const d of disconnects.splice(0)) d()
  open.length = 0
})

function harness(history: Message[]) {
  const client = createDaemonClient({ baseUrl: 'http://daemon.test' })
  // The thread reads history in pages: each read is one page of this history.
  const listMessages = vi.fn(async (_sid: string, page: { limit?: number; before?: number; after?: number }) => pageOf(history, page))
  const regenerate = vi.fn(async (_sid: string, _anchor: string): Promise<RegenerateReceipt> => ({ run_id: 'run_new', superseded: [], queued: false }))
  const cancelRun = vi.fn(async (_sid: string, runId: string): Promise<CancelReceipt> => ({ run_id: runId, status: 'cancelled' }))
  const toolOutput = vi.fn(async (_sid: string, runId: string, toolCallId: string) => `all of ${toolCallId} in ${runId}`)
  const runtime = createChatRuntime({ ...client, listMessagesPage: listMessages, regenerate, cancelRun, toolOutput }, memoryBackend())
  const watch = vi.fn()
  const release = vi.fn()
  runtime.follower = { ...runtime.follower, watch, release }
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const thread = createThread(runtime, queryClient, SID)
  open.push(thread)
  const connect = () => {
    const disconnect = thread.connect()
    disconnects.push(disconnect)
    return disconnect
  }
  const ready = () => vi.waitFor(() => expect(thread.getState().phase).toBe('ready'))
  return { runtime, thread, listMessages, regenerate, cancelRun, toolOutput, watch, release, connect, ready }
}

describe('the thread snapshot', () => {
  it('is loading until a view connects and history is read, then holds its rows', async () => {
    const { thread, connect, ready, listMessages, watch } = harness([operator('m1'), reply('r1', 'm1')])
    expect(thread.getState().phase).toBe('loading')
    expect(listMessages).not.toHaveBeenCalled()
    connect()
    await ready()
    const { rows, active } = thread.getState()
    expect(rows.map((row) => row.kind)).toEqual(['operator', 'agent'])
    expect(active).toBe(false)
    // The history read went to the follower, which follows what runs.
    expect(watch).toHaveBeenCalledWith(SID, expect.arrayContaining([expect.objectContaining({ id: 'r1' })]))
  })

  it('shows a send the daemon has not confirmed, and drops a parked one history shows after all', async () => {
    const { thread, runtime, connect, ready } = harness([operator('m1', { client_message_id: 'cid-landed' }), reply('r1', 'm1')])
    runtime.outbox.put({ clientMessageId: 'cid-landed', sessionId: SID, content: 'question m1', state: 'not_sent', createdAt: 0 })
    runtime.outbox.put({ clientMessageId: 'cid-parked', sessionId: SID, content: 'still mine', state: 'not_sent', createdAt: 0 })
    connect()
    await ready()
    await vi.waitFor(() => expect(runtime.outbox.get('cid-landed')).toBeUndefined())
    const { rows, pending } = thread.getState()
    expect(pending.map((e) => e.clientMessageId)).toEqual(['cid-parked'])
    expect(rows.map((row) => row.kind)).toEqual(['operator', 'agent', 'pending'])
  })

  it('lets go of the session\'s streams and schedulers only when the last view disconnects', async () => {
    const { connect, ready, release } = harness([])
    const first = connect()
    const second = connect()
    await ready()
    first()
    first()
    expect(release).not.toHaveBeenCalled()
    second()
    expect(release).toHaveBeenCalledWith(SID)
  })
})

describe('regenerate', () => {
  it('asks first when it would replace later operator messages, and regenerates once on yes', async () => {
    const { thread, connect, ready, regenerate } = harness([operator('m1'), reply('r1', 'm1'), operator('m2'), reply('r2', 'm2')])
    connect()
    await ready()
    thread.regenerate('m1')
    expect(thread.getState().confirming).toEqual({ anchorId: 'm1', count: 3 })
    expect(regenerate).not.toHaveBeenCalled()
    thread.confirmRegenerate()
    thread.confirmRegenerate()
    expect(thread.getState().confirming).toBeUndefined()
    expect(regenerate).toHaveBeenCalledTimes(1)
    expect(regenerate).toHaveBeenCalledWith(SID, 'm1')
  })

  it('does not ask for the last reply, and says the request is in flight until it settles', async () => {
    const { thread, connect, ready, regenerate } = harness([operator('m1'), reply('r1', 'm1')])
    connect()
    await ready()
    thread.regenerate('m1')
    expect(regenerate).toHaveBeenCalledTimes(1)
    expect(thread.getState().regenerating.has('m1')).toBe(true)
    await vi.waitFor(() => expect(thread.getState().regenerating.has('m1')).toBe(false))
  })

  it('keeps a refusal as a value for the reply it was asked on', async () => {
    const { thread, connect, ready, regenerate } = harness([operator('m1'), reply('r1', 'm1')])
    const refusal = new Error('refused')
    regenerate.mockRejectedValueOnce(refusal)
    connect()
    await ready()
    thread.regenerate('m1')
    await vi.waitFor(() => expect(thread.getState().regenerateError).toEqual({ anchorId: 'm1', error: refusal }))
  })

  it('cancelling the question regenerates nothing', async () => {
    const { thread, connect, ready, regenerate } = harness([operator('m1'), reply('r1', 'm1'), operator('m2'), reply('r2', 'm2')])
    connect()
    await ready()
    thread.regenerate('m1')
    thread.cancelConfirm()
    thread.confirmRegenerate()
    expect(regenerate).not.toHaveBeenCalled()
  })
})

describe('the tail shortcuts', () => {
  it('stop the reply being written, and do nothing else while it runs', async () => {
    const { thread, connect, ready, cancelRun, regenerate } = harness([operator('m1'), reply('r1', 'm1', 'streaming')])
    connect()
    await ready()
    expect(thread.getState().active).toBe(true)
    expect(thread.shortcut('retryOrRegenerate')).toBe(false)
    expect(thread.shortcut('stopOrCancel')).toBe(true)
    expect(cancelRun).toHaveBeenCalledWith(SID, 'run_r1')
    expect(regenerate).not.toHaveBeenCalled()
  })

  it('regenerate an ended reply, and find nothing to stop', async () => {
    const { thread, connect, ready, cancelRun, regenerate } = harness([operator('m1'), reply('r1', 'm1')])
    connect()
    await ready()
    expect(thread.shortcut('stopOrCancel')).toBe(false)
    expect(thread.shortcut('retryOrRegenerate')).toBe(true)
    expect(regenerate).toHaveBeenCalledWith(SID, 'm1')
    expect(cancelRun).not.toHaveBeenCalled()
  })

  it('act on nothing in a session whose last message is the operator\'s', async () => {
    const { thread, connect, ready } = harness([operator('m1')])
    connect()
    await ready()
    expect(thread.shortcut('stopOrCancel')).toBe(false)
    expect(thread.shortcut('retryOrRegenerate')).toBe(false)
  })
})

describe('a failed reply whose write tool ran (tier 2 held)', () => {
  const wrote = reply('r1', 'm1', 'failed', {
    content: '',
    error: { code: 'model_unavailable', message: 'The model provider is overloaded.' },
    retry: { retryable: true, retry_class: 'overloaded' },
    parts: [{ type: 'tool', tool_call_id: 'tc_1', name: 'write_file', effect: 'write', input: '{}', status: 'done', started_at: 0, ended_at: 0 }],
  })
  const held = async (h: ReturnType<typeof harness>) => {
    h.connect()
    await h.ready()
    await vi.waitFor(() => expect(h.runtime.retry.snapshot(SID).get('m1')?.value).toBe('held'))
  }

  it('the retry shortcut is Retry now: it regenerates at once', async () => {
    const h = harness([operator('m1'), wrote])
    await held(h)
    expect(h.regenerate).not.toHaveBeenCalled()
    expect(h.thread.shortcut('retryOrRegenerate')).toBe(true)
    await vi.waitFor(() => expect(h.regenerate).toHaveBeenCalledTimes(1))
    expect(h.regenerate).toHaveBeenCalledWith(SID, 'm1', expect.anything())
  })

  it('the stop shortcut cancels its retry, and Regenerate is offered again', async () => {
    const h = harness([operator('m1'), wrote])
    await held(h)
    expect(replyState(wrote, undefined, h.runtime.retry.snapshot(SID).get('m1'), 0)).toMatchObject({ canRegenerate: false, retry: { status: 'held', rerun: ['write_file'] } })
    expect(h.thread.shortcut('stopOrCancel')).toBe(true)
    expect(h.runtime.retry.snapshot(SID).get('m1')?.value).toEqual({ cancelled: 'quiet' })
    expect(replyState(wrote, undefined, h.runtime.retry.snapshot(SID).get('m1'), 0).canRegenerate).toBe(true)
    expect(h.regenerate).not.toHaveBeenCalled()
  })

  it('the live region says the failure and its hold in one outcome', async () => {
    const h = harness([operator('m1'), wrote])
    await held(h)
    const before = openingMemory({ history: [operator('m1'), { ...wrote, status: 'streaming' }], sends: [], retries: new Map(), news: undefined, now: 0 })
    const { outcomes } = nextOutcomes(before, { history: [operator('m1'), wrote], sends: [], retries: h.runtime.retry.snapshot(SID), news: undefined, now: 0 })
    expect(outcomes).toEqual([{ kind: 'failed', error: wrote.error, arming: { kind: 'held', attempt: 1, tools: ['write_file'] } }])
  })
})

describe('replyState', () => {
  it('offers Regenerate on a reply with an anchor and no scheduler, never on one without', () => {
    expect(replyState(reply('r1', 'm1'), undefined, undefined, 0).canRegenerate).toBe(true)
    const { reply_to: _, ...orphan } = reply('r1', 'm1')
    expect(replyState(orphan, undefined, undefined, 0).canRegenerate).toBe(false)
  })
})

describe('session order', () => {
  const list = ['a', 'b', 'c'].map((id): Session => ({ id, title: id, status: 'idle', created_at: 0, updated_at: 0 }))
  it('walks the list and stops at its ends; from nowhere, previous is the last', () => {
    expect(neighbourOf(list, 'a', 'next')?.id).toBe('b')
    expect(neighbourOf(list, 'c', 'next')).toBeUndefined()
    expect(neighbourOf(list, 'a', 'previous')).toBeUndefined()
    expect(neighbourOf(list, undefined, 'previous')?.id).toBe('c')
    expect(neighbourOf(list, undefined, 'next')?.id).toBe('a')
  })
  it('puts the next session in a deleted one\'s place, or the one before it at the end', () => {
    expect(successorOf(list, 'b')?.id).toBe('c')
    expect(successorOf(list, 'c')?.id).toBe('b')
    expect(successorOf(list, 'x')).toBeUndefined()
  })
})

describe('what a session spent', () => {
  it('adds every ended run, superseded and failed ones included, and leaves the running one to its stream', async () => {
    const usage = (input_tokens: number, output_tokens: number, cost_usd?: number) => ({ input_tokens, output_tokens, ...(cost_usd === undefined ? {} : { cost_usd }) })
    const { thread, connect, ready } = harness([
      operator('m1'),
      reply('r0', 'm1', 'failed', { superseded: true, usage: usage(100, 0, 0.01) }),
      reply('r1', 'm1', 'complete', { usage: usage(200, 50) }),
      operator('m2'),
      reply('r2', 'm2', 'streaming', { usage: usage(999, 999, 9) }),
    ])
    connect()
    await ready()
    expect(thread.getState().spent).toEqual({ usage: usage(300, 50, 0.01), since: undefined })
    expect(thread.getState().activeRuns).toEqual(['run_r2'])
  })

  it('knows no cost while no run reported one, and nothing at all before any usage', () => {
    expect(addUsage({ input_tokens: 1, output_tokens: 2 }, { input_tokens: 3, output_tokens: 4 })).toEqual({ input_tokens: 4, output_tokens: 6 })
    expect(ledgerSpent(countSegments(EMPTY_LEDGER, [{ lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY, messages: [operator('m1'), reply('r1', 'm1')] }])).usage).toBeUndefined()
  })
})

describe('what the live region says of a failed tool', () => {
  it('one outcome per piece of news, worded from the tool\'s name and error', () => {
    const inputs = { history: [] as Message[], sends: [], retries: new Map(), news: undefined, now: 0 }
    const memory = openingMemory(inputs)
    const error = { code: 'tool_failed', message: 'no such file' }
    const news = { seq: 1, runId: 'run_1', kind: 'toolFailed' as const, name: 'read_file', error }
    const first = nextOutcomes(memory, { ...inputs, news })
    expect(first.outcomes).toEqual([{ kind: 'toolFailed', name: 'read_file', error }])
    // The same news read again is not said twice.
    expect(nextOutcomes(first.memory, { ...inputs, news }).outcomes).toEqual([])
  })
})

describe('a tool\'s whole output', () => {
  it('is read from the run that called the tool', async () => {
    const { thread, toolOutput } = harness([])
    await expect(thread.loadToolOutput('t1', 'run_r1')).resolves.toBe('all of t1 in run_r1')
    expect(toolOutput).toHaveBeenCalledWith(SID, 'run_r1', 't1')
    await expect(thread.loadToolOutput('t1', undefined)).rejects.toThrow()
  })
})

describe('the retry class said under a failure', () => {
  const failedWith = (retry: Message['retry'], extra: Partial<Message> = {}) => reply('r1', 'm1', 'failed', { error: { code: 'x', message: 'x' }, retry, ...extra })
  it('is said when tier 2 will not retry, so the operator knows whether trying again helps', () => {
    expect(explainedClass(failedWith({ retryable: false, retry_class: 'context_overflow' }))).toBe('context_overflow')
    // Marked retryable but terminal: still never retried automatically.
    expect(explainedClass(failedWith({ retryable: true, retry_class: 'auth_failed' }))).toBe('auth_failed')
  })
  it('is left to the retry box when tier 2 retries, and unsaid with no classification or no failure', () => {
    expect(explainedClass(failedWith({ retryable: true, retry_class: 'rate_limited' }))).toBeUndefined()
    expect(explainedClass(failedWith(undefined))).toBeUndefined()
    expect(explainedClass(reply('r1', 'm1', 'complete'))).toBeUndefined()
  })
  it('is said of an earlier version, which tier 2 never retries', () => {
    expect(explainedClass(failedWith({ retryable: true, retry_class: 'overloaded' }, { superseded: true }))).toBe('overloaded')
  })
})
