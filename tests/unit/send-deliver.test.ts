/**
 * The send logic case by case, over a scripted client: what `deliver()` concludes from each
 * answer the daemon (or the network) can give, how `sendEntry()` files it in the outbox, and the
 * outbox's own persistence. The random sequences against the real mock daemon are in
 * send-invariants.test.ts.
 */
import { describe, expect, it, vi } from 'vitest'
import { createOutbox as outboxOver, type OutboxEntry } from '../../src/send/outbox'
import { createKeyedStore, type StorageBackend } from '../../src/storage/keyed-store'
import { createChatRuntime, type ChatRuntime } from '../../src/thread/runtime'
import { deliver, newEntry, resumeSends, sendEntry, takeBack } from '../../src/send/deliver'
import { MalformedPayloadError, RefusalError, TransportError } from '../../src/wire/errors'
import { createDaemonClient } from '../../src/wire/http'
import type { Message, SendBody, SendReceipt } from '../../src/wire/types'

class MemoryStorage {
  items = new Map<string, string>()
  getItem = (key: string) => this.items.get(key) ?? null
  setItem = (key: string, value: string) => void this.items.set(key, value)
  removeItem = (key: string) => void this.items.delete(key)
}

const SID = 'ses_1'
const lost = () => new TransportError('fetch failed')
const refusal = (status: number, code: string) => new RefusalError(status, code, `refused: ${code}`)
const receipt = (messageId = 'msg_1'): SendReceipt => ({ message_id: messageId, run_id: 'run_1', queued: false })
const operatorMessage = (clientMessageId: string, id = 'msg_own'): Message => ({
  id,
  session_id: SID,
  role: 'operator',
  content: 'hello',
  created_at: 0,
  superseded: false,
  client_message_id: clientMessageId,
})

type Answer = SendReceipt | Error
type HistoryAnswer = Message[] | Error

/** A runtime whose client answers sends and history reads from scripts, one answer per call. */
function scripted(sends: Answer[], history: HistoryAnswer[] = []) {
  const storage = new MemoryStorage()
  const client = createDaemonClient({ baseUrl: 'http://daemon.test' })
  const sendMessage = vi.fn(async (_sid: string, _body: SendBody): Promise<SendReceipt> => {
    const answer = sends.shift()
    if (!answer) throw new Error('unexpected send')
    if (answer instanceof Error) throw answer
    return answer
  })
  // A send's message is looked for by its client_message_id: each script answer is the history the
  // lookup is answered from.
  const listMessages = vi.fn(async (_sid: string, clientMessageId: string): Promise<Message[]> => {
    const answer = history.shift()
    if (!answer) throw new Error('unexpected history read')
    if (answer instanceof Error) throw answer
    return answer.filter((m) => m.client_message_id === clientMessageId || (m.role === 'agent' && answer.some((o) => o.id === m.reply_to && o.client_message_id === clientMessageId)))
  })
  const runtime: ChatRuntime = createChatRuntime({ ...client, sendMessage, findByClientMessageId: listMessages }, storage as unknown as Storage)
  let n = 0
  runtime.newId = () => `cid-${++n}`
  return { runtime, storage, sendMessage, listMessages }
}

const entryFor = (runtime: ChatRuntime, content = 'hello') => newEntry(runtime, SID, content)

describe('deliver()', () => {
  it('is accepted on the first answer, with one POST', async () => {
    const { runtime, sendMessage, listMessages } = scripted([receipt('msg_9')])
    const entry = entryFor(runtime)
    await expect(deliver(runtime, entry)).resolves.toEqual({ kind: 'accepted', messageId: 'msg_9', run: { id: 'run_1', queued: false } })
    expect(sendMessage).toHaveBeenCalledTimes(1)
    expect(sendMessage).toHaveBeenCalledWith(SID, { content: 'hello', client_message_id: 'cid-1' })
    expect(listMessages).not.toHaveBeenCalled()
  })

  it('retries a transport error once, with the same body and id', async () => {
    const { runtime, sendMessage } = scripted([lost(), receipt()])
    await expect(deliver(runtime, entryFor(runtime))).resolves.toEqual({ kind: 'accepted', messageId: 'msg_1', run: { id: 'run_1', queued: false } })
    expect(sendMessage.mock.calls).toEqual([
      [SID, { content: 'hello', client_message_id: 'cid-1' }],
      [SID, { content: 'hello', client_message_id: 'cid-1' }],
    ])
  })

  it('on 409 finds its own message by client_message_id, not another operator message or an agent message', async () => {
    const others: Message[] = [
      operatorMessage('someone-else', 'msg_other'),
      { ...operatorMessage('cid-1', 'msg_agent'), role: 'agent' },
      operatorMessage('cid-1', 'msg_mine'),
    ]
    const { runtime } = scripted([lost(), refusal(409, 'message_duplicate')], [others])
    await expect(deliver(runtime, entryFor(runtime))).resolves.toEqual({ kind: 'accepted', messageId: 'msg_mine' })
  })

  it.each([
    { what: 'not in history', history: [[operatorMessage('someone-else')]] },
    { what: 'history unreadable', history: [lost()] },
  ])('on 409 with its message $what: not sent', async ({ history }) => {
    const { runtime } = scripted([refusal(409, 'message_duplicate')], history)
    await expect(deliver(runtime, entryFor(runtime))).resolves.toEqual({ kind: 'not_sent' })
  })

  it.each([
    { what: 'found in history', history: [[operatorMessage('cid-1')]], expected: { kind: 'accepted', messageId: 'msg_own' } },
    { what: 'not in history', history: [[]], expected: { kind: 'not_sent' } },
    { what: 'history unreadable', history: [lost()], expected: { kind: 'not_sent' } },
  ])('after two transport errors, $what', async ({ history, expected }) => {
    const { runtime, sendMessage } = scripted([lost(), lost()], history)
    await expect(deliver(runtime, entryFor(runtime))).resolves.toEqual(expected)
    expect(sendMessage).toHaveBeenCalledTimes(2)
  })

  it('takes a first refusal at its word: no retry, no history read', async () => {
    const { runtime, sendMessage, listMessages } = scripted([refusal(422, 'content_too_long')])
    const outcome = await deliver(runtime, entryFor(runtime))
    expect(outcome).toMatchObject({ kind: 'refused', error: { status: 422, code: 'content_too_long' } })
    expect(sendMessage).toHaveBeenCalledTimes(1)
    expect(listMessages).not.toHaveBeenCalled()
  })

  it.each([
    { what: 'found in history', history: [[operatorMessage('cid-1')]], kind: 'accepted' },
    { what: 'not in history', history: [[]], kind: 'refused' },
    { what: 'history unreadable', history: [lost()], kind: 'not_sent' },
  ])('checks a refusal that follows a lost answer against history: $what → $kind', async ({ history, kind }) => {
    const { runtime, listMessages } = scripted([lost(), refusal(503, 'daemon_unavailable')], history)
    await expect(deliver(runtime, entryFor(runtime))).resolves.toMatchObject({ kind })
    expect(listMessages).toHaveBeenCalledTimes(1)
  })

  it('checks a first refusal against history when an earlier delivery may have landed', async () => {
    const { runtime } = scripted([refusal(500, 'internal_error')], [[operatorMessage('cid-1')]])
    await expect(deliver(runtime, entryFor(runtime), { triedBefore: true })).resolves.toEqual({ kind: 'accepted', messageId: 'msg_own' })
  })

  it('reads history before deciding on a 2xx receipt it cannot read: found, it is accepted', async () => {
    const { runtime, sendMessage } = scripted([new MalformedPayloadError('POST /sessions/:sid/messages', 'bad')], [[operatorMessage('cid-1')]])
    await expect(deliver(runtime, entryFor(runtime))).resolves.toEqual({ kind: 'accepted', messageId: 'msg_own' })
    expect(sendMessage).toHaveBeenCalledTimes(1)
  })

  it('reads history before deciding on a 2xx receipt it cannot read: absent (or unreadable), it is not sent', async () => {
    const absent = scripted([new MalformedPayloadError('POST /sessions/:sid/messages', 'bad')], [[]])
    await expect(deliver(absent.runtime, entryFor(absent.runtime))).resolves.toEqual({ kind: 'not_sent' })
    const unreadable = scripted([new MalformedPayloadError('POST /sessions/:sid/messages', 'bad')], [lost()])
    await expect(deliver(unreadable.runtime, entryFor(unreadable.runtime))).resolves.toEqual({ kind: 'not_sent' })
  })

  it('lets an unexpected error through to the caller', async () => {
    const { runtime } = scripted([new Error('a bug')])
    await expect(deliver(runtime, entryFor(runtime))).rejects.toThrow('a bug')
  })
})

describe('sendEntry()', () => {
  it('sends an id once however often it is submitted while on the wire', async () => {
    const { runtime, sendMessage } = scripted([receipt()])
    const entry = entryFor(runtime)
    const [first, second] = await Promise.all([sendEntry(runtime, entry), sendEntry(runtime, entry)])
    expect(first).toEqual({ kind: 'accepted', messageId: 'msg_1', run: { id: 'run_1', queued: false } })
    expect(second).toBeUndefined()
    expect(sendMessage).toHaveBeenCalledTimes(1)
  })

  it('keeps the entry "sending" while on the wire, calls onAccepted with it still there, then drops it', async () => {
    const { runtime } = scripted([receipt('msg_5')])
    const entry = entryFor(runtime)
    const seen: (OutboxEntry | undefined)[] = []
    const sending = sendEntry(runtime, entry, { onAccepted: () => void seen.push(runtime.outbox.get(entry.clientMessageId)) })
    expect(runtime.outbox.get(entry.clientMessageId)?.state).toBe('sending')
    await sending
    expect(seen).toEqual([{ ...entry, state: 'sending', acceptedMessageId: 'msg_5' }])
    expect(runtime.outbox.entries()).toEqual([])
  })

  it('still reports accepted when the history read after it fails', async () => {
    const { runtime } = scripted([receipt()])
    const outcome = await sendEntry(runtime, entryFor(runtime), { onAccepted: () => Promise.reject(lost()) })
    expect(outcome).toEqual({ kind: 'accepted', messageId: 'msg_1', run: { id: 'run_1', queued: false } })
    expect(runtime.outbox.entries()).toEqual([])
  })

  it('drops a refused entry whose text the box still holds', async () => {
    const { runtime } = scripted([refusal(422, 'content_empty')])
    runtime.drafts.write(SID, 'hello')
    const outcome = await sendEntry(runtime, entryFor(runtime, 'hello'))
    expect(outcome?.kind).toBe('refused')
    expect(runtime.outbox.entries()).toEqual([])
    expect(runtime.drafts.read(SID)).toBe('hello')
  })

  it('parks a refused entry as "not sent" when its text is nowhere else', async () => {
    const { runtime } = scripted([refusal(500, 'internal_error')])
    const entry = entryFor(runtime, 'only copy')
    await sendEntry(runtime, entry)
    expect(runtime.outbox.entries()).toEqual([{ ...entry, state: 'not_sent' }])
  })

  it('parks an entry as "not sent" on an unexpected error', async () => {
    const { runtime } = scripted([new Error('a bug')])
    const entry = entryFor(runtime)
    await expect(sendEntry(runtime, entry)).resolves.toEqual({ kind: 'not_sent' })
    expect(runtime.outbox.get(entry.clientMessageId)?.state).toBe('not_sent')
  })

  it('asks history before believing a refusal of Send again', async () => {
    const { runtime, listMessages } = scripted([lost(), lost(), refusal(503, 'daemon_unavailable')], [[], [operatorMessage('cid-1')]])
    const entry = entryFor(runtime)
    await expect(sendEntry(runtime, entry)).resolves.toEqual({ kind: 'not_sent' })
    await expect(sendEntry(runtime, runtime.outbox.get(entry.clientMessageId)!)).resolves.toEqual({ kind: 'accepted', messageId: 'msg_own' })
    expect(listMessages).toHaveBeenCalledTimes(2)
    expect(runtime.outbox.entries()).toEqual([])
  })
})

describe('takeBack() and resumeSends()', () => {
  it('hands back a "not sent" text only when it is not on the wire', async () => {
    const { runtime } = scripted([lost(), lost(), lost(), lost()], [[], []])
    const entry = entryFor(runtime, 'edit me')
    await sendEntry(runtime, entry)
    const again = sendEntry(runtime, runtime.outbox.get(entry.clientMessageId)!)
    expect(takeBack(runtime, entry.clientMessageId)).toBeUndefined()
    await again
    expect(takeBack(runtime, entry.clientMessageId)).toBe('edit me')
    expect(runtime.outbox.entries()).toEqual([])
    expect(takeBack(runtime, entry.clientMessageId)).toBeUndefined()
  })

  it('resumes the "sending" entries of one session after a reload, with their ids, and empties a box holding the same text', async () => {
    const first = scripted([])
    const a = { ...entryFor(first.runtime, 'mid-send'), state: 'sending' as const }
    const b = { ...entryFor(first.runtime, 'parked'), state: 'not_sent' as const }
    const c = { ...entryFor(first.runtime, 'other session'), sessionId: 'ses_2', state: 'sending' as const }
    for (const e of [a, b, c]) first.runtime.outbox.put(e)
    first.runtime.drafts.write(SID, 'mid-send')

    const reloaded = scripted([refusal(409, 'message_duplicate')], [[operatorMessage(a.clientMessageId)]])
    reloaded.storage.items = first.storage.items
    const runtime = createChatRuntime(reloaded.runtime.client, reloaded.storage as unknown as Storage)
    const outcomes = await Promise.all(resumeSends(runtime, SID))
    expect(outcomes).toEqual([{ kind: 'accepted', messageId: 'msg_own' }])
    expect(reloaded.sendMessage).toHaveBeenCalledWith(SID, { content: 'mid-send', client_message_id: a.clientMessageId })
    expect(runtime.drafts.read(SID)).toBe('')
    expect(runtime.outbox.entries().map((e) => e.content)).toEqual(['parked', 'other session'])
  })

  it('leaves a box holding other text alone', async () => {
    const { runtime } = scripted([receipt()])
    runtime.outbox.put({ ...entryFor(runtime, 'on the wire'), state: 'sending' })
    runtime.drafts.write(SID, 'something new')
    await Promise.all(resumeSends(runtime, SID))
    expect(runtime.drafts.read(SID)).toBe('something new')
  })
})

/** The outbox over a keyed store on `backend`, as the runtime builds it. */
const createOutbox = (backend: StorageBackend) => outboxOver(createKeyedStore(backend))

describe('the outbox', () => {
  const entry = (id: string, state: OutboxEntry['state'] = 'sending'): OutboxEntry => ({ clientMessageId: id, sessionId: SID, content: `text ${id}`, state, createdAt: 1 })

  it('keeps its entries in storage, for the next page', () => {
    const storage = new MemoryStorage()
    const outbox = createOutbox(storage)
    outbox.put(entry('a'))
    outbox.put(entry('b'))
    outbox.update('a', { state: 'not_sent' })
    outbox.remove('b')
    expect(createOutbox(storage).entries()).toEqual([entry('a', 'not_sent')])
  })

  it('ignores what it cannot read, and keeps the entries it can', () => {
    const storage = new MemoryStorage()
    storage.setItem('rebound.outbox.v1', '{not json')
    expect(createOutbox(storage).entries()).toEqual([])
    storage.setItem('rebound.outbox.v1', JSON.stringify([entry('ok'), { clientMessageId: 'x' }, { ...entry('bad'), state: 'lost' }]))
    expect(createOutbox(storage).entries()).toEqual([entry('ok')])
  })

  it('works in memory when storage refuses writes, and tells its subscribers', () => {
    const outbox = createOutbox({
      getItem: () => null,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError')
      },
      removeItem: () => undefined,
    })
    const listener = vi.fn()
    outbox.subscribe(listener)
    outbox.put(entry('a'))
    expect(outbox.get('a')).toEqual(entry('a'))
    expect(listener).toHaveBeenCalledTimes(1)
  })
})
