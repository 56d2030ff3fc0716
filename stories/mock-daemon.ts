/**
 * Connected stories: each gets its own in-memory mock daemon (mocks/model.ts) behind the same
 * MSW handlers the app uses (mocks/handlers), handed to msw-storybook-addon through
 * `parameters.msw.handlers`. A story's loader resets the daemon and seeds it through the daemon's
 * own methods (createSession, send, regenerate, plan), so the wire rules hold for the seed too.
 */
import type { Loader } from '@storybook/react-vite'
import { handlersFor } from '../mocks/handlers/index'
import { createDaemon, type MockDaemon, type Result } from '../mocks/model'
import type { Language } from '../src/i18n/resources'
import type { Message } from '../src/wire/types'

/** Pause between streamed deltas: quick, but still visibly streamed in Storybook. */
const DELTA_DELAY_MS = 20

/** What a seed hands the story: at least the session it shows, if it shows one. */
export type Seeded = { sessionId?: string }

export type Seed = (daemon: SeedDaemon, locale: Language) => Promise<Seeded>

/**
 * A story's mock daemon: MSW handlers for `parameters.msw.handlers`, a loader that resets and
 * seeds it before each render, and a `beforeEach` whose cleanup (run when the story is left)
 * resets it again, ending its streams and timers.
 */
export function mockDaemonStory(seed: Seed, options: { beforeEach?: (daemon: MockDaemon, loaded: Seeded) => () => void } = {}) {
  const daemon = createDaemon({ deltaDelayMs: DELTA_DELAY_MS })
  const loader: Loader = async ({ globals }) => {
    daemon.reset()
    return seed(new SeedDaemon(daemon), globals.locale === 'zh' ? 'zh' : 'en')
  }
  return {
    parameters: { msw: { handlers: handlersFor(daemon) } },
    loaders: [loader],
    beforeEach: ({ loaded }: { loaded: Seeded }) => {
      const undo = options.beforeEach?.(daemon, loaded)
      return () => {
        undo?.()
        daemon.reset()
      }
    },
  }
}

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`mock daemon refused the seed: ${result.refusal.status} ${result.refusal.body.code}`)
  return result.value
}

/** The daemon's own methods, unwrapped for seeding, plus a wait for its runs to end. */
export class SeedDaemon {
  private sends = 0
  constructor(readonly daemon: MockDaemon) {}

  createSession(title: string): string {
    return unwrap(this.daemon.createSession({ title })).id
  }

  /** Sends as the client would (a fresh `client_message_id`); returns the operator message id. */
  send(sessionId: string, content: string): string {
    this.sends += 1
    const clientMessageId = `00000000-0000-4000-8000-${String(this.sends).padStart(12, '0')}`
    return unwrap(this.daemon.send(sessionId, { content, client_message_id: clientMessageId })).receipt.message_id
  }

  regenerate(sessionId: string, messageId: string): void {
    unwrap(this.daemon.regenerate(sessionId, messageId))
  }

  /** Outcomes for the next runs, in order (see the fault plan table in daemon-wire.md). */
  plan(outcomes: string[]): void {
    this.daemon.plan(outcomes)
  }

  messages(sessionId: string): Message[] {
    return unwrap(this.daemon.listMessages(sessionId))
  }

  /** Resolves once no run is queued or running, so the story opens on a finished state. */
  async settled(timeoutMs = 10_000): Promise<void> {
    const start = Date.now()
    while (this.daemon.state().runs.some((r) => r.status === 'queued' || r.status === 'running')) {
      if (Date.now() - start > timeoutMs) throw new Error('the mock daemon runs did not end')
      await new Promise((resolve) => setTimeout(resolve, DELTA_DELAY_MS))
    }
  }
}
