/**
 * History in pages: what a page read vouches for and how it merges (in seq order, one copy per
 * id, a changed message replaced, an unchanged one kept), where the gaps are and what is read for
 * one, what each refresh reads again, what is let go, and the thread over a scripted daemon:
 * opening with the newest page, loading earlier, catching up with `?after=`, a regenerate's
 * superseded flags, and a find hit far up read with the page around it.
 */
import { QueryClient } from '@tanstack/query-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { refreshSession } from '../../src/thread/history'
import {
  aroundRequest,
  coverOf,
  emptyHistory,
  evict,
  farRegenerate,
  gapRequest,
  gapsOf,
  hasEarlier,
  historyFrom,
  mergeRead,
  PAGE_SIZE,
  refreshFrom,
  sinceOpened,
  staleRuns,
  type PagedHistory,
  type PageRequest,
} from '../../src/thread/pages'
import { createChatRuntime } from '../../src/thread/runtime'
import { createThread, type Thread } from '../../src/thread/thread'
import { withGaps } from '../../src/thread/transcript-model'
import { createTabHub } from '../../src/storage/tab-channel'
import { createDaemonClient } from '../../src/wire/http'
import type { Message, Part, RegenerateReceipt } from '../../src/wire/types'
import { pageOf } from './history-pages'
import { memoryBackend } from './memory-backend'

const SID = 'ses_p'

const operator = (seq: number, extra: Partial<Message> = {}): Message => ({
  id: `m${seq}`,
  session_id: SID,
  role: 'operator',
  content: `question ${seq}`,
  created_at: seq,
  superseded: false,
  seq,
  ...extra,
})
const reply = (seq: number, replyTo: number, extra: Partial<Message> = {}): Message => ({
  id: `r${seq}`,
  session_id: SID,
  role: 'agent',
  content: `answer ${seq}`,
  created_at: seq,
  superseded: false,
  reply_to: `m${replyTo}`,
  run_id: `run_${seq}`,
  status: 'complete',
  seq,
  ...extra,
})

/** A conversation of `exchanges` question/answer pairs, seqs 1…2n. */
function conversation(exchanges: number): Message[] {
  const out: Message[] = []
  for (let i = 0; i < exchanges; i++) out.push(operator(2 * i + 1), reply(2 * i + 2, 2 * i + 1))
  return out
}

/** A page read of `history` merged as the client merges it. */
function read(history: readonly Message[], request: PageRequest) {
  const page = pageOf(history, request)
  return { ...coverOf(request, page), skipped: 0 }
}

const seqs = (messages: readonly Message[]) => messages.map((m) => m.seq)

describe('a page read', () => {
  const all = conversation(150)

  it('vouches for the seqs it covers: the newest page from its first message on, an earlier page up to `before`, a catch-up from `after`', () => {
    const newest = read(all, { limit: PAGE_SIZE })
    expect([newest.lo, newest.hi]).toEqual([201, Number.POSITIVE_INFINITY])
    const earlier = read(all, { limit: PAGE_SIZE, before: 201 })
    expect([earlier.lo, earlier.hi]).toEqual([101, 200])
    const first = read(all, { limit: PAGE_SIZE, before: 101 })
    expect([first.lo, first.hi]).toEqual([Number.NEGATIVE_INFINITY, 100])
    const after = read(all, { after: 290, limit: 1000 })
    expect([after.lo, after.hi]).toEqual([291, Number.POSITIVE_INFINITY])
    const limited = read(all, { after: 10, limit: 5 })
    expect([limited.lo, limited.hi]).toEqual([11, 15])
  })

  it('merges touching pages into one run, in seq order, and knows when the session start is held', () => {
    let history = historyFrom(read(all, { limit: PAGE_SIZE }))
    expect(hasEarlier(history)).toBe(true)
    expect(gapsOf(history)).toEqual([{ key: 'gap:-Infinity:200', lo: Number.NEGATIVE_INFINITY, hi: 200, count: 200, start: true }])
    history = mergeRead(history, read(all, { limit: PAGE_SIZE, before: 201 }), 'fill')
    history = mergeRead(history, read(all, { limit: PAGE_SIZE, before: 101 }), 'fill')
    expect(history.segments).toHaveLength(1)
    expect(hasEarlier(history)).toBe(false)
    expect(seqs(history.messages)).toEqual(all.map((m) => m.seq))
    expect(gapsOf(history)).toEqual([])
  })

  it('keeps one copy per id: overlapping reads add nothing twice', () => {
    let history = historyFrom(read(all, { limit: PAGE_SIZE }))
    history = mergeRead(history, read(all, { limit: PAGE_SIZE, before: 251 }), 'fill')
    history = mergeRead(history, read(all, { after: 240, limit: 1000 }), 'replace')
    const ids = history.messages.map((m) => m.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(seqs(history.messages)).toEqual(all.slice(150).map((m) => m.seq))
  })

  it('replaces a changed message and keeps the object of an unchanged one (its row is not built again)', () => {
    const streaming = [...conversation(3).slice(0, 5), reply(6, 5, { status: 'streaming', content: 'ans' })]
    const history = historyFrom(read(streaming, { limit: PAGE_SIZE }))
    const ended = [...streaming.slice(0, 5).map((m) => ({ ...m })), reply(6, 5)]
    const next = mergeRead(history, read(ended, { after: 4, limit: 1000 }), 'replace')
    expect(next.messages[4]).toBe(history.messages[4])
    expect(next.messages[5]).toMatchObject({ status: 'complete', content: 'answer 6' })
    // A page read for a gap only adds: what is held stands.
    const filled = mergeRead(history, read(ended, { limit: PAGE_SIZE, before: 7 }), 'fill')
    expect(filled.messages[5]).toBe(history.messages[5])
  })

  it('lets a read take the place of a send shown from its receipt (same id, or the reply of the same run)', () => {
    const held = historyFrom(read(conversation(2), { limit: PAGE_SIZE }))
    const shown: PagedHistory = { ...held, segments: [{ ...held.segments[0]!, messages: [...held.messages, { ...operator(0), id: 'm5', seq: undefined }, { ...reply(0, 5), id: 'awaited:run_6', run_id: 'run_6', seq: undefined }] }] }
    const daemon = [...conversation(2), operator(5), reply(6, 5, { status: 'streaming' })]
    const next = mergeRead(shown, read(daemon, { after: 4, limit: 1000 }), 'replace')
    expect(next.messages.map((m) => m.id)).toEqual(['m1', 'r2', 'm3', 'r4', 'm5', 'r6'])
  })
})

describe('gaps', () => {
  it('read the page next to the run below when the view nears it, the page around the view far inside, and a small gap whole', () => {
    const start = { key: 'g', lo: Number.NEGATIVE_INFINITY, hi: 99_900, count: 99_900, start: true }
    expect(gapRequest(start, 1)).toEqual({ limit: PAGE_SIZE, before: 99_901 })
    expect(gapRequest(start, 0)).toEqual({ limit: PAGE_SIZE, before: 1 + PAGE_SIZE })
    expect(gapRequest(start, 0.5)).toEqual({ limit: PAGE_SIZE, before: Math.round(1 + 0.5 * 99_899) + PAGE_SIZE / 2 })
    expect(gapRequest({ key: 's', lo: 40, hi: 70, count: 31, start: false }, 0)).toEqual({ limit: PAGE_SIZE, before: 71 })
    expect(aroundRequest(7)).toEqual({ limit: PAGE_SIZE, before: 7 + PAGE_SIZE / 2 })
  })

  it('lie between the rows by seq, the earlier messages first', () => {
    const all = conversation(150)
    let history = historyFrom(read(all, { limit: PAGE_SIZE }))
    history = mergeRead(history, read(all, { limit: 10, before: 11 }), 'fill')
    const rows = history.messages.map((m) => ({ kind: 'operator' as const, key: m.id, message: m }))
    const laid = withGaps(rows, gapsOf(history))
    expect(laid.map((row) => (row.kind === 'gap' ? `gap ${row.gap.lo}-${row.gap.hi}` : 'message' in row ? row.message.seq : row.key)).slice(8, 13)).toEqual([9, 10, 'gap 11-200', 201, 202])
  })
})

describe('what a refresh reads again', () => {
  const all = conversation(150)
  const history = historyFrom(read([...all.slice(0, 299), reply(300, 299, { status: 'streaming' })], { limit: PAGE_SIZE }))

  it('a run that ended: from its reply on', () => {
    expect(refreshFrom(history, { kind: 'ended' })).toBe(299)
  })

  it('when unsure (another tab, a reconnect): the newest page held and what follows', () => {
    expect(refreshFrom(history, { kind: 'unsure' })).toBe(200)
  })

  it('a regenerate: from its anchor, and every earlier run held past it', () => {
    let both = mergeRead(history, read(all, { limit: 10, before: 11 }), 'fill')
    expect(refreshFrom(both, { kind: 'regenerated', anchorId: 'm251' })).toBe(200)
    expect(refreshFrom(both, { kind: 'regenerated', anchorId: 'm5' })).toBe(5)
    expect(staleRuns(both, 5)).toEqual([{ limit: 5, before: 11 }])
    both = mergeRead(both, read(all, { limit: 10, before: 11 }), 'fill')
    expect(refreshFrom(emptyHistory(), { kind: 'unsure' })).toBeUndefined()
  })

  it('a regenerate another tab made far back shows in the read: its anchor is read from', () => {
    // m201 was regenerated: everything after it superseded, a new reply at the end.
    const before = historyFrom(read(all, { limit: PAGE_SIZE }))
    const after = [...all.map((m) => ((m.seq as number) > 201 ? { ...m, superseded: true } : m)), reply(301, 201)]
    const caught = mergeRead(before, read(after, { after: 299, limit: 1000 }), 'replace')
    expect(farRegenerate(caught, 299)).toBe('m201')
    const fixed = mergeRead(caught, read(after, { after: 201, limit: 1000 }), 'replace')
    expect(farRegenerate(fixed, 201)).toBeUndefined()
  })
})

describe('letting pages go', () => {
  const all = conversation(1000)
  let history = historyFrom(read(all, { limit: PAGE_SIZE }))
  history = mergeRead(history, read(all, { limit: PAGE_SIZE, before: 101 }), 'fill')
  history = mergeRead(history, read(all, { limit: PAGE_SIZE, before: 1001 }), 'fill')

  it('keeps what is near the view and the newest page, and the bounds of what is kept stay exact', () => {
    const next = evict(history, 950, 960, 20)
    expect(seqs(next.messages)).toEqual([...range(930, 980), ...range(1901, 2000)])
    expect(next.segments.map((s) => [s.lo, s.hi])).toEqual([
      [930, 980],
      [1901, Number.POSITIVE_INFINITY],
    ])
    // The session's start is no longer held: it is a gap again.
    expect(hasEarlier(next)).toBe(true)
  })

  it('changes nothing (the same object) when all is near', () => {
    const near = evict(history, 1, 2000, 2000)
    expect(near).toBe(history)
  })

  it('reads a page let go again when the view comes back', () => {
    const next = evict(history, 1950, 2000, 20)
    const gap = gapsOf(next).at(-1)!
    const back = mergeRead(next, read(all, gapRequest(gap, 1)), 'fill')
    expect(seqs(back.messages).slice(-2 * PAGE_SIZE)).toEqual(range(1801, 2000))
  })
})

describe('news', () => {
  it('is what lies from where the session stood when opened: pages read above it are its past', () => {
    const all = conversation(150)
    const opened = historyFrom(read(all, { limit: PAGE_SIZE }))
    expect(sinceOpened(opened)).toBe(opened.messages)
    const scrolled = mergeRead(opened, read(all, { limit: PAGE_SIZE, before: 201 }), 'fill')
    expect(seqs(sinceOpened(scrolled))).toEqual(range(201, 300))
    expect(sinceOpened(scrolled)).toBe(sinceOpened(scrolled))
  })
})

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i)
}

// The thread over a scripted daemon.

const disconnects: Array<() => void> = []
afterEach(() => {
  for (const d of disconnects.splice(0)) d()
})

function harness(history: { current: Message[] }) {
  const client = createDaemonClient({ baseUrl: 'http://daemon.test' })
  const listMessagesPage = vi.fn(async (_sid: string, page: PageRequest) => pageOf(history.current, page))
  const listMessages = vi.fn(async () => history.current)
  const searchMessages = vi.fn(async (_sid: string, q: string) => {
    const hits = history.current.filter((m) => m.content.includes(q)).map((m) => ({ message_id: m.id, seq: m.seq as number, snippet: m.content }))
    return { hits, has_more: false, skipped: 0 }
  })
  const regenerate = vi.fn(async (): Promise<RegenerateReceipt> => ({ run_id: 'run_new', superseded: [], queued: false }))
  const hub = createTabHub({ sync: true })
  const runtime = createChatRuntime({ ...client, listMessagesPage, listMessages, searchMessages, regenerate }, memoryBackend(), { tabs: hub.channel() })
  runtime.follower = { ...runtime.follower, watch: vi.fn(), release: vi.fn() }
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  disconnects.push(runtime.connectHistory((sid, settled) => refreshSession(queryClient, sid, settled)))
  const thread: Thread = createThread(runtime, queryClient, SID)
  disconnects.push(thread.connect())
  const requests = () => listMessagesPage.mock.calls.map(([, page]) => page)
  const ready = () => vi.waitFor(() => expect(thread.getState().phase).toBe('ready'))
  return { thread, runtime, queryClient, hub, listMessagesPage, listMessages, searchMessages, regenerate, requests, ready }
}

const rowSeqs = (thread: Thread) => thread.getState().rows.map((row) => (row.kind === 'gap' ? 'gap' : row.kind === 'pending' ? 'pending' : row.message.seq))

describe('the thread over pages', () => {
  it('opens with the newest page alone, one read, a gap row before it, and never the whole history', async () => {
    const h = harness({ current: conversation(500) })
    await h.ready()
    expect(h.requests()).toEqual([{ limit: PAGE_SIZE }])
    expect(h.listMessages).not.toHaveBeenCalled()
    const state = h.thread.getState()
    expect(state.hasEarlier).toBe(true)
    expect(state.rows[0]?.kind).toBe('gap')
    expect(state.rows).toHaveLength(PAGE_SIZE + 1)
    expect(seqs(state.messages)).toEqual(range(901, 1000))
  })

  it('loads earlier pages, the one before the first held each time, until the session start', async () => {
    const h = harness({ current: conversation(100) })
    await h.ready()
    const loading = h.thread.loadEarlier()
    expect(h.thread.getState().loadingEarlier).toBe(true)
    await loading
    expect(h.thread.getState().loadingEarlier).toBe(false)
    expect(h.requests().at(-1)).toEqual({ limit: PAGE_SIZE, before: 101 })
    expect(h.thread.getState().hasEarlier).toBe(false)
    expect(rowSeqs(h.thread)).toEqual(range(1, 200))
    // The earlier page is the session's past: not news for the core or the announcers.
    expect(seqs(h.thread.getState().messages)).toEqual(range(101, 200))
    expect(await h.thread.loadEarlier()).toBe(false)
  })

  it('catches up with ?after= when a run ends, reading its reply and what follows, not the page again', async () => {
    const history = { current: [...conversation(150).slice(0, 299), reply(300, 299, { status: 'streaming', content: '' })] }
    const h = harness(history)
    await h.ready()
    history.current = [...history.current.slice(0, 299), reply(300, 299, { status: 'failed', error: { code: 'model_unavailable', message: 'down' } })]
    await refreshSession(h.queryClient, SID, undefined, { kind: 'ended' })
    expect(h.requests().at(-1)).toEqual({ after: 299, limit: 1000 })
    expect(h.thread.getState().messages.at(-1)).toMatchObject({ id: 'r300', status: 'failed' })
    expect(h.thread.getState().rows.filter((row) => row.kind !== 'gap')).toHaveLength(PAGE_SIZE)
  })

  it('shows a run the stream completed at once, then reads its reply again for its tools’ times on the daemon’s clock', async () => {
    const tool = (started: number, ended?: number): Part => ({
      type: 'tool',
      tool_call_id: 'tc1',
      name: 'run_command',
      effect: 'read',
      input: '{}',
      status: ended === undefined ? 'running' : 'done',
      output: 'ok',
      started_at: started,
      ...(ended === undefined ? {} : { ended_at: ended }),
    })
    const history = { current: [...conversation(150).slice(0, 299), reply(300, 299, { status: 'streaming', content: '', parts: [tool(1_000)] })] }
    const h = harness(history)
    await h.ready()
    const reads = h.requests().length
    // The daemon's record: the tool ran 10.3 s. The stream saw its events 9.5 s apart.
    history.current = [...history.current.slice(0, 299), reply(300, 299, { parts: [tool(1_000, 11_300), { type: 'text', text: 'answer 300' }] })]
    const settled = { runId: 'run_300', messageId: 'r300', content: 'answer 300', parts: [tool(1_200, 10_700), { type: 'text' as const, text: 'answer 300' }] }
    await refreshSession(h.queryClient, SID, settled)
    // Complete at once, from the stream.
    expect(h.thread.getState().messages.at(-1)).toMatchObject({ id: 'r300', status: 'complete' })
    // Then the daemon's times, read from the reply on.
    await vi.waitFor(() => expect(h.thread.getState().messages.at(-1)?.parts?.[0]).toMatchObject({ started_at: 1_000, ended_at: 11_300 }))
    expect(h.requests().slice(reads)).toEqual([{ after: 299, limit: 1000 }])

    // A reply without tools: what the stream said is all history has; nothing is read.
    history.current = [...history.current, operator(301), reply(302, 301, { status: 'streaming', content: '' })]
    await refreshSession(h.queryClient, SID, undefined, { kind: 'ended' })
    const before = h.requests().length
    history.current = [...history.current.slice(0, 301), reply(302, 301)]
    await refreshSession(h.queryClient, SID, { runId: 'run_302', messageId: 'r302', content: 'answer 302', parts: [] })
    expect(h.thread.getState().messages.at(-1)).toMatchObject({ id: 'r302', status: 'complete', content: 'answer 302' })
    await Promise.resolve()
    expect(h.requests()).toHaveLength(before)
  })

  it("catches up when another tab says the session changed: the newest page held again and what is new", async () => {
    const history = { current: conversation(150) }
    const h = harness(history)
    await h.ready()
    history.current = [...history.current, operator(301), reply(302, 301)]
    h.hub.channel().post({ kind: 'history', sessionId: SID })
    await vi.waitFor(() => expect(h.thread.getState().messages.at(-1)?.id).toBe('r302'))
    expect(h.requests().at(-1)).toEqual({ after: 200, limit: 1000 })
    expect(rowSeqs(h.thread).filter((s) => s === 'gap')).toHaveLength(1)
  })

  it('reads again from the anchor after a regenerate, so the superseded flags of the messages held are right', async () => {
    const history = { current: conversation(150) }
    const h = harness(history)
    await h.ready()
    // Regenerate from m251: every later message is superseded (no new seq), a new reply at the end.
    h.regenerate.mockImplementation(async () => {
      history.current = [...history.current.map((m) => ((m.seq as number) > 251 ? { ...m, superseded: true } : m)), reply(301, 251, { status: 'streaming' })]
      return { run_id: 'run_301', superseded: [], queued: false }
    })
    h.thread.regenerate('m251')
    h.thread.confirmRegenerate()
    await vi.waitFor(() => expect(h.thread.getState().messages.at(-1)?.id).toBe('r301'))
    // From the anchor, or the newest page held when that starts before it.
    expect(h.requests().at(-1)).toEqual({ after: 200, limit: 1000 })
    const held = h.thread.getState().messages
    expect(held.filter((m) => (m.seq as number) > 251 && m.seq !== 301).every((m) => m.superseded)).toBe(true)
    const last = h.thread.getState().rows.at(-1)
    if (last?.kind !== 'agent') throw new Error('expected the new reply last')
    expect(last.earlier.map((m) => m.id)).toEqual(['r252'])
  })

  it('asks before a regenerate that replaces messages not held', async () => {
    const h = harness({ current: conversation(150) })
    await h.ready()
    await h.thread.reveal(3)
    h.thread.regenerate('m3')
    expect(h.thread.getState().confirming).toMatchObject({ anchorId: 'm3' })
    expect(h.thread.getState().confirming!.count).toBeGreaterThan(200)
  })

  it('lets go of pages far from the view, keeps the newest, and reads a page again when the view comes back', async () => {
    const h = harness({ current: conversation(1000) })
    await h.ready()
    for (let i = 0; i < 5; i++) await h.thread.loadEarlier()
    expect(h.thread.getState().rows.filter((row) => row.kind !== 'gap')).toHaveLength(600)
    // The view is at the top of what is held (seqs 1401…1410): the newest page stays, and what
    // lies near the view; the rest goes.
    h.thread.viewing(1401, 1410)
    const kept = rowSeqs(h.thread).filter((s): s is number => typeof s === 'number')
    expect(kept[0]).toBe(1401)
    // A page's worth either side of the view.
    expect(kept).toContain(1410 + PAGE_SIZE)
    expect(kept).not.toContain(1410 + PAGE_SIZE + 1)
    expect(kept.slice(-PAGE_SIZE)).toEqual(range(1901, 2000))
    const gap = h.thread.getState().rows.find((row) => row.kind === 'gap' && !row.gap.start)
    if (gap?.kind !== 'gap') throw new Error('expected a gap between the view and the end')
    await h.thread.loadGap(gap.key, 1)
    expect(h.requests().at(-1)).toEqual({ limit: PAGE_SIZE, before: 1901 })
  })

  it('finds a word held nowhere near with the daemon search, and reads the page around the hit', async () => {
    const history = { current: conversation(1000) }
    history.current[2] = { ...history.current[2]!, content: 'the Originquokka question' }
    const h = harness(history)
    await h.ready()
    const { hits } = await h.thread.search('Originquokka', 20)
    expect(hits).toEqual([{ message_id: 'm3', seq: 3, snippet: 'the Originquokka question' }])
    expect(h.thread.holds(3)).toBe(false)
    await h.thread.reveal(3)
    expect(h.requests().at(-1)).toEqual(aroundRequest(3))
    expect(h.thread.holds(3)).toBe(true)
    expect(rowSeqs(h.thread).slice(0, 4)).toEqual([1, 2, 3, 4])
    // Between the hit's page and the end, a gap; the view's way there keeps the hit's page.
    expect(rowSeqs(h.thread)).toContain('gap')
    h.thread.viewing(1990, 2000)
    expect(h.thread.holds(3)).toBe(true)
    h.thread.viewing(1, 8)
    h.thread.viewing(1990, 2000)
    expect(h.thread.holds(3)).toBe(false)
  })
})
