/**
 * The Notifications switch in the header: it asks the browser's permission only when the operator
 * switches it on (never at load), keeps its state for the next load, and says so in words when the
 * browser refuses. Not shown where the browser has no notifications.
 */
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { AttentionProvider, useAttention } from '../../src/app/attention'
import { NotificationsSwitch } from '../../src/app/notifications-switch'
import type { NotificationPort, Permission } from '../../src/attention/notify'
import type { PageSource } from '../../src/attention/page'
import { createChatRuntime } from '../../src/thread/runtime'
import { createDaemonClient } from '../../src/wire/http'
import { DAEMON_ORIGIN, renderWithProviders, startMockDaemonForFile } from './harness'

startMockDaemonForFile()

const hiddenPage: PageSource = { visible: () => false, focused: () => false, subscribe: () => () => {}, focus() {} }

/** A browser whose answer to the question is `answer`, starting from `permission`. */
function fakePort(permission: Permission, answer: Permission = permission, supported = true) {
  const state = { permission }
  const request = vi.fn(async () => {
    await Promise.resolve()
    state.permission = answer
    return answer
  })
  const port: NotificationPort = { supported, permission: () => state.permission, request, show: vi.fn() }
  return { port, request }
}

/** The switch under an attention core, once the core (fetched after the first screen) has started. */
async function renderSwitch(port: NotificationPort, lng: 'en' | 'zh' = 'en') {
  const runtime = createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.localStorage)
  const view = renderWithProviders(
    <AttentionProvider port={port} page={hiddenPage}>
      <NotificationsSwitch />
      <Started />
    </AttentionProvider>,
    { lng, runtime },
  )
  await screen.findByTestId('attention-started')
  return view
}

function Started() {
  return useAttention() ? <span data-testid="attention-started" /> : null
}

const toggle = () => screen.getByRole('button', { name: 'Notifications' })

describe('the Notifications switch', () => {
  it('asks the browser only when switched on, and is on once allowed', async () => {
    const { port, request } = fakePort('default', 'granted')
    await renderSwitch(port)
    expect(toggle()).toHaveAttribute('aria-pressed', 'false')
    expect(request).not.toHaveBeenCalled()
    await userEvent.click(toggle())
    await waitFor(() => expect(toggle()).toHaveAttribute('aria-pressed', 'true'))
    expect(request).toHaveBeenCalledTimes(1)
    // Off asks nothing.
    await userEvent.click(toggle())
    await waitFor(() => expect(toggle()).toHaveAttribute('aria-pressed', 'false'))
    expect(request).toHaveBeenCalledTimes(1)
  })

  it('keeps its state for the next load, without asking again', async () => {
    const { port, request } = fakePort('default', 'granted')
    const first = await renderSwitch(port)
    await userEvent.click(toggle())
    await waitFor(() => expect(toggle()).toHaveAttribute('aria-pressed', 'true'))
    first.unmount()
    await renderSwitch(port)
    expect(toggle()).toHaveAttribute('aria-pressed', 'true')
    expect(request).toHaveBeenCalledTimes(1)
  })

  it('says in words that the browser refuses, and stays off', async () => {
    const { port, request } = fakePort('default', 'denied')
    await renderSwitch(port)
    expect(screen.getByRole('status')).toHaveTextContent('')
    await userEvent.click(toggle())
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('The browser blocks notifications for this site'))
    expect(toggle()).toHaveAttribute('aria-pressed', 'false')
    expect(toggle()).toHaveAccessibleDescription(/allow them in its site settings/)
    expect(request).toHaveBeenCalledTimes(1)
  })

  it('stays off with nothing said when the operator dismisses the browser’s question', async () => {
    const { port } = fakePort('default', 'default')
    await renderSwitch(port)
    await userEvent.click(toggle())
    await waitFor(() => expect(port.request).toHaveBeenCalled())
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(''))
    expect(toggle()).toHaveAttribute('aria-pressed', 'false')
  })

  it('is worded in Chinese', async () => {
    await renderSwitch(fakePort('granted').port, 'zh')
    expect(screen.getByRole('button', { name: '通知' })).toBeInTheDocument()
  })

  it('is not offered where the browser has no notifications', async () => {
    await renderSwitch(fakePort('denied', 'denied', false).port)
    expect(screen.queryByRole('button', { name: 'Notifications' })).toBeNull()
  })
})
