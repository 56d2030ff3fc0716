/**
 * Never a blank page: a throw in render inside a session view or the whole app shows a worded
 * notice in the operator's language with a way back; the inputs that used to throw (a provider
 * time past the last valid Date) no longer do; daemon text with markup in it stays text.
 */
import { act, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AppErrorBoundary, SessionErrorBoundary } from '../../src/app/error-boundary'
import { createQueryClient, Providers } from '../../src/app/providers'
import { ChatView } from '../../src/chat/chat-view'
import { createChatRuntime } from '../../src/thread/runtime'
import { createI18n } from '../../src/i18n/bundled'
import { createDaemonClient } from '../../src/wire/http'
import enApp from '../../locales/en/app.json'
import zhApp from '../../locales/zh/app.json'
import { advance, advanceUntil, createSession, DAEMON_ORIGIN, installFakeClock, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()

let broken = true
function Fragile() {
  if (broken) throw new RangeError('Invalid time value')
  return <p>Recovered</p>
}

/** Renders with React's report of caught errors silenced (the boundary is the one that reports). */
function renderQuiet(ui: React.ReactElement) {
  return render(ui, { onCaughtError: () => {} })
}

beforeEach(() => {
  broken = true
  vi.spyOn(console, 'warn').mockImplementation(() => {})
})

describe('the session boundary', () => {
  it.each([
    ['en', enApp.robust],
    ['zh', zhApp.robust],
  ] as const)('words the failure in %s and offers Try again, the first screen and Reload', async (lng, words) => {
    const onLeave = vi.fn()
    renderQuiet(
      <Providers i18n={createI18n({ lng })} queryClient={createQueryClient()} runtime={createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.localStorage)}>
        <p>Sessions list</p>
        <SessionErrorBoundary sessionId="s1" onLeave={onLeave}>
          <Fragile />
        </SessionErrorBoundary>
      </Providers>,
    )
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent(words.crashTitle)
    expect(alert).toHaveTextContent(words.crashSession)
    // The rest of the app is still there.
    expect(screen.getByText('Sessions list')).toBeInTheDocument()
    await userEvent.click(within(alert).getByRole('button', { name: words.firstScreen }))
    expect(onLeave).toHaveBeenCalledTimes(1)
    broken = false
    await userEvent.click(within(alert).getByRole('button', { name: words.tryAgain }))
    expect(screen.getByText('Recovered')).toBeInTheDocument()
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('moving to another session clears the notice', () => {
    const i18n = createI18n({ lng: 'en' })
    function Shell() {
      const [sid, setSid] = useState('s1')
      return (
        <>
          <button type="button" onClick={() => setSid('s2')}>
            other
          </button>
          <SessionErrorBoundary sessionId={sid}>
            <Fragile />
          </SessionErrorBoundary>
        </>
      )
    }
    renderQuiet(
      <Providers i18n={i18n} queryClient={createQueryClient()} runtime={createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.localStorage)}>
        <Shell />
      </Providers>,
    )
    expect(screen.getByRole('alert')).toBeInTheDocument()
    broken = false
    act(() => screen.getByRole('button', { name: 'other' }).click())
    expect(screen.getByText('Recovered')).toBeInTheDocument()
  })
})

describe('the app boundary', () => {
  it('words itself without any provider, in Chinese too, with Reload and the first screen', () => {
    renderQuiet(
      <AppErrorBoundary i18n={createI18n({ lng: 'zh' })}>
        <Fragile />
      </AppErrorBoundary>,
    )
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent(zhApp.robust.crashApp)
    expect(within(alert).getByRole('button', { name: zhApp.robust.reload })).toBeInTheDocument()
    expect(within(alert).getByRole('button', { name: zhApp.robust.firstScreen })).toBeInTheDocument()
  })
})

describe('inputs that used to blank the page', () => {
  beforeEach(() => installFakeClock())
  afterEach(() => vi.useRealTimers())

  it('quota:200000000000 shows the normal countdown, not a crash (and not a date that is no date)', async () => {
    const sid = createSession(daemon)
    daemon.plan(['quota:200000000000'])
    daemon.send(sid, { content: 'hello', client_message_id: 'c1' })
    const runtime = createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.localStorage)
    render(
      <Providers i18n={createI18n({ lng: 'en' })} queryClient={createQueryClient()} runtime={runtime}>
        <SessionErrorBoundary sessionId={sid}>
          <ChatView sessionId={sid} />
        </SessionErrorBoundary>
      </Providers>,
    )
    await advanceUntil(() => document.querySelector('[data-retry]') !== null, 'the retry status')
    expect(document.querySelector('[data-retry]')!.getAttribute('data-retry')).toBe('armed')
    expect(screen.queryByRole('alert', { name: /went wrong/ })).toBeNull()
    expect(document.body.textContent).not.toContain(enApp.robust.crashTitle)
  })

  it('markup in every daemon string stays text', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
    const sid = createSession(daemon, hostile)
    daemon.plan([`code:${'x_unknown'}`])
    daemon.send(sid, { content: hostile, client_message_id: 'c2' })
    const runtime = createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.localStorage)
    render(
      <Providers i18n={createI18n({ lng: 'en' })} queryClient={createQueryClient()} runtime={runtime}>
        <ChatView sessionId={sid} />
      </Providers>,
    )
    await advanceUntil(() => (document.body.textContent ?? '').includes('<script>'), 'the message shown as text')
    await advance(3000)
    expect(document.querySelectorAll('script, img, iframe, svg[onload]')).toHaveLength(0)
    expect((window as { __pwned?: number }).__pwned).toBeUndefined()
  })
})
