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

/** How far before the request a session may be dated and still be the one it made. */
const CREATE_SLACK_MS = 2000

export type StartRuntime = SendRuntime & {
  client: Pick<DaemonClient, 'createSession' | 'listSessions' | 'sendMessage' | 'listMessages'> & Partial<Pick<DaemonClient, 'daemonClock'>>
}

/**
 * Creates an untitled session, finding the one a lost answer made rather than making a second.
 * `created_at` is the daemon's clock: the request's time is placed on it with the offset measured
 * from `Date` headers, so a daemon seconds ahead or behind neither hides the session the lost
 * answer made nor passes off another tab's fresh session as this one.
 */
export async function createOwnSession(runtime: StartRuntime): Promise<Session> {
  const onDaemonClock = (local: number) => local + (runtime.client.daemonClock?.offsetMs() ?? 0)
  const sentAt = runtime.clock.now()
  try {
    return await runtime.client.createSession()
  } catch (error) {
    if (!(error instanceof TransportError)) throw error
    const sessions = await runtime.client.listSessions()
    const after = onDaemonClock(sentAt) - CREATE_SLACK_MS
    const made = sessions.find((s) => s.title === '' && s.created_at >= after)
    if (made) return made
    return runtime.client.createSession()
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
