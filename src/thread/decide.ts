/**
 * Sending the operator's decision on a tool, once (see thread/decisions.ts for the rules and the
 * record): recorded before the request, under a Web Lock per tool call, sent again once when the
 * answer was lost. Not part of the first screen: the thread fetches it with the first decision.
 */
import { LOCK_PREFIX, type LockManagerLike } from '../storage/locks'
import type { KeyedStore } from '../storage/keyed-store'
import { MalformedPayloadError, RefusalError, TransportError } from '../wire/errors'
import type { DaemonClient } from '../wire/http'
import type { ToolDecision, WireError } from '../wire/types'
import { decisionBookOf, decisionKey, type DecisionRecord, type DecisionState } from './decisions'

/** The lock a decision holds while on the wire: one per tool call. */
const decisionLockName = (runId: string, toolCallId: string) => `${LOCK_PREFIX}decision.${runId}.${toolCallId}`

/** What one delivery of a decision came to. */
export type DecisionOutcome = { state: Exclude<DecisionState, 'sending'>; error?: WireError }

const errorValue = (error: { code: string; message: string }): WireError => ({ code: error.code, message: error.message })

/**
 * Delivers a decision: a transport error (the answer may have been lost) is sent again once with
 * the same decision, which the daemon answers 200 if the first landed. A 409 `decision_conflict`
 * settles it too: the other decision stands.
 */
export async function deliverDecision(
  client: Pick<DaemonClient, 'decide'>,
  target: { sessionId: string; runId: string; toolCallId: string },
  decision: ToolDecision,
): Promise<DecisionOutcome> {
  let lost: TransportError | undefined
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      await client.decide(target.sessionId, target.runId, target.toolCallId, decision)
      return { state: 'taken' }
    } catch (error) {
      // The daemon said yes in words this client cannot read: it has the decision.
      if (error instanceof MalformedPayloadError) return { state: 'taken' }
      if (error instanceof RefusalError) {
        if (error.code === 'decision_conflict') return { state: 'conflict', error: errorValue(error) }
        // A daemon unavailable (or busy) changed nothing: the same decision may be sent again.
        const passing = error.status >= 500 || error.status === 429
        return { state: passing ? 'failed' : 'refused', error: errorValue(error) }
      }
      if (!(error instanceof TransportError)) throw error
      lost = error
    }
  }
  return { state: 'failed', error: errorValue(lost ?? new TransportError('The decision could not be delivered.')) }
}

/**
 * Whether a decision may go on the wire now, given the tool's record: when there is none, when the
 * same decision failed to be delivered (the operator sends it again), or when it was on the wire
 * as the page went away (`resume`). Anything else was decided here or in another tab.
 */
export function maySend(record: DecisionRecord | undefined, decision: ToolDecision, resume: boolean): boolean {
  if (record === undefined) return !resume
  if (record.decision !== decision) return false
  return record.state === 'failed' || (resume && record.state === 'sending')
}

/** What deciding needs of the runtime. */
export type DecisionRuntime = {
  client: Pick<DaemonClient, 'decide'>
  store: KeyedStore
  locks: LockManagerLike
  clock: { now(): number }
}

/** Tool calls whose decision is on the wire, per runtime (one per tab). */
const inFlightByRuntime = new WeakMap<DecisionRuntime, Set<string>>()

function inFlightOf(runtime: DecisionRuntime): Set<string> {
  let keys = inFlightByRuntime.get(runtime)
  if (!keys) inFlightByRuntime.set(runtime, (keys = new Set()))
  return keys
}

export type DecideRequest = { sessionId: string; runId: string; toolCallId: string; decision: ToolDecision }

/**
 * Decides a tool once. Resolves to the record it filed, or `undefined` when it sent nothing: the
 * same tool is already on the wire here or in another tab, or was decided already.
 */
export async function decide(runtime: DecisionRuntime, request: DecideRequest, { resume = false }: { resume?: boolean } = {}): Promise<DecisionRecord | undefined> {
  const { sessionId, runId, toolCallId, decision } = request
  const book = decisionBookOf(runtime.store)
  const key = decisionKey(runId, toolCallId)
  const inFlight = inFlightOf(runtime)
  // A double click, Enter held down: the first press is on the wire, the others do nothing.
  if (inFlight.has(key) || !maySend(book.read(sessionId, runId, toolCallId), decision, resume)) return undefined
  inFlight.add(key)
  try {
    // Another tab holding the lock is sending a decision on this tool: its record will say how it went.
    return await runtime.locks.request(decisionLockName(runId, toolCallId), { ifAvailable: true }, async (lock) => {
      if (!lock) return undefined
      // Another tab may have decided between our look and the lock.
      if (!maySend(book.read(sessionId, runId, toolCallId), decision, resume)) return undefined
      const base = { sessionId, runId, toolCallId, decision }
      // Filed before the request: a reload from here on sends this same decision again.
      book.write({ ...base, state: 'sending', at: runtime.clock.now() })
      let outcome: DecisionOutcome
      try {
        outcome = await deliverDecision(runtime.client, base, decision)
      } catch (error) {
        outcome = { state: 'failed', error: { code: '', message: error instanceof Error ? error.message : String(error) } }
      }
      const record: DecisionRecord = { ...base, state: outcome.state, at: runtime.clock.now(), ...(outcome.error ? { error: outcome.error } : {}) }
      book.write(record)
      return record
    })
  } finally {
    inFlight.delete(key)
  }
}

/**
 * Sends again, once, the session's decisions that were on the wire when the page went away (or
 * another tab closed mid-request). Each goes under its lock, so two tabs opening at once send it once.
 */
export function resumeDecisions(runtime: DecisionRuntime, sessionId: string): Promise<DecisionRecord | undefined>[] {
  const resumed: Promise<DecisionRecord | undefined>[] = []
  for (const record of decisionBookOf(runtime.store).session(sessionId).values()) {
    if (record.state !== 'sending') continue
    resumed.push(decide(runtime, record, { resume: true }))
  }
  return resumed
}
