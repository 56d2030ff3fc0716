/**
 * The first Enter on the first screen: create a session and send into it, as one step. The send
 * is idempotent already (one `client_message_id`, the outbox); the create is made so too: a
 * create whose answer was lost is looked for in the session list (an untitled session the daemon
 * made after the request went out) before another is made, so a lost response never leaves two
 * sessions behind.
 */
import { TransportError } from '../wire/errors'
import type { DaemonClient } from '../wire/http'
import type { Session } from '../wire/types'
import { newEntry, type SendRuntime } from './deliver'

export type StartRuntime = SendRuntime & { client: Pick<DaemonClient, 'createSession' | 'listSessions' | 'sendMessage' | 'findByClientMessageId'> }

const untitledIds = (sessions: readonly Session[]) => new Set(sessions.filter((s) => s.title === '').map((s) => s.id))

/**
 * Creates an untitled session, finding the one a lost answer made rather than making a second:
 * the untitled sessions listed before the request are known, so a new one afterwards is ours.
 * (Comparing times would set the browser's clock against the daemon's.)
 */
async function createOwnSession(runtime: StartRuntime): Promise<Session> {
  let before: Set<string> | undefined
  try {
    before = untitledIds(await runtime.client.listSessions())
  } catch {
    // Unreadable now: the create goes ahead, and a lost answer is then not looked for.
  }
  try {
    return await runtime.client.createSession()
  } catch (error) {
    if (!(error instanceof TransportError) || !before) throw error
    const known = before
    const made = (await runtime.client.listSessions()).find((s) => s.title === '' && !known.has(s.id))
    return made ?? runtime.client.createSession()
  }
}

/**
 * Creates the session and files the text in its outbox as "sending", so the session's view picks
 * it up with its id (resumeSends) the moment it opens: the text is never in two places, and the
 * draft of the first screen can go.
 */
export async function startSession(runtime: StartRuntime, content: string): Promise<Session> {
  const session = await createOwnSession(runtime)
  runtime.outbox.put(newEntry(runtime, session.id, content))
  return session
}
