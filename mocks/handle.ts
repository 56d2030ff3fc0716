/** What the page exposes as `window.__mockDaemon` for the console, the simulator panel and end-to-end tests. */
import { seedLongSession } from './long-session'
import type { DaemonState, MockDaemon } from './model'

export type MockDaemonHandle = {
  plan(faults: readonly string[]): string[]
  state(): DaemonState
  reset(): void
  /** Writes a session of `messages` messages (long-session.ts; at most IN_BROWSER_LONG_SESSION) and returns its id. */
  longSession(messages: number): string
}

/** The most messages a long session has in the browser: the daemon saves its whole state in localStorage at the end of every task that changed it. */
const IN_BROWSER_LONG_SESSION = 500

export function handleFor(daemon: MockDaemon): MockDaemonHandle {
  return {
    plan: (faults) => daemon.plan(faults),
    state: () => daemon.state(),
    reset: () => daemon.reset(),
    longSession: (messages) => seedLongSession(daemon, messages, IN_BROWSER_LONG_SESSION).id,
  }
}
