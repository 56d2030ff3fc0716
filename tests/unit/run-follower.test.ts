/**
 * The run follower against the mock daemon (MSW in node, real timers): it follows each active run
 * of a session's history once, feeds the live-run store, reads history once at the end, forgets a
 * run's live record only when history records its end, lets go on release, and leaves a refused
 * stream's failure standing.
 */
import { describe, expect, it, vi } from 'vitest'
import { startMockDaemonForFile } from '../setup/mock-daemon'
import { createLiveRunStore, LIVE_RUN_NAMESPACE, overlay } from '../../src/live/live-runs'
import { activeRuns, createRunFollower, type SettledRun } from '../../src/live/run-follower'
import { followProbe } from './follow-probe'
import { createKeyedStore, storageKey } from '../../src/storage/keyed-store'
import { createDaemonClient } from '../../src/wire/http'
import type { Message, Part } from '../../src/wire/types'

const { daemon } = startMockDaemonForFile()
const client = createDaemonClient({ baseUrl: 'http://daemon.test' })
let sends = 0

/** A session with one sent message whose run follows `fault`, and the history right after the send. */
async function sessionWithRun(fault: string) {
  daemon.plan([fault])
  const session = await client.createSession('Follow')
  const receipt = await client.sendMessage(session.id, { content: 'Tell me a story', client_message_id: `cid-${++sends}` })
  const history = await client.listMessages(session.id)
  return { sessionId: session.id, runId: receipt.run_id, history }
}

/** The follower over a fresh live store; `refreshHistory` reads history again and keeps it. */
function followerHarness() {
  const items = new Map<string, string>()
  const backend = {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  }
  const live = createLiveRunStore({
    store: createKeyedStore(backend),
    schedule: (flush) => {
      const timer = setTimeout(flush, 0)
      return () => clearTimeout(timer)
    },
  })
  const reads: Message[][] = []
  const refreshHistory = vi.fn(async (sessionId: string, _settled?: SettledRun) => {
    reads.push(await client.listMessages(sessionId))
  })
  const probe = followProbe(refreshHistory)
  const follower = createRunFollower({ client, live, refreshHistory: probe.refreshHistory, follow: probe.follow })
  return { live, follower, refreshHistory, reads, items, following: probe.following }
}

/** GET …/events requests the daemon received for a run. */
const streamsOpened = (runId: string) =>
  daemon.state().requests.filter((r) => r.method === 'GET' && r.path.includes(`/runs/${runId}/events`)).length

const storedReply = (runId: string) => daemon.state().messages.find((m) => m.run_id === runId)!

describe('activeRuns', () => {
  it('keeps agent replies of the main flow that are queued or streaming', () => {
    const base = { session_id: 's', content: '', created_at: 0, superseded: false }
    const messages: Message[] = [
      { ...base, id: 'op', role: 'operator' },
      { ...base, id: 'a', role: 'agent', run_id: 'r_a', status: 'streaming' },
      { ...base, id: 'b', role: 'agent', run_id: 'r_b', status: 'queued' },
      { ...base, id: 'c', role: 'agent', run_id: 'r_c', status: 'complete' },
      { ...base, id: 'd', role: 'agent', run_id: 'r_d', status: 'streaming', superseded: true },
      { ...base, id: 'e', role: 'agent', status: 'streaming' },
    ]
    expect(activeRuns(messages).map((m) => m.id)).toEqual(['a', 'b'])
    expect(activeRuns(undefined)).toEqual([])
  })
})

describe('createRunFollower', () => {
  it('follows an active run to its end and reads history once', async () => {
    const { sessionId, runId, history } = await sessionWithRun('ok')
    const h = followerHarness()
    expect(activeRuns(history).map((m) => m.run_id)).toEqual([runId])

    h.follower.watch(sessionId, history)
    expect(h.following(runId)).toBe(true)
    await vi.waitFor(() => expect(h.refreshHistory).toHaveBeenCalledTimes(1))
    await vi.waitFor(() => expect(h.following(runId)).toBe(false))

    const reply = storedReply(runId)
    expect(reply.status).toBe('complete')
    // The stream saw the run complete: the refresher is told what history now says of its reply.
    expect(h.refreshHistory).toHaveBeenCalledWith(sessionId, expect.objectContaining({ runId, messageId: reply.id, content: reply.content }), 'ended')
    // …and the steps it saw, as history keeps them (times aside: the stream's are the browser's clock).
    const settled = h.refreshHistory.mock.calls[0]![1]!
    const shape = (parts: readonly Part[] | undefined) => (parts ?? []).map((p) => (p.type === 'tool' ? `${p.type}:${p.name}:${p.status}:${p.input}:${p.output}` : `${p.type}:${p.text}`))
    expect(shape(settled.parts)).toEqual(shape(reply.parts))
    expect(settled.usage).toEqual(reply.usage)
    expect(h.live.get(runId)).toMatchObject({ runId, sessionId, status: 'complete', content: reply.content })
    expect(reply.content.length).toBeGreaterThan(0)
    expect(streamsOpened(runId)).toBe(1)
    // The run ended: no reattach point is left behind.
    expect(h.items.has(storageKey(LIVE_RUN_NAMESPACE, runId))).toBe(false)
    // History read at the end has the run's end.
    expect(h.reads.at(-1)!.find((m) => m.run_id === runId)!.status).toBe('complete')
  })

  it('asks for a read with nothing settled when the run failed: its classification comes from history', async () => {
    const { sessionId, runId, history } = await sessionWithRun('overloaded')
    const h = followerHarness()
    h.follower.watch(sessionId, history)
    await vi.waitFor(() => expect(h.refreshHistory).toHaveBeenCalledTimes(1))
    expect(h.refreshHistory).toHaveBeenCalledWith(sessionId, undefined, 'ended')
    expect(h.live.get(runId)).toMatchObject({ status: 'failed' })
  })

  it('opens no second stream when watch() sees the same history again, while following or after', async () => {
    const { sessionId, runId, history } = await sessionWithRun('ok')
    const h = followerHarness()
    h.follower.watch(sessionId, history)
    h.follower.watch(sessionId, history)
    await vi.waitFor(() => expect(h.refreshHistory).toHaveBeenCalledTimes(1))
    await vi.waitFor(() => expect(h.following(runId)).toBe(false))
    // History read before the end still shows the run going: it is not followed again.
    h.follower.watch(sessionId, history)
    expect(h.following(runId)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(streamsOpened(runId)).toBe(1)
    expect(h.refreshHistory).toHaveBeenCalledTimes(1)
    // And its live record stands, so the text does not roll back to the older read.
    expect(h.live.get(runId)).toMatchObject({ status: 'complete' })
  })

  it('forgets the live record of a failed run once history records the end', async () => {
    const { sessionId, runId, history } = await sessionWithRun('overloaded')
    const h = followerHarness()
    h.follower.watch(sessionId, history)
    await vi.waitFor(() => expect(h.following(runId)).toBe(false))
    expect(h.live.get(runId)).toBeDefined()

    const listener = vi.fn()
    h.live.subscribe(runId, listener)
    h.follower.watch(sessionId, h.reads.at(-1)!)
    expect(h.live.get(runId)).toBeUndefined()
    expect(listener).toHaveBeenCalled()
    expect(streamsOpened(runId)).toBe(1)
  })

  it('keeps the record of a run the stream saw complete against a read that still shows it going, until release', async () => {
    const { sessionId, runId, history } = await sessionWithRun('ok')
    const h = followerHarness()
    h.follower.watch(sessionId, history)
    await vi.waitFor(() => expect(h.following(runId)).toBe(false))
    const reply = storedReply(runId)
    // History written from the stream's end, then a read from before the daemon saved that end.
    h.follower.watch(sessionId, h.reads.at(-1)!)
    h.follower.watch(sessionId, history)
    const stale = history.find((m) => m.run_id === runId)!
    expect(stale.status).not.toBe('complete')
    expect(overlay(stale, h.live.get(runId))).toMatchObject({ status: 'complete', content: reply.content })
    expect(h.following(runId)).toBe(false)
    expect(streamsOpened(runId)).toBe(1)
    h.follower.release(sessionId)
    expect(h.live.get(runId)).toBeUndefined()
  })

  it('keeps finished runs of another session when watching one session', async () => {
    const first = await sessionWithRun('ok')
    const second = await sessionWithRun('ok')
    const h = followerHarness()
    h.follower.watch(first.sessionId, first.history)
    await vi.waitFor(() => expect(h.following(first.runId)).toBe(false))
    // History of the second session says nothing of the first one's run.
    h.follower.watch(second.sessionId, await client.listMessages(second.sessionId))
    expect(h.live.get(first.runId)).toMatchObject({ status: 'complete' })
    await vi.waitFor(() => expect(h.following(second.runId)).toBe(false))
  })

  it('release() aborts the stream, drops the live record, keeps the reattach point and reads no history', async () => {
    const { sessionId, runId, history } = await sessionWithRun('hang')
    const h = followerHarness()
    h.follower.watch(sessionId, history)
    await vi.waitFor(() => expect(h.live.get(runId)?.status).toBe('streaming'))
    await vi.waitFor(() => expect(h.live.get(runId)?.lastEventId).toBeDefined())

    h.follower.release(sessionId)
    expect(h.following(runId)).toBe(false)
    expect(h.live.get(runId)).toBeUndefined()
    // The run goes on in the daemon; a later visit resumes after the saved event.
    const saved = JSON.parse(h.items.get(storageKey(LIVE_RUN_NAMESPACE, runId))!) as { sessionId: string; lastEventId: number }
    expect(saved).toMatchObject({ sessionId, lastEventId: expect.any(Number) })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(h.refreshHistory).not.toHaveBeenCalled()
    expect(storedReply(runId).status).toBe('streaming')
    expect(h.live.get(runId)).toBeUndefined()

    // Coming back follows it again, resuming after the saved event.
    h.follower.watch(sessionId, await client.listMessages(sessionId))
    expect(h.following(runId)).toBe(true)
    expect(h.live.get(runId)).toMatchObject({ status: 'streaming', lastEventId: saved.lastEventId })
    await vi.waitFor(() => expect(streamsOpened(runId)).toBe(2))
    h.follower.release(sessionId)
  })

  it('leaves a failed live record that stands when the stream is refused with 404', async () => {
    const { sessionId, history } = await sessionWithRun('hang')
    const h = followerHarness()
    // History names a run the daemon does not know (a reset daemon, a deleted run).
    const ghost: Message[] = history.map((m) => (m.role === 'agent' ? { ...m, run_id: 'run_ghost' } : m))
    h.follower.watch(sessionId, ghost)
    await vi.waitFor(() => expect(h.refreshHistory).toHaveBeenCalledTimes(1))
    expect(h.live.get('run_ghost')).toMatchObject({ status: 'failed', error: { code: 'run_not_found' } })
    await vi.waitFor(() => expect(h.following('run_ghost')).toBe(false))

    // History still shows it streaming: the failure stands and the stream is not asked for again.
    h.follower.watch(sessionId, ghost)
    expect(h.live.get('run_ghost')).toMatchObject({ status: 'failed', error: { code: 'run_not_found' } })
    expect(h.following('run_ghost')).toBe(false)
    expect(streamsOpened('run_ghost')).toBe(1)
  })
})
