import type { Meta, StoryObj } from '@storybook/react-vite'
import { useQueryClient } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { expect, userEvent } from 'storybook/test'
import { AttentionProvider, wordNotification } from '../src/app/attention'
import { NotificationsSwitch } from '../src/app/notifications-switch'
import type { LedgerEntry } from '../src/attention/ledger'
import { notifySetting, type NotificationPort, type Permission } from '../src/attention/notify'
import type { PageSource } from '../src/attention/page'
import { useChatRuntime } from '../src/chat/runtime'
import { currentLanguage } from '../src/i18n/setup'
import { chatKeys } from '../src/thread/history'
import { FIXED_NOW } from './fixtures'

/**
 * Attention while the operator looks elsewhere: the Notifications switch of the header in each of
 * its states (the browser's permission is a stand-in: nothing is asked of the real one), and the
 * words of each notification and of the tab title.
 */

/** The browser's notifications as a story sets them; `answer` undefined: the question stays open. */
function storyPort(permission: Permission, answer: Permission | undefined): NotificationPort {
  let current = permission
  return {
    supported: true,
    permission: () => current,
    request: () =>
      answer === undefined
        ? new Promise<Permission>(() => {})
        : Promise.resolve(answer).then((given) => {
            current = given
            return given
          }),
    show() {},
  }
}

/** A page the operator is not looking at: nothing is marked seen. */
const awayPage: PageSource = { visible: () => false, focused: () => false, subscribe: () => () => {}, focus() {} }

type SwitchParameters = { permission: Permission; wanted: boolean; answer?: Permission }

/** The switch over the story's runtime, with the operator's choice as stored and the browser's as given. */
function WithAttention({ permission, wanted, answer, children }: SwitchParameters & { children: ReactNode }) {
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const [port] = useState(() => {
    notifySetting(runtime.store).write(wanted)
    // The session list as held: the background watch reads it instead of asking the daemon.
    queryClient.setQueryData(chatKeys.sessions, [])
    return storyPort(permission, answer)
  })
  return (
    <AttentionProvider port={port} page={awayPage}>
      {children}
    </AttentionProvider>
  )
}

const meta = {
  title: 'App/Notifications',
  component: NotificationsSwitch,
  render: (_args, { parameters }) => (
    <WithAttention {...(parameters.attention as SwitchParameters)}>
      <NotificationsSwitch />
    </WithAttention>
  ),
} satisfies Meta<typeof NotificationsSwitch>

export default meta
type Story = StoryObj<typeof meta>

/** Off: the browser has not been asked; pressing it asks. */
export const Off: Story = {
  parameters: { attention: { permission: 'default', wanted: false } },
  play: async ({ canvas }) => {
    await expect(await canvas.findByRole('button')).toHaveAttribute('aria-pressed', 'false')
  },
}

/** On: switched on and allowed by the browser (kept from an earlier visit). */
export const On: Story = {
  parameters: { attention: { permission: 'granted', wanted: true } },
  play: async ({ canvas }) => {
    await expect(await canvas.findByRole('button')).toHaveAttribute('aria-pressed', 'true')
  },
}

/** Pressed, and the browser's question is open. */
export const Asking: Story = {
  parameters: { attention: { permission: 'default', wanted: false } },
  play: async ({ canvas }) => {
    await userEvent.click(await canvas.findByRole('button'))
    await expect(await canvas.findByRole('status')).not.toBeEmptyDOMElement()
  },
}

/** The browser refuses notifications for the site: said beside the switch, which stays off. */
export const Blocked: Story = {
  parameters: { attention: { permission: 'denied', wanted: true } },
  play: async ({ canvas }) => {
    await expect(await canvas.findByRole('button')).toHaveAttribute('aria-pressed', 'false')
    await expect(await canvas.findByRole('status')).not.toBeEmptyDOMElement()
  },
}

const sample = (kind: LedgerEntry['kind'], extra: Partial<LedgerEntry> = {}): LedgerEntry => ({ id: `${kind}:run_1`, kind, sessionId: 'ses_1', at: FIXED_NOW, runId: 'run_1', ...extra })

/** What each notification says (its title is the session's), and the tab title with two unseen. */
function NotificationWords() {
  const { t, i18n } = useTranslation()
  const lng = currentLanguage(i18n)
  const notifications: [LedgerEntry, string][] = [
    [sample('approval', { toolCallId: 'tc_1', tool: 'write_file' }), 'deploy-notes.md'],
    [sample('finished'), 'deploy-notes.md'],
    [sample('failed', { error: { code: 'context_overflow', message: 'The conversation no longer fits the model.' } }), 'deploy-notes.md'],
    [sample('paused', { until: FIXED_NOW + 40 * 60_000 }), 'deploy-notes.md'],
    [sample('held', { tools: ['write_file', 'run_command'] }), 'deploy-notes.md'],
    [sample('finished'), ''],
  ]
  return (
    <>
      <p>
        <code>{t('attention.tabTitle', { count: 2, title: t('app.title') })}</code>
      </p>
      <ul>
        {notifications.map(([entry, title], i) => {
          const words = wordNotification(t, lng, entry, title, FIXED_NOW)
          return (
            <li key={i} data-kind={entry.kind}>
              <strong>{words.title}</strong> — {words.body}
            </li>
          )
        })}
      </ul>
    </>
  )
}

/** Each kind of notification, as the operator's language words it. */
export const Words: Story = {
  render: () => <NotificationWords />,
  play: async ({ canvas }) => {
    await expect(canvas.getAllByRole('listitem')).toHaveLength(6)
  },
}
