/**
 * Attention beyond one tab, in node: two (or three) attention cores over one shared storage
 * backend, one tab hub (the BroadcastChannel stand-in) and one lock manager (the Web Locks
 * stand-in), each with a fake page (visible? focused?) and a fake notifications port. Each event
 * counts once in every tab's title, is cleared when the operator looks at its session, and is
 * notified once across the tabs, never for the session on screen; a tab back from sleep catches up.
 */
import { QueryClient } from '@tanstack/query-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod/mini'
import { takeApprovalFocus } from '../../src/attention/approval-focus'
import { createAttention, type Attention } from '../../src/attention/attention'
import { LEDGER_NAMESPACE, marksKey, mergeLedgers, sessionMarks, type LedgerEntry } from '../../src/attention/ledger'
import type { NotificationPort, Permission } from '../../src/attention/notify'
import type { PageSource } from '../../src/attention/page'
import { createKeyedStore } from '../../src/storage/keyed-store'
import { createLocalLocks, type LockManagerLike } from '../../src/storage/locks'
import { createTabHub, type TabHub } from '../../src/storage/tab-channel'
import { createChatRuntime } from '../../src/thread/runtime'
import type { ThreadSnapshot } from '../../src/thread/thread'
import { createDaemonClient } from '../../src/wire/http'
import type { Message, Part, Session } from '../../src/wire/types'
import { memoryBackend } from './memory-backend'

const S1 = 'ses_1'
const S2 = 'ses_2'

const operator = (sessionId: string, id: string): Message => ({ id, session_id: sessionId, role: 'operator', content: id, created_at: Date.now(), superseded: false })
function reply(sessionId: string, id: string, status: Message['status'], extra: Partial<Message> = {}): Message {
  return { id, session_id: sessionId, role: 'agent', content: '', created_at: Date.now(), superseded: false, reply_to: `op_${id}`, run_id: `run_${id}`, status, ...extra }
}
const session = (id: string, status: Session['status'], updatedAt = Date.now(), title = `Title of ${id}`): Session => ({ id, title, status, created_at: 0, updated_at: updatedAt })
const waiting: Part = { type: 'tool', tool_call_id: 'tc_1', name: 'write_file', effect: 'write', input: '{}', status: 'awaiting_approval', started_at: 0 }

type Shown = { tab: string; title: string; body: string; tag: string; click: () => void }

type World = {
  backend: ReturnType<typeof memoryBackend>
  hub: TabHub
  locks: LockManagerLike
  shown: Shown[]
  sessions: Session[]
  pages: Map<string, Message[]>
  wakes: Set<() => void>
  permission: Permission
  asked: number
  ledgerWrites: () => number
}

const LEDGER_KEY = `rebound.${LEDGER_NAMESPACE}.v1`
/** Ledger writes past this mean the tabs write back and forth: the hub stops, so the test fails instead of spinning. */
const RUNAWAY_WRITES = 200

function world(): World {
  const hub = createTabHub()
  const backend = memoryBackend()
  const setItem = backend.setItem
  let writes = 0
  backend.setItem = (key, value) => {
    if (key === LEDGER_KEY && ++writes === RUNAWAY_WRITES) hub.hold()
    setItem(key, value)
  }
  return { backend, hub, locks: createLocalLocks(), shown: [], sessions: [], pages: new Map(), wakes: new Set(), permission: 'granted', asked: 0, ledgerWrites: () => writes }
}

/** A page the test shows, hides, focuses and blurs. */
function fakePage() {
  const listeners = new Set<() => void>()
  const state = { visible: false, focused: false, focusCalls: 0 }
  const page: PageSource = {
    visible: () => state.visible,
    focused: () => state.focused,
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    focus: () => void (state.focusCalls += 1),
  }
  const set = (next: { visible: boolean; focused: boolean }) => {
    Object.assign(state, next)
    for (const listener of [...listeners]) listener()
  }
  return { page, state, look: () => set({ visible: true, focused: true }), hide: () => set({ visible: false, focused: false }) }
}

/** A thread whose snapshot the test sets. */
function fakeThread(sessionId: string, messages: Message[]) {
  const listeners = new Set<() => void>()
  let state: Pick<ThreadSnapshot, 'phase' | 'messages' | 'activeRuns'> = { phase: 'ready', messages, activeRuns: [] }
  return {
    sessionId,
    getState: () => state,
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    set(next: Message[]) {
      state = { ...state, messages: next }
      for (const listener of [...listeners]) listener()
    },
  }
}

const stops: Array<() => void> = []
afterEach(() => {
  for (const stop of stops.splice(0).reverse()) stop()
  vi.useRealTimers()
})

/** One tab of `w`: a runtime over the shared backend, hub and locks, and its attention core, started. */
function tab(w: World, name: string) {
  const base = createDaemonClient({ baseUrl: 'http://daemon.test' })
  const client = {
    ...base,
    listSessions: async () => w.sessions.map((s) => ({ ...s })),
    listMessagesPage: async (sessionId: string) => ({ messages: w.pages.get(sessionId) ?? [], has_more: false, skipped: 0 }),
  }
  const runtime = createChatRuntime(client, w.backend, { tabs: w.hub.channel(), locks: w.locks, wake: () => () => {} })
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const { page, state, look, hide } = fakePage()
  const opened: string[] = []
  const port: NotificationPort = {
    supported: true,
    permission: () => w.permission,
    request: async () => {
      w.asked += 1
      // The operator answers the browser's question after it was asked.
      await Promise.resolve()
      return w.permission
    },
    show: (title, { body, tag }, click) => void w.shown.push({ tab: name, title, body, tag, click }),
  }
  const attention: Attention = createAttention({
    runtime,
    queryClient,
    port,
    page,
    words: (entry, title) => ({ title: title || 'Untitled', body: entry.kind }),
    wake: (check) => {
      w.wakes.add(check)
      return () => void w.wakes.delete(check)
    },
    pollMs: 3_600_000,
  })
  let stop = attention.start()
  stops.push(() => stop())
  stops.push(attention.onOpen((sessionId) => opened.push(sessionId)))
  return {
    attention,
    runtime,
    page: state,
    opened,
    /** The operator looks at this tab, showing `sessionId`. */
    look(sessionId: string) {
      attention.show(sessionId)
      look()
    },
    hide,
    watch(thread: ReturnType<typeof fakeThread>) {
      attention.show(thread.sessionId)
      stops.push(attention.watch(thread))
    },
    /** The tab closes: its lock and its listeners go. */
    close() {
      stop()
      stop = () => {}
    },
  }
}

/** Lets timers of 0 ms, microtasks and the hub's deliveries run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5))
const ledgerOf = (w: World): LedgerEntry[] => JSON.parse(w.backend.items.get(LEDGER_KEY) ?? '[]') as LedgerEntry[]

describe('one event across tabs', () => {
  it('counts a reply that finished once in every tab, and notifies it once, titled with the session', async () => {
    const w = world()
    w.sessions = [session(S1, 'running')]
    const a = tab(w, 'a')
    const b = tab(w, 'b')
    await a.attention.setNotifications(true)
    const streaming = [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')]
    const ta = fakeThread(S1, streaming)
    const tb = fakeThread(S1, streaming)
    a.watch(ta)
    b.watch(tb)
    await settle()
    expect(a.attention.count()).toBe(0)

    const done = [operator(S1, 'op_r1'), reply(S1, 'r1', 'complete')]
    ta.set(done)
    tb.set(done)
    await vi.waitFor(() => expect(w.shown).toHaveLength(1))
    await settle()
    expect(w.shown).toEqual([expect.objectContaining({ title: `Title of ${S1}`, body: 'finished', tag: 'finished:run_r1' })])
    expect(ledgerOf(w).map((e) => e.id)).toEqual(['finished:run_r1'])
    expect([a.attention.count(), b.attention.count()]).toEqual([1, 1])
    // Read again and again, it is the same event.
    ta.set([...done])
    await settle()
    expect(w.shown).toHaveLength(1)
    expect(a.attention.count()).toBe(1)
  })

  it('is seen in every tab once the operator looks at its session, and not before', async () => {
    const w = world()
    const a = tab(w, 'a')
    const b = tab(w, 'b')
    const ta = fakeThread(S1, [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')])
    a.watch(ta)
    await settle()
    ta.set([operator(S1, 'op_r1'), reply(S1, 'r1', 'complete')])
    await vi.waitFor(() => expect(b.attention.count()).toBe(1))
    // Visible but on another session, or on it but another window focused: not seen.
    b.attention.show(S2)
    b.look(S2)
    await settle()
    expect(a.attention.count()).toBe(1)
    b.hide()
    b.attention.show(S1)
    await settle()
    expect(a.attention.count()).toBe(1)
    b.look(S1)
    await vi.waitFor(() => expect(a.attention.count()).toBe(0))
    expect(b.attention.count()).toBe(0)
    expect(ledgerOf(w)).toEqual([expect.objectContaining({ id: 'finished:run_r1', seen: true })])
    // Counted, decided on and seen, each written once or so: the tabs agree, they do not write back and forth.
    await settle()
    expect(w.ledgerWrites()).toBeLessThan(10)
  })

  it('is not notified for the session the operator is looking at, in whichever tab saw it', async () => {
    const w = world()
    const a = tab(w, 'a')
    const b = tab(w, 'b')
    await b.attention.setNotifications(true)
    a.look(S1)
    const history = [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')]
    const seenByA = fakeThread(S1, history)
    const seenByB = fakeThread(S1, history)
    const other = fakeThread(S2, [operator(S2, 'op_r2'), reply(S2, 'r2', 'streaming')])
    a.watch(seenByA)
    a.attention.show(S1)
    b.watch(seenByB)
    b.watch(other)
    await settle()
    // Only the hidden tab sees it first: the tab on screen says what it looks at.
    seenByB.set([operator(S1, 'op_r1'), reply(S1, 'r1', 'complete')])
    await settle()
    expect(w.shown).toEqual([])
    expect(a.attention.count()).toBe(0)
    other.set([operator(S2, 'op_r2'), reply(S2, 'r2', 'failed', { error: { code: 'context_overflow', message: 'Too long.' } })])
    await vi.waitFor(() => expect(w.shown.map((s) => s.tag)).toEqual(['failed:run_r2']))
    expect(a.attention.count()).toBe(1)
  })

  it('keeps the tab that notifies from notifying twice, and the one that takes over from notifying again', async () => {
    const w = world()
    const a = tab(w, 'a')
    const b = tab(w, 'b')
    await a.attention.setNotifications(true)
    const ta = fakeThread(S1, [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')])
    const tb = fakeThread(S1, [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')])
    a.watch(ta)
    b.watch(tb)
    await settle()
    tb.set([operator(S1, 'op_r1'), reply(S1, 'r1', 'complete')])
    await vi.waitFor(() => expect(w.shown.map((s) => s.tab)).toEqual(['a']))
    a.close()
    await settle()
    // The ledger says it was shown: the next tab to notify leaves it.
    expect(w.shown).toHaveLength(1)
    tb.set([operator(S1, 'op_r1'), reply(S1, 'r1', 'complete'), operator(S1, 'op_r3'), reply(S1, 'r3', 'complete')])
    await vi.waitFor(() => expect(w.shown.map((s) => `${s.tab} ${s.tag}`)).toEqual(['a finished:run_r1', 'b finished:run_r3']))
  })

  it('notifies nothing while switched off, and switching on does not bring back what passed', async () => {
    const w = world()
    const a = tab(w, 'a')
    const t = fakeThread(S1, [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')])
    a.watch(t)
    await settle()
    t.set([operator(S1, 'op_r1'), reply(S1, 'r1', 'complete')])
    await vi.waitFor(() => expect(ledgerOf(w)).toEqual([expect.objectContaining({ notified: 'skipped' })]))
    await a.attention.setNotifications(true)
    await settle()
    expect(w.shown).toEqual([])
    expect(a.attention.count()).toBe(1)
  })

  it('opens the session of a clicked notification, and asks for the approval', async () => {
    const w = world()
    const a = tab(w, 'a')
    await a.attention.setNotifications(true)
    const t = fakeThread(S1, [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')])
    a.watch(t)
    await settle()
    t.set([operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming', { parts: [waiting] })])
    await vi.waitFor(() => expect(w.shown.map((s) => s.tag)).toEqual(['approval:run_r1:tc_1']))
    expect(w.shown[0]?.body).toBe('approval')
    w.shown[0]?.click()
    expect(a.page.focusCalls).toBe(1)
    expect(a.opened).toEqual([S1])
    expect(takeApprovalFocus(S1, 'tc_1')).toEqual({ sessionId: S1, runId: 'run_r1', toolCallId: 'tc_1' })
    expect(takeApprovalFocus(S1)).toBeUndefined()
  })
})

describe('the switch', () => {
  it('asks the browser only when switched on, and keeps its state for every tab and the next load', async () => {
    const w = world()
    w.permission = 'default'
    const a = tab(w, 'a')
    expect(w.asked).toBe(0)
    expect(a.attention.notifications()).toEqual({ supported: true, on: false, blocked: false, asking: false })
    const asking = a.attention.setNotifications(true)
    expect(a.attention.notifications().asking).toBe(true)
    w.permission = 'granted'
    await asking
    expect(w.asked).toBe(1)
    expect(a.attention.notifications().on).toBe(true)
    await settle()
    const b = tab(w, 'b')
    expect(b.attention.notifications().on).toBe(true)
    expect(w.asked).toBe(1)
    await b.attention.setNotifications(false)
    await settle()
    expect(a.attention.notifications().on).toBe(false)
  })

  it('says the browser refuses when it does', async () => {
    const w = world()
    w.permission = 'denied'
    const a = tab(w, 'a')
    expect(a.attention.notifications().blocked).toBe(false)
    await a.attention.setNotifications(true)
    // Refused already: the browser is not asked again, and the operator is told why nothing changed.
    expect(w.asked).toBe(0)
    expect(a.attention.notifications()).toEqual({ supported: true, on: false, blocked: true, asking: false })
  })
})

describe('sessions no tab shows', () => {
  it('are watched through the list: a run that ended while the laptop slept is counted and notified on waking', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 6, 1, 12) })
    const w = world()
    w.sessions = [session(S2, 'running'), session(S1, 'idle')]
    w.pages.set(S2, [operator(S2, 'op_r2'), reply(S2, 'r2', 'streaming')])
    const a = tab(w, 'a')
    await a.attention.setNotifications(true)
    await vi.waitFor(() => expect(w.shown).toEqual([]))
    await settle()
    // Asleep: no poll runs. Meanwhile the run ends.
    vi.setSystemTime(Date.now() + 10 * 60_000)
    w.sessions = [session(S2, 'idle'), session(S1, 'idle')]
    w.pages.set(S2, [operator(S2, 'op_r2'), reply(S2, 'r2', 'complete')])
    for (const wake of [...w.wakes]) wake()
    await vi.waitFor(() => expect(w.shown.map((s) => `${s.title} ${s.tag}`)).toEqual([`Title of ${S2} finished:run_r2`]))
    expect(a.attention.count()).toBe(1)
  })

  it('are read for tools awaiting approval while they run', async () => {
    const w = world()
    w.sessions = [session(S2, 'running')]
    w.pages.set(S2, [operator(S2, 'op_r2'), reply(S2, 'r2', 'streaming', { parts: [waiting] })])
    const a = tab(w, 'a')
    await vi.waitFor(() => expect(ledgerOf(w).map((e) => e.id)).toEqual(['approval:run_r2:tc_1']))
    expect(a.attention.count()).toBe(1)
    // The session list marks that session as needing the operator, until they look at it.
    expect([...a.attention.marks()]).toEqual([[S2, 'needsYou']])
    a.attention.show(S2)
    a.look(S2)
    await vi.waitFor(() => expect(a.attention.marks().size).toBe(0))
  })

  it('take their events with them when deleted', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 6, 1, 12) })
    const w = world()
    w.sessions = [session(S2, 'running')]
    w.pages.set(S2, [operator(S2, 'op_r2'), reply(S2, 'r2', 'streaming', { parts: [waiting] })])
    const a = tab(w, 'a')
    await vi.waitFor(() => expect(a.attention.count()).toBe(1))
    vi.setSystemTime(Date.now() + 60_000)
    w.sessions = []
    for (const wake of [...w.wakes]) wake()
    await vi.waitFor(() => expect(a.attention.count()).toBe(0))
  })
})

describe('the ledger', () => {
  const entry = (id: string, at: number, extra: Partial<LedgerEntry> = {}): LedgerEntry => ({ id, kind: 'finished', sessionId: S1, at, runId: id, ...extra })

  it('merges two copies into one, whatever their order: every event once, seen and notified when either says so', () => {
    const a = [entry('e1', 1), entry('e2', 2, { seen: true })]
    const b = [entry('e2', 2, { notified: 'skipped' }), entry('e3', 3), entry('e1', 1, { notified: 'shown' })]
    const merged = mergeLedgers(a, b)
    expect(merged).toEqual([entry('e1', 1, { notified: 'shown' }), entry('e2', 2, { seen: true, notified: 'skipped' }), entry('e3', 3)])
    expect(mergeLedgers(b, a)).toEqual(merged)
    expect(mergeLedgers(merged, a)).toEqual(merged)
  })

  it('marks each session by what its unseen events ask: one waiting on the operator wins over news', () => {
    const S3 = 'ses_three'
    const entries = [
      entry('f1', 1, { sessionId: S1 }),
      entry('a2', 2, { sessionId: S2, kind: 'approval' }),
      entry('f2', 3, { sessionId: S2 }),
      entry('h3', 4, { sessionId: S3, kind: 'held', seen: true }),
      entry('p3', 5, { sessionId: S3, kind: 'paused' }),
      entry('x4', 6, { sessionId: 'ses_four', kind: 'approval', seen: true }),
    ]
    const marks = sessionMarks(entries)
    expect([...marks].sort()).toEqual([
      [S1, 'news'],
      [S2, 'needsYou'],
      [S3, 'news'],
    ])
    // The key says when a mark changed, not when an event did.
    expect(marksKey(sessionMarks([...entries, entry('f5', 7, { sessionId: S1 })]))).toBe(marksKey(marks))
    expect(marksKey(sessionMarks([...entries, entry('h6', 8, { sessionId: S3, kind: 'held' })]))).not.toBe(marksKey(marks))
  })

  it('keeps the newest 200', () => {
    const many = Array.from({ length: 210 }, (_, i) => entry(`e${i}`, i))
    const kept = mergeLedgers([], many)
    expect(kept).toHaveLength(200)
    expect(kept[0]?.id).toBe('e10')
  })

  it('writes back an event another tab wrote over', async () => {
    const w = world()
    const a = tab(w, 'a')
    const t = fakeThread(S1, [operator(S1, 'op_r1'), reply(S1, 'r1', 'streaming')])
    a.watch(t)
    await settle()
    t.set([operator(S1, 'op_r1'), reply(S1, 'r1', 'complete')])
    await vi.waitFor(() => expect(ledgerOf(w)).toHaveLength(1))
    // A tab whose copy of storage was late writes its own event over the ledger.
    const late = createKeyedStore(w.backend, { channel: w.hub.channel() }).slot(LEDGER_NAMESPACE, 'v1', z.array(z.any()))
    late.write([entry('other', Date.now())])
    await vi.waitFor(() => expect(ledgerOf(w).map((e) => e.id).sort()).toEqual(['finished:run_r1', 'other']))
    expect(a.attention.count()).toBe(2)
  })
})
