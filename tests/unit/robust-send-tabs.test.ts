/**
 * Drafts and unsent messages shared by two tabs, against the mock daemon in node: two runtimes
 * over one storage backend (localStorage), one tab hub (BroadcastChannel) and one lock manager
 * (Web Locks). Closing a tab loses nothing, and a second tab never sends an entry the first has
 * on the wire.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createTestDaemon } from '../../mocks/node'
import { createChatRuntime, type ChatRuntime } from '../../src/thread/runtime'
import { newEntry, resumeSends, sendEntry, takeBack } from '../../src/send/deliver'
import { createLocalLocks } from '../../src/storage/locks'
import { createTabHub } from '../../src/storage/tab-channel'
import { createDaemonClient } from '../../src/wire/http'
import { memoryBackend } from './memory-backend'

const ORIGIN = 'http://daemon.test'
const { daemon, server } = createTestDaemon()
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => daemon.reset())
afterAll(() => {
  daemon.dispose()
  server.close()
})

/** A browser with two tabs on one origin. */
function browser() {
  const backend = memoryBackend()
  const hub = createTabHub()
  const locks = createLocalLocks()
  const open = (gate?: Promise<unknown>): ChatRuntime => {
    const client = createDaemonClient({ baseUrl: ORIGIN })
    const gated = gate ? { ...client, sendMessage: async (...args: Parameters<typeof client.sendMessage>) => (await gate, client.sendMessage(...args)) } : client
    return createChatRuntime(gated, backend, { tabs: hub.channel(), locks, wake: () => () => {} })
  }
  return { open }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))
const posts = () => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages')).length

describe('two tabs, one outbox', () => {
  it('a draft typed in one tab is the draft in the other, and tells its composer', async () => {
    const { open } = browser()
    const a = open()
    const b = open()
    let told = 0
    b.drafts.subscribe(() => void told++)
    a.drafts.write('ses_x', 'half a thought')
    await tick()
    expect(b.drafts.read('ses_x')).toBe('half a thought')
    expect(told).toBeGreaterThan(0)
  })

  it('an entry on the wire in one tab is not sent again by the other (resume, Send again), and lands once', async () => {
    const { open } = browser()
    let release!: () => void
    const a = open(new Promise<void>((resolve) => (release = resolve)))
    const b = open()
    const session = await a.client.createSession()
    const entry = newEntry(a, session.id, 'only once')
    const sending = sendEntry(a, entry)
    await tick()
    // The other tab opens the session mid-send: the entry is "sending" in the shared outbox.
    expect(b.outbox.entries().map((e) => e.clientMessageId)).toContain(entry.clientMessageId)
    const resumed = await Promise.all(resumeSends(b, session.id))
    expect(resumed).toEqual([undefined])
    expect(takeBack(b, entry.clientMessageId)).toBeUndefined()
    release()
    expect(await sending).toMatchObject({ kind: 'accepted' })
    await tick()
    expect(b.outbox.entries()).toEqual([])
    expect(posts()).toBe(1)
    expect(daemon.state().messages.filter((m) => m.role === 'operator')).toHaveLength(1)
  })

  it('a "not sent" entry shows in both tabs; Send again in both at once sends it once', async () => {
    const { open } = browser()
    const a = open()
    const b = open()
    const session = await a.client.createSession()
    daemon.plan(['send_error'])
    const entry = newEntry(a, session.id, 'try me')
    await sendEntry(a, entry)
    await tick()
    expect(b.outbox.get(entry.clientMessageId)?.state).toBe('not_sent')
    const before = posts()
    const [fromA, fromB] = await Promise.all([
      sendEntry(a, a.outbox.get(entry.clientMessageId)!, {}, { expect: 'not_sent' }),
      sendEntry(b, b.outbox.get(entry.clientMessageId)!, {}, { expect: 'not_sent' }),
    ])
    expect([fromA, fromB].filter(Boolean)).toEqual([{ kind: 'accepted', messageId: expect.any(String), run: { id: expect.any(String), queued: false } }])
    expect(posts() - before).toBe(1)
    await tick()
    expect(a.outbox.entries()).toEqual([])
    expect(b.outbox.entries()).toEqual([])
  })

  it('Send again of an entry the other tab already sent sends nothing', async () => {
    const { open } = browser()
    const a = open()
    const b = open()
    const session = await a.client.createSession()
    daemon.plan(['send_error'])
    const entry = newEntry(a, session.id, 'parked')
    await sendEntry(a, entry)
    await tick()
    const stale = b.outbox.get(entry.clientMessageId)!
    expect(await sendEntry(a, a.outbox.get(entry.clientMessageId)!, {}, { expect: 'not_sent' })).toMatchObject({ kind: 'accepted' })
    const before = posts()
    expect(await sendEntry(b, stale, {}, { expect: 'not_sent' })).toBeUndefined()
    expect(posts()).toBe(before)
  })

  it('closing the tab that typed loses nothing: a new tab finds the draft and the unsent entry', async () => {
    const { open } = browser()
    const a = open()
    const session = await a.client.createSession()
    daemon.plan(['send_error'])
    a.drafts.write(session.id, 'still typing')
    await sendEntry(a, newEntry(a, session.id, 'parked'))
    // Tab a is gone; tab c opens later on the same origin.
    const c = open()
    expect(c.drafts.read(session.id)).toBe('still typing')
    expect(c.outbox.entries().map((e) => [e.content, e.state])).toEqual([['parked', 'not_sent']])
  })

  it('a send resumed by a second tab after the first closed mid-send lands once', async () => {
    const { open } = browser()
    const a = open()
    const session = await a.client.createSession()
    daemon.plan(['accept_then_drop'])
    const entry = newEntry(a, session.id, 'lost answer')
    // The first tab filed it and closed before it heard back (its lock went with it).
    a.outbox.put(entry)
    await a.client.sendMessage(session.id, { content: entry.content, client_message_id: entry.clientMessageId }).catch(() => undefined)
    const b = open()
    const [outcome] = await Promise.all(resumeSends(b, session.id))
    expect(outcome).toMatchObject({ kind: 'accepted' })
    expect(daemon.state().messages.filter((m) => m.role === 'operator')).toHaveLength(1)
  })
})
