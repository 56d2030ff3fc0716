/**
 * Shared set-up for component tests: the real mock daemon behind MSW's node server, a fresh
 * QueryClient (no retries) and runtime per render, and helpers to drive time.
 */
import { act, render, type RenderResult } from '@testing-library/react'
import type { ReactElement } from 'react'
import { beforeAll, vi } from 'vitest'
import type { MockDaemon } from '../../mocks/model'
import { App } from '../../src/app/app'
import { createQueryClient, Providers } from '../../src/app/providers'
import { ChatView } from '../../src/chat/chat-view'
import { loadReplyParts } from '../../src/chat/reply/steps/lazy-reply-parts'
import { ReplyMarkdown } from '../../src/markdown/reply-markdown'
import { createChatRuntime, type ChatRuntime } from '../../src/thread/runtime'
import type { Language } from '../../src/i18n/resources'
import { createI18n } from '../../src/i18n/bundled'
import { createDaemonClient } from '../../src/wire/http'

export { startMockDaemonForFile } from '../setup/mock-daemon'

// The Markdown renderer and a reply's steps are lazy chunks. Loaded before any test of a file that
// uses this harness, so a reply is rendered by them rather than by their stand-ins, whatever the
// machine's speed.
beforeAll(async () => {
  await import('../../src/markdown/reply-markdown')
  await loadReplyParts()
})

/** The text a reply with this source shows once rendered: to check a reply is shown whole, once. */
export function renderedReplyText(source: string): string {
  const reference = render(<ReplyMarkdown source={source} />, { container: document.createElement('div') })
  const text = reference.container.textContent ?? ''
  reference.unmount()
  return text
}

/** Node's fetch needs absolute URLs; the handlers match any origin. */
export const DAEMON_ORIGIN = 'http://daemon.test'

/** Fakes only the clock and the timers the product schedules with (see style.md, "Known traps"). */
export function installFakeClock(start = new Date(2026, 10, 30, 14, 0, 0)) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: start })
}

/** Advances fake time inside act, letting promises and renders settle. */
export async function advance(ms: number): Promise<void> {
  await act(() => vi.advanceTimersByTimeAsync(ms))
}

/**
 * Steps fake time until `check` holds. Small steps first (a failure lands within milliseconds,
 * well before a 2 s retry fires), longer ones after (a reattachment backs off for seconds).
 */
export async function advanceUntil(check: () => boolean, what: string, max = 15_000): Promise<void> {
  for (let waited = 0, step = 20; waited <= max; waited += step, step = Math.min(step * 2, 400)) {
    if (check()) return
    await advance(step)
  }
  if (check()) return
  throw new Error(`gave up after ${max} ms of fake time waiting for ${what}`)
}

export function createSession(daemon: MockDaemon, title = 'Test session'): string {
  const result = daemon.createSession({ title })
  if (!result.ok) throw new Error(`createSession refused: ${result.refusal.body.code}`)
  return result.value.id
}

export type RenderChatOptions = {
  lng?: Language
  /** Keep using this runtime (a "reload" keeps sessionStorage, not memory). */
  runtime?: ChatRuntime
}

export function renderWithProviders(ui: ReactElement, { lng = 'en', runtime }: RenderChatOptions = {}): RenderResult & { runtime: ChatRuntime } {
  const rt = runtime ?? createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.sessionStorage)
  const result = render(
    <Providers i18n={createI18n({ lng })} queryClient={createQueryClient()} runtime={rt}>
      {ui}
    </Providers>,
  )
  return { ...result, runtime: rt }
}

export function renderChat(sessionId: string, options: RenderChatOptions = {}) {
  return renderWithProviders(<ChatView sessionId={sessionId} />, options)
}

export function renderApp(options: RenderChatOptions = {}) {
  return renderWithProviders(<App />, options)
}

/** Simulates a reload: a new runtime over the same sessionStorage, rendered afresh. */
export function reloadRuntime(): ChatRuntime {
  return createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.sessionStorage)
}
