/**
 * Idempotent send. One `client_message_id` per thing the operator sent, made when they press
 * Enter and reused for every retry of that send; the outbox keeps text and id until the daemon
 * has accepted it. Together with the daemon's atomic send and its 409, this gives one operator
 * message and at most one run per send, whatever the network does.
 */
import { MalformedPayloadError, RefusalError, TransportError } from '../wire/errors'
import type { DaemonClient } from '../wire/http'
import type { Message } from '../wire/types'
import { LOCK_PREFIX, type LockManagerLike } from '../storage/locks'
import type { Drafts } from './drafts'
import type { Outbox, OutboxEntry, OutboxState } from './outbox'

/** What sending needs of the runtime: the daemon, the outbox, the drafts, a clock and an id maker. */
export type SendRuntime = {
  client: Pick<DaemonClient, 'sendMessage' | 'findByClientMessageId'>
  outbox: Outbox
  drafts: Drafts
  clock: { now(): number }
  newId: () => string
  /**
   * Locks shared by the tabs: one per `client_message_id` while it is on the wire, so a second
   * tab (resuming, or Send again) never sends an entry the first is sending. Without it the
   * guard holds within this runtime only.
   */
  locks?: LockManagerLike
}

/** The lock an entry holds while on the wire. */
const sendLockName = (clientMessageId: string) => `${LOCK_PREFIX}send.${clientMessageId}`

export type SendOutcome =
  /**
   * The daemon has the message. `run` is there when its receipt was read (the run it started and
   * whether it waits in a queue); a message found in history after a lost answer has none.
   */
  | { kind: 'accepted'; messageId: string; run?: { id: string; queued: boolean } }
  | { kind: 'refused'; error: RefusalError }
  | { kind: 'not_sent' }

export type DeliverOptions = {
  /**
   * An earlier delivery of this id may have landed: a send resumed after a reload, or Send again.
   * A refusal then does not prove that nothing was created, so history is asked first.
   */
  triedBefore?: boolean
}

/**
 * Delivers one outbox entry: a transport error is retried once with the same id; a 409 means an
 * earlier attempt got through, so the client finds its message by id and carries on with it.
 */
export async function deliver(runtime: SendRuntime, entry: OutboxEntry, { triedBefore = false }: DeliverOptions = {}): Promise<SendOutcome> {
  const { client } = runtime
  const body = { content: entry.content, client_message_id: entry.clientMessageId }
  let lost = triedBefore
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      const receipt = await client.sendMessage(entry.sessionId, body)
      return { kind: 'accepted', messageId: receipt.message_id, run: { id: receipt.run_id, queued: receipt.queued } }
    } catch (error) {
      if (error instanceof RefusalError && error.code === 'message_duplicate') return findOwn(runtime, entry)
      // A 2xx whose receipt cannot be read: the daemon said yes, in words this client cannot
      // parse. Filing it "not sent" would invite Edit + Enter, a second message: history decides.
      if (error instanceof MalformedPayloadError) return findOwn(runtime, entry)
      if (error instanceof RefusalError) {
        // A refusal speaks only for its own attempt: after a lost answer the first attempt may have
        // landed, and the operator sending the text again would make a second message.
        return lost ? confirmRefusal(runtime, entry, error) : { kind: 'refused', error }
      }
      if (!(error instanceof TransportError)) throw error
      lost = true
    }
  }
  // Two transport errors: it may still have landed. History tells; if it cannot, it is not sent.
  return findOwn(runtime, entry)
}

/**
 * Looks for the entry's message in history by its `client_message_id` (the daemon answers that
 * without the session's whole history): the message, `null` when it is not there, `undefined`
 * when the daemon cannot be asked.
 */
async function lookUp(runtime: SendRuntime, entry: OutboxEntry): Promise<Message | null | undefined> {
  let messages: Message[]
  try {
    messages = await runtime.client.findByClientMessageId(entry.sessionId, entry.clientMessageId)
  } catch {
    return undefined
  }
  return messages.find((m) => m.role === 'operator' && m.client_message_id === entry.clientMessageId) ?? null
}

async function findOwn(runtime: SendRuntime, entry: OutboxEntry): Promise<SendOutcome> {
  const own = await lookUp(runtime, entry)
  return own ? { kind: 'accepted', messageId: own.id } : { kind: 'not_sent' }
}

async function confirmRefusal(runtime: SendRuntime, entry: OutboxEntry, error: RefusalError): Promise<SendOutcome> {
  const own = await lookUp(runtime, entry)
  if (own) return { kind: 'accepted', messageId: own.id }
  // History unreadable: nobody can tell, so keep the entry (and its id) for Send again.
  return own === null ? { kind: 'refused', error } : { kind: 'not_sent' }
}

/** Ids on the wire, per runtime (one per tab), so no two views ever send the same id at once. */
const inFlightByRuntime = new WeakMap<SendRuntime, Set<string>>()

function inFlightOf(runtime: SendRuntime): Set<string> {
  let ids = inFlightByRuntime.get(runtime)
  if (!ids) inFlightByRuntime.set(runtime, (ids = new Set()))
  return ids
}

/** True while a send of this id is on the wire in this runtime. */
function isInFlight(runtime: SendRuntime, clientMessageId: string): boolean {
  return inFlightOf(runtime).has(clientMessageId)
}

export type SendHooks = {
  /** Called once the daemon has accepted the entry, before it leaves the outbox (e.g. to show it in history). */
  onAccepted?: (entry: OutboxEntry, accepted: Extract<SendOutcome, { kind: 'accepted' }>) => Promise<unknown> | void
}

export type SendEntryOptions = {
  /**
   * The entry must still be in the outbox in this state (checked under the lock): a resumed send
   * (`sending`) or Send again (`not_sent`) of an entry another tab has meanwhile sent or taken
   * back sends nothing.
   */
  expect?: OutboxState
}

/** A new outbox entry for text the operator just sent: its `client_message_id` is made here, once. */
export function newEntry(runtime: SendRuntime, sessionId: string, content: string): OutboxEntry {
  return { clientMessageId: runtime.newId(), sessionId, content, state: 'sending', createdAt: runtime.clock.now() }
}

/**
 * Sends one entry and files the outcome in the outbox. Resolves to `undefined`, sending nothing,
 * when the same id is already on the wire (a second Enter, a double click, a remount).
 */
export async function sendEntry(runtime: SendRuntime, entry: OutboxEntry, hooks: SendHooks = {}, { expect }: SendEntryOptions = {}): Promise<SendOutcome | undefined> {
  const inFlight = inFlightOf(runtime)
  if (inFlight.has(entry.clientMessageId)) return undefined
  inFlight.add(entry.clientMessageId)
  try {
    if (!runtime.locks) return await sendHeld(runtime, entry, hooks, expect)
    // Another tab holding the lock is sending this very entry: nothing to do here.
    return await runtime.locks.request(sendLockName(entry.clientMessageId), { ifAvailable: true }, (lock) =>
      lock ? sendHeld(runtime, entry, hooks, expect) : undefined,
    )
  } finally {
    inFlight.delete(entry.clientMessageId)
  }
}

/** The send itself, once this tab alone has the entry. */
async function sendHeld(runtime: SendRuntime, entry: OutboxEntry, hooks: SendHooks, expect: OutboxState | undefined): Promise<SendOutcome | undefined> {
  const { outbox } = runtime
  const filed = outbox.get(entry.clientMessageId)
  // Another tab finished (or took back) this entry between our look and the lock.
  if (expect !== undefined && filed?.state !== expect) return undefined
  // An id the outbox already holds has been on the wire before (this page, the one before it, another tab).
  const triedBefore = filed !== undefined
  outbox.put({ ...entry, state: 'sending' })
  try {
    const outcome = await deliver(runtime, entry, { triedBefore })
    if (outcome.kind === 'accepted') {
      outbox.update(entry.clientMessageId, { acceptedMessageId: outcome.messageId })
      try {
        // A hook that shows the send at once returns nothing: the entry then leaves the outbox in
        // the same turn, and the page renders the change once, not once per step (over a long
        // history each render is a pass over it).
        const shown = hooks.onAccepted?.(entry, outcome)
        if (shown) await shown
      } catch {
        // Accepted is accepted: a failed history read after it is the transcript's concern.
      }
      outbox.remove(entry.clientMessageId)
    } else if (outcome.kind === 'refused' && runtime.drafts.read(entry.sessionId) === entry.content) {
      // The box still holds the text (the composer keeps a refused draft): the entry can go.
      outbox.remove(entry.clientMessageId)
    } else {
      // Not sent, or refused with the text nowhere else (Send again, a send resumed after a
      // reload): it stays, with Send again and Edit, so nothing typed is lost.
      outbox.update(entry.clientMessageId, { state: 'not_sent' })
    }
    return outcome
  } catch {
    outbox.update(entry.clientMessageId, { state: 'not_sent' })
    return { kind: 'not_sent' }
  }
}

/**
 * Picks up the sends of a session that were on the wire when the page went away (or the view was
 * left), with their own ids. Their text shows as "Sending…" in the transcript; a box still holding
 * it is emptied, or a second Enter would send the same text again under a new id.
 */
export function resumeSends(runtime: SendRuntime, sessionId: string, hooks: SendHooks = {}): Promise<SendOutcome | undefined>[] {
  const resumed: Promise<SendOutcome | undefined>[] = []
  for (const entry of runtime.outbox.entries()) {
    if (entry.state !== 'sending' || entry.sessionId !== sessionId) continue
    if (runtime.drafts.read(sessionId) === entry.content) runtime.drafts.write(sessionId, '')
    resumed.push(sendEntry(runtime, entry, hooks, { expect: 'sending' }))
  }
  return resumed
}

/**
 * Drops a "not sent" entry and hands its text back; `undefined` while it is on the wire here, or
 * "sending" anywhere (another tab's send holds it).
 */
export function takeBack(runtime: SendRuntime, clientMessageId: string): string | undefined {
  const entry = runtime.outbox.get(clientMessageId)
  if (!entry || isInFlight(runtime, clientMessageId) || entry.state !== 'not_sent') return undefined
  runtime.outbox.remove(clientMessageId)
  return entry.content
}
