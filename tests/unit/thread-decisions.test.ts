/**
 * A tool's decision, made once (src/thread/decisions.ts), against the mock daemon in node: a
 * double decide sends once; a lost response is sent again with the same decision; a 409 conflict
 * settles as "the other decision stands"; a reload sends a recorded decision again, once; two tabs
 * (runtimes over one storage, one lock manager, one tab hub) decide once. Also the pure rules:
 * which record may be sent, what each record shows, which tools wait, what the assertive region
 * says, when an approval takes focus and which keys act on it.
 */
import { QueryClient } from '@tanstack/query-core'
import { describe, expect, it, vi } from 'vitest'
import { approvalReason, approvalTakesFocus, awaitingApprovals, firstUndecided, KEY_GRACE_MS, keyActs, nextApprovalAlerts, type AwaitingTool } from '../../src/thread/approvals'
import { createDecisionBook, decisionKey, decisionView, needsOperator, type DecisionRecord } from '../../src/thread/decisions'
import { decide, deliverDecision, maySend, resumeDecisions, type DecisionRuntime } from '../../src/thread/decide'
import { createChatRuntime } from '../../src/thread/runtime'
import { createThread } from '../../src/thread/thread'
import { createKeyedStore } from '../../src/storage/keyed-store'
import { createLocalLocks, type LockManagerLike } from '../../src/storage/locks'
import { createTabHub, type TabHub } from '../../src/storage/tab-channel'
import { RefusalError, TransportError } from '../../src/wire/errors'
import { createDaemonClient, type DaemonClient } from '../../src/wire/http'
import type { LiveRun } from '../../src/live/live-runs'
import type { Message, ToolPart } from '../../src/wire/types'
import { memoryBackend } from './memory-backend'
import { advanceUntil, finish, harness, names, replyOf, runWith, toolsOf, withStepDaemon } from './mock-steps-helpers'

withStepDaemon()

const ORIGIN = 'http://daemon.test'
const decisionRequests = () => harness.daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/decision'))
const toolStatus = (rid: string) => toolsOf(replyOf(rid))[0]!.status

/** A run whose `write_file` call waits for a decision. */
async function waitingTool() {
  const run = await runWith('approval')
  await advanceUntil(() => names(run.rid).includes('tool_approval'))
  const toolCallId = toolsOf(replyOf(run.rid))[0]!.tool_call_id
  return { sessionId: run.sid, runId: run.rid, toolCallId }
}

/** One browser: tabs share its storage, its locks and its channel. */
function browser() {
  const backend = memoryBackend()
  const hub: TabHub = createTabHub({ sync: true })
  const locks = createLocalLocks()
  const tab = (client: Pick<DaemonClient, 'decide'> = createDaemonClient({ baseUrl: ORIGIN }), tabLocks: LockManagerLike = locks): DecisionRuntime => ({
    client,
    store: createKeyedStore(backend, { channel: hub.channel() }),
    locks: tabLocks,
    clock: { now: () => Date.now() },
  })
  return { backend, tab }
}

describe('deciding a tool', () => {
  it('a double decide (a double click, Enter held down) sends once; the record says it was taken', async () => {
    const target = await waitingTool()
    const { tab } = browser()
    const page = tab()
    const first = decide(page, { ...target, decision: 'approve' })
    const second = decide(page, { ...target, decision: 'approve' })
    const third = decide(page, { ...target, decision: 'deny' })
    expect(await second).toBeUndefined()
    expect(await third).toBeUndefined()
    expect(await first).toMatchObject({ decision: 'approve', state: 'taken' })
    // Pressed again once taken: nothing more goes out.
    expect(await decide(page, { ...target, decision: 'approve' })).toBeUndefined()
    expect(decisionRequests()).toHaveLength(1)
    await finish(target.runId)
    expect(toolStatus(target.runId)).toBe('done')
  })

  it('records the decision as sending before the request goes out', async () => {
    const target = await waitingTool()
    const { tab } = browser()
    let seen: DecisionRecord | undefined
    const page = tab({
      decide: async (...args: Parameters<DaemonClient['decide']>) => {
        seen = createDecisionBook(page.store).read(target.sessionId, target.runId, target.toolCallId)
        return createDaemonClient({ baseUrl: ORIGIN }).decide(...args)
      },
    })
    await decide(page, { ...target, decision: 'deny' })
    expect(seen).toMatchObject({ decision: 'deny', state: 'sending' })
  })

  it('a lost response is sent again with the same decision, and the 200 settles it', async () => {
    const target = await waitingTool()
    const { tab } = browser()
    const real = createDaemonClient({ baseUrl: ORIGIN })
    let calls = 0
    const page = tab({
      decide: async (...args: Parameters<DaemonClient['decide']>) => {
        calls += 1
        const receipt = await real.decide(...args)
        // The daemon took it; the answer never came back.
        if (calls === 1) throw new TransportError('connection reset')
        return receipt
      },
    })
    expect(await decide(page, { ...target, decision: 'approve' })).toMatchObject({ state: 'taken' })
    expect(decisionRequests()).toHaveLength(2)
    expect(harness.daemon.state().requests.filter((r) => r.path.endsWith('/decision')).length).toBe(2)
    await finish(target.runId)
    // The tool ran once.
    expect(names(target.runId).filter((n) => n === 'tool_running')).toHaveLength(1)
  })

  it('two lost responses leave it failed, as a value; the same decision can be sent again, and 200 settles it', async () => {
    const target = await waitingTool()
    const { tab } = browser()
    const real = createDaemonClient({ baseUrl: ORIGIN })
    let down = true
    const page = tab({
      decide: async (...args: Parameters<DaemonClient['decide']>) => {
        if (down) throw new TransportError('offline')
        return real.decide(...args)
      },
    })
    const failed = await decide(page, { ...target, decision: 'approve' })
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'transport_failed' } })
    expect(decisionView(failed)).toMatchObject({ kind: 'failed', decision: 'approve' })
    // Only the same decision goes out again: the first may have landed.
    expect(await decide(page, { ...target, decision: 'deny' })).toBeUndefined()
    down = false
    expect(await decide(page, { ...target, decision: 'approve' })).toMatchObject({ state: 'taken' })
    expect(decisionRequests()).toHaveLength(1)
  })

  it('409 decision_conflict settles it: the other decision stands', async () => {
    const target = await waitingTool()
    // Another browser (another operator) denied first.
    await createDaemonClient({ baseUrl: ORIGIN }).decide(target.sessionId, target.runId, target.toolCallId, 'deny')
    const { tab } = browser()
    const record = await decide(tab(), { ...target, decision: 'approve' })
    expect(record).toMatchObject({ decision: 'approve', state: 'conflict', error: { code: 'decision_conflict' } })
    expect(decisionView(record)).toEqual({ kind: 'conflict', decision: 'approve', standing: 'deny' })
    await finish(target.runId)
    expect(toolStatus(target.runId)).toBe('denied')
  })

  it('a refusal for good (the run was cancelled) is kept as a value, and not sent again', async () => {
    const target = await waitingTool()
    await createDaemonClient({ baseUrl: ORIGIN }).cancelRun(target.sessionId, target.runId)
    const { tab } = browser()
    const page = tab()
    const record = await decide(page, { ...target, decision: 'approve' })
    expect(record).toMatchObject({ state: 'refused', error: { code: 'tool_not_awaiting' } })
    expect(await decide(page, { ...target, decision: 'approve' })).toBeUndefined()
    expect(decisionRequests()).toHaveLength(1)
  })

  it('a reload sends a recorded decision again, once', async () => {
    const target = await waitingTool()
    const { tab } = browser()
    // The page goes away with its request on the wire: it never hears back.
    const gone = tab({ decide: () => new Promise<never>(() => {}) })
    void decide(gone, { ...target, decision: 'approve' })
    await vi.advanceTimersByTimeAsync(0)
    expect(createDecisionBook(gone.store).read(target.sessionId, target.runId, target.toolCallId)).toMatchObject({ state: 'sending' })
    expect(decisionRequests()).toHaveLength(0)

    // The reloaded page: the same storage; the old page's lock went with it.
    const reloaded = tab(undefined, createLocalLocks())
    const resumed = resumeDecisions(reloaded, target.sessionId)
    const again = resumeDecisions(reloaded, target.sessionId)
    expect(await Promise.all(resumed)).toEqual([expect.objectContaining({ decision: 'approve', state: 'taken' })])
    expect(await Promise.all(again)).toEqual([undefined])
    // Settled: a later open sends nothing.
    expect(resumeDecisions(tab(undefined, createLocalLocks()), target.sessionId)).toEqual([])
    expect(decisionRequests()).toHaveLength(1)
    await finish(target.runId)
    expect(toolStatus(target.runId)).toBe('done')
  })

  it('two tabs deciding at once send one decision; the other tab hears it at once', async () => {
    const target = await waitingTool()
    const { tab } = browser()
    const a = tab()
    const b = tab()
    let heard = 0
    createDecisionBook(b.store).subscribe(() => void heard++)
    const [fromA, fromB] = await Promise.all([decide(a, { ...target, decision: 'approve' }), decide(b, { ...target, decision: 'deny' })])
    expect(fromA).toMatchObject({ decision: 'approve', state: 'taken' })
    expect(fromB).toBeUndefined()
    expect(heard).toBeGreaterThan(0)
    expect(createDecisionBook(b.store).read(target.sessionId, target.runId, target.toolCallId)).toMatchObject({ decision: 'approve', state: 'taken' })
    // The second tab, pressing later, sends nothing either.
    expect(await decide(b, { ...target, decision: 'deny' })).toBeUndefined()
    expect(decisionRequests()).toHaveLength(1)
  })

  it('two tabs opening at once after a reload send the recorded decision once', async () => {
    const target = await waitingTool()
    const { tab } = browser()
    const gone = tab({ decide: () => new Promise<never>(() => {}) }, createLocalLocks())
    void decide(gone, { ...target, decision: 'deny' })
    await vi.advanceTimersByTimeAsync(0)
    const a = tab()
    const b = tab()
    const settled = await Promise.all([...resumeDecisions(a, target.sessionId), ...resumeDecisions(b, target.sessionId)])
    expect(settled.filter((r) => r !== undefined)).toEqual([expect.objectContaining({ decision: 'deny', state: 'taken' })])
    expect(decisionRequests()).toHaveLength(1)
    await finish(target.runId)
    expect(toolStatus(target.runId)).toBe('denied')
  })

  it('the thread decides through the same rules, and its snapshot says where the decision stands in every tab', async () => {
    const target = await waitingTool()
    const backend = memoryBackend()
    const hub = createTabHub({ sync: true })
    const locks = createLocalLocks()
    const open = () => {
      const runtime = createChatRuntime(createDaemonClient({ baseUrl: ORIGIN }), backend, { tabs: hub.channel(), locks, wake: () => () => {} })
      const thread = createThread(runtime, new QueryClient({ defaultOptions: { queries: { retry: false } } }), target.sessionId)
      const disconnect = thread.connect()
      return { thread, disconnect }
    }
    const a = open()
    const b = open()
    const key = decisionKey(target.runId, target.toolCallId)
    const seenInB: (string | undefined)[] = []
    b.thread.subscribe(() => seenInB.push(b.thread.getState().decisions.get(key)?.state))
    const deciding = a.thread.decide(target.runId, target.toolCallId, 'approve')
    void a.thread.decide(target.runId, target.toolCallId, 'approve')
    await deciding
    expect(a.thread.getState().decisions.get(key)).toMatchObject({ decision: 'approve', state: 'taken' })
    expect(b.thread.getState().decisions.get(key)).toMatchObject({ decision: 'approve', state: 'taken' })
    expect(seenInB).toContain('sending')
    expect(decisionRequests()).toHaveLength(1)
    a.disconnect()
    b.disconnect()
  })
})

describe('delivering one decision', () => {
  const target = { sessionId: 's', runId: 'r', toolCallId: 't' }
  const client = (...answers: (Error | 'ok')[]) => ({
    decide: vi.fn(async () => {
      const answer = answers.shift()
      if (answer === 'ok' || answer === undefined) return { tool_call_id: 't', status: 'running' as const }
      throw answer
    }),
  })

  it.each([
    ['a 503 daemon_unavailable fails, to be sent again', new RefusalError(503, 'daemon_unavailable', 'down'), 'failed'],
    ['a 404 tool_call_not_found is refused for good', new RefusalError(404, 'tool_call_not_found', 'no such tool'), 'refused'],
    ['a 404 run_not_found is refused for good', new RefusalError(404, 'run_not_found', 'no such run'), 'refused'],
    ['a 409 tool_not_awaiting is refused for good', new RefusalError(409, 'tool_not_awaiting', 'not waiting'), 'refused'],
    ['a 409 decision_conflict is a conflict', new RefusalError(409, 'decision_conflict', 'already decided'), 'conflict'],
  ])('%s', async (_name, error, state) => {
    const c = client(error)
    expect(await deliverDecision(c, target, 'approve')).toEqual({ state, error: { code: error.code, message: error.message } })
    expect(c.decide).toHaveBeenCalledTimes(1)
  })

  it('a lost answer followed by a conflict settles as a conflict (the other decision stands)', async () => {
    const c = client(new TransportError('reset'), new RefusalError(409, 'decision_conflict', 'already decided'))
    expect(await deliverDecision(c, target, 'deny')).toMatchObject({ state: 'conflict' })
    expect(c.decide).toHaveBeenNthCalledWith(2, 's', 'r', 't', 'deny')
  })
})

describe('the rules', () => {
  const record = (state: DecisionRecord['state'], decision: DecisionRecord['decision'] = 'approve'): DecisionRecord => ({
    sessionId: 's',
    runId: 'r',
    toolCallId: 't',
    decision,
    state,
    at: 0,
  })

  it('sends when nothing was decided, the same decision after a failure, or a recorded one on reload', () => {
    expect(maySend(undefined, 'approve', false)).toBe(true)
    expect(maySend(record('failed'), 'approve', false)).toBe(true)
    expect(maySend(record('failed'), 'deny', false)).toBe(false)
    expect(maySend(record('sending'), 'approve', false)).toBe(false)
    expect(maySend(record('sending'), 'approve', true)).toBe(true)
    for (const state of ['taken', 'conflict', 'refused'] as const) {
      expect(maySend(record(state), 'approve', false)).toBe(false)
      expect(maySend(record(state), 'approve', true)).toBe(false)
    }
  })

  it('shows each record as where the decision stands', () => {
    expect(decisionView(undefined)).toEqual({ kind: 'open' })
    expect(decisionView(record('sending', 'deny'))).toEqual({ kind: 'deciding', decision: 'deny' })
    expect(decisionView(record('taken'))).toEqual({ kind: 'taken', decision: 'approve' })
    expect(decisionView(record('conflict', 'deny'))).toEqual({ kind: 'conflict', decision: 'deny', standing: 'approve' })
    expect(needsOperator(undefined)).toBe(true)
    expect(needsOperator(record('failed'))).toBe(true)
    expect(needsOperator(record('sending'))).toBe(false)
  })

  const tool = (id: string, status: ToolPart['status'], name = 'write_file'): ToolPart => ({
    type: 'tool',
    tool_call_id: id,
    name,
    effect: 'write',
    input: '{}',
    status,
    started_at: 0,
  })
  const agent = (id: string, runId: string, parts: ToolPart[], extra: Partial<Message> = {}): Message => ({
    id,
    session_id: 's',
    role: 'agent',
    content: '',
    created_at: 0,
    superseded: false,
    run_id: runId,
    status: 'streaming',
    parts,
    ...extra,
  })

  it('finds the tools that wait in the running replies, with the live stream laid over history', () => {
    const history = [agent('a1', 'r1', [tool('t0', 'awaiting_approval')], { status: 'complete' }), agent('a2', 'r2', [tool('t1', 'input'), tool('t2', 'awaiting_approval', 'run_command')])]
    const live = { runId: 'r2', status: 'streaming', parts: [tool('t1', 'awaiting_approval'), tool('t2', 'awaiting_approval', 'run_command')] } as unknown as LiveRun
    const tools = awaitingApprovals(history, ['r2'], (runId) => (runId === 'r2' ? live : undefined))
    expect(tools.map((t) => [t.toolCallId, t.name])).toEqual([
      ['t1', 'write_file'],
      ['t2', 'run_command'],
    ])
    expect(awaitingApprovals(history, [], () => undefined)).toEqual([])
    const decided = new Map([[decisionKey('r2', 't1'), record('taken')]])
    expect(firstUndecided(tools, decided)?.toolCallId).toBe('t2')
  })

  it('says each waiting tool once, and not one another tab decided before it was seen', () => {
    const waiting = (id: string): AwaitingTool => ({ runId: 'r', toolCallId: id, name: `tool_${id}`, key: decisionKey('r', id) })
    let step = nextApprovalAlerts(new Set(), [waiting('a')], new Map())
    expect(step.alerts.map((t) => t.name)).toEqual(['tool_a'])
    step = nextApprovalAlerts(step.announced, [waiting('a')], new Map())
    expect(step.alerts).toEqual([])
    step = nextApprovalAlerts(step.announced, [waiting('a'), waiting('b'), waiting('c')], new Map([[decisionKey('r', 'c'), record('taken')]]))
    expect(step.alerts.map((t) => t.name)).toEqual(['tool_b'])
  })

  it('takes focus only when the operator is not typing, no dialog is open and no approval has it', () => {
    const none = { modalOpen: false, inTextField: false, inApproval: false }
    expect(approvalTakesFocus(none)).toBe(true)
    // An empty composer is where the next message is typed: its keys are not a decision.
    expect(approvalTakesFocus({ ...none, inTextField: true })).toBe(false)
    expect(approvalTakesFocus({ ...none, modalOpen: true })).toBe(false)
    expect(approvalTakesFocus({ ...none, inApproval: true })).toBe(false)
  })

  it('lets no repeated key act, nor one pressed as the approval took focus by itself', () => {
    expect(keyActs({ repeat: false, sinceAutoFocusMs: undefined })).toBe(true)
    expect(keyActs({ repeat: true, sinceAutoFocusMs: undefined })).toBe(false)
    expect(keyActs({ repeat: false, sinceAutoFocusMs: 10 })).toBe(false)
    expect(keyActs({ repeat: false, sinceAutoFocusMs: KEY_GRACE_MS })).toBe(true)
  })

  it('shows the daemon’s reason when it gave one', () => {
    expect(approvalReason({ ...tool('t', 'awaiting_approval'), reason: ' writes notes.md ' })).toBe('writes notes.md')
    expect(approvalReason({ ...tool('t', 'awaiting_approval'), reason: '  ' })).toBeUndefined()
    expect(approvalReason(tool('t', 'awaiting_approval'))).toBeUndefined()
  })
})
