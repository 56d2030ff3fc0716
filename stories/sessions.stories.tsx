import type { Meta, StoryObj } from '@storybook/react-vite'
import { http, HttpResponse } from 'msw'
import { useTranslation } from 'react-i18next'
import { expect, fn, userEvent, waitFor, within } from 'storybook/test'
import { ConfirmDialog } from '../src/chat/dialogs/confirm-dialog'
import { sessionLabel } from '../src/thread/session-label'
import { RefusedNotice } from '../src/chat/reply/refused-notice'
import { SessionList, type SessionActions, type SessionListProps } from '../src/chat/sessions/session-list'
import { ShortcutsDialog } from '../src/chat/dialogs/shortcuts-dialog'
import { StartView } from '../src/chat/sessions/start-view'
import type { Session } from '../src/wire/types'
import { localized, SAMPLE, sample, session, wordsFor } from './fixtures'
import { mockDaemonStory } from './mock-daemon'

/**
 * The session features as the operator meets them: the first screen, the "⋯" menu of a session,
 * a rename the daemon refused, the delete question, and the list of keyboard shortcuts. Each
 * story's play function checks what matters in the story's language.
 */
/** The callbacks the stories hand their components, each a spy the play functions read. */
type Args = { onStarted: (sessionId: string) => void; onConfirm: () => void; onCancel: () => void; onClose: () => void }

const meta = {
  title: 'Chat/Sessions',
  args: { onStarted: fn(), onConfirm: fn(), onCancel: fn(), onClose: fn() },
} satisfies Meta<Args>

export default meta
type Story = StoryObj<Meta<Args>>

const actions: SessionActions = { onRename: fn(), onExport: fn(), onDelete: fn() }

/** The sample sessions, titled in the story's language. */
function sessions(locale: unknown): Session[] {
  return [
    session('ses_1', localized(SAMPLE.releaseSession.en, locale), { status: 'running' }),
    session('ses_2', localized(SAMPLE.deploySession.en, locale)),
    session('ses_3', ''),
  ]
}

/** The sample list with every action, the second session open; `extra` sets what the story shows. */
function SampleList({ locale, ...extra }: { locale: unknown } & Partial<SessionListProps>) {
  return <SessionList sessions={sessions(locale)} currentId="ses_2" onSelect={fn()} onCreate={fn()} actions={actions} onRenameStart={fn()} onRenameCancel={fn()} {...extra} />
}

/**
 * The first screen: ready to type, the message box focused. The first Enter makes one untitled
 * session, files the text for it, and hands the session over to be opened.
 */
export const FirstScreen: Story = {
  ...mockDaemonStory(async () => ({})),
  render: (args) => <StartView onStarted={args.onStarted} />,
  play: async ({ canvas, globals, args }) => {
    const t = wordsFor(globals.locale)
    await expect(canvas.getByRole('heading', { name: t('start.heading') })).toBeInTheDocument()
    const box = canvas.getByRole('textbox', { name: t('composer.label') })
    await expect(box).toHaveFocus()
    await userEvent.type(box, `${sample('question', globals.locale)}{Enter}`)
    const { onStarted } = args
    await waitFor(() => expect(onStarted).toHaveBeenCalledTimes(1))
    await expect(onStarted).toHaveBeenCalledWith(expect.stringMatching(/^ses_/))
    // The text went with the session: the first screen's box is empty again.
    await waitFor(() => expect(box).toHaveValue(''))
  },
}

/** The first Enter, refused: the daemon could not make the session. The text stays, and the line under the box says why. */
export const FirstScreenRefused: Story = {
  name: 'First screen, create refused',
  parameters: {
    msw: {
      handlers: [
        // The first screen lists the untitled sessions before it creates one (to find its own after a lost answer).
        http.get('*/api/v1/sessions', () => HttpResponse.json({ sessions: [] })),
        http.post('*/api/v1/sessions', () => HttpResponse.json({ error: 'The daemon is shutting down.', code: 'daemon_unavailable' }, { status: 503 })),
      ],
    },
  },
  render: (args) => <StartView onStarted={args.onStarted} />,
  play: async ({ canvas, globals, args }) => {
    const t = wordsFor(globals.locale)
    const box = canvas.getByRole('textbox', { name: t('composer.label') })
    const text = sample('question', globals.locale)
    await userEvent.type(box, `${text}{Enter}`)
    await expect(await canvas.findByRole('alert')).toHaveTextContent(t('start.failed', { reason: t('errors.daemon_unavailable') }))
    await expect(box).toHaveValue(text)
    await expect(args.onStarted).not.toHaveBeenCalled()
  },
}

/** The "⋯" menu of a session, open: Rename, the two exports, and Delete; the first item has the focus. */
export const MenuOpen: Story = {
  name: 'Session menu open',
  render: (_args, { globals }) => <SampleList locale={globals.locale} />,
  play: async ({ canvas, globals }) => {
    const t = wordsFor(globals.locale)
    const title = localized(SAMPLE.deploySession.en, globals.locale)
    const toggle = canvas.getByRole('button', { name: t('sessionMenu.actions', { title }) })
    await expect(toggle).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(toggle)
    await expect(toggle).toHaveAttribute('aria-expanded', 'true')
    const menu = canvas.getByRole('group', { name: t('sessionMenu.actions', { title }) })
    const items = within(menu).getAllByRole('button')
    await expect(items.map((b) => b.textContent)).toEqual([t('sessionMenu.rename'), t('sessionMenu.exportMarkdown'), t('sessionMenu.exportJson'), t('sessionMenu.delete')])
    await expect(items[0]).toHaveFocus()
    // One menu at a time per session: the others stay closed.
    await expect(canvas.getAllByRole('button', { expanded: true })).toHaveLength(1)
  },
}

/** A rename in place that the daemon refused (over 200 characters): the field stays, marked, with the reason under it. */
export const RenameRefused: Story = {
  name: 'Rename refused',
  render: (_args, { globals }) => (
    <SampleList
      locale={globals.locale}
      renaming={{
        sessionId: 'ses_2',
        error: <RefusedNotice error={{ status: 422, code: 'title_too_long', message: 'The session title is longer than 200 characters.' }} template="sessionMenu.renameFailed" />,
      }}
    />
  ),
  play: async ({ canvas, globals }) => {
    const t = wordsFor(globals.locale)
    const title = localized(SAMPLE.deploySession.en, globals.locale)
    const field = canvas.getByRole('textbox', { name: t('sessionMenu.renameLabel', { title }) })
    await expect(field).toHaveFocus()
    await expect(field).toHaveValue(title)
    await expect(field).toHaveAttribute('aria-invalid', 'true')
    const reason = t('sessionMenu.renameFailed', { reason: t('errors.title_too_long') })
    await expect(canvas.getByRole('alert')).toHaveTextContent(reason)
    await expect(field).toHaveAccessibleDescription(reason)
    // The other sessions are still links.
    await expect(canvas.getAllByRole('link')).toHaveLength(2)
  },
}

/** A rename just started: the whole title selected, ready to be typed over. */
export const RenameInProgress: Story = {
  name: 'Rename in progress',
  render: (_args, { globals }) => (
    <SampleList locale={globals.locale} renaming={{ sessionId: 'ses_2' }} />
  ),
  play: async ({ canvas, globals }) => {
    const t = wordsFor(globals.locale)
    const title = localized(SAMPLE.deploySession.en, globals.locale)
    const field = canvas.getByRole('textbox', { name: t('sessionMenu.renameLabel', { title }) })
    await expect(field).toHaveFocus()
    await expect([(field as HTMLInputElement).selectionStart, (field as HTMLInputElement).selectionEnd]).toEqual([0, title.length])
    await expect(field).not.toHaveAttribute('aria-invalid')
  },
}

/**
 * Sessions with events the operator has not seen, as the tab title counts them: one waits on the
 * operator (a tool's approval), marked "Needs you" instead of "Running"; another has news (its
 * reply finished), a dot named for screen readers. The session on screen has neither.
 */
export const NeedsYou: Story = {
  name: 'Needs you and news',
  render: (_args, { globals }) => (
    <SampleList
      locale={globals.locale}
      marks={
        new Map([
          ['ses_1', 'needsYou'],
          ['ses_3', 'news'],
        ])
      }
    />
  ),
  play: async ({ canvas, globals }) => {
    const t = wordsFor(globals.locale)
    const rows = canvas.getAllByRole('listitem')
    await expect(within(rows[0]!).getByText(t('sessions.needsYou'))).toBeVisible()
    await expect(within(rows[0]!).queryByText(t('sessions.running'))).toBeNull()
    await expect(within(rows[1]!).queryByText(t('sessions.needsYou'))).toBeNull()
    await expect(within(rows[2]!).getByRole('img', { name: t('sessions.news') })).toBeInTheDocument()
  },
}

/** The question before a delete, naming the session; the safe choice has the focus, and Escape takes it. */
function DeleteQuestion({ onConfirm, onCancel }: { onConfirm: () => void; onCancel: () => void }) {
  const { t, i18n } = useTranslation()
  const target = session('ses_2', localized(SAMPLE.deploySession.en, i18n.language))
  return (
    <ConfirmDialog
      title={t('sessionMenu.deleteTitle', { title: sessionLabel(t, target) })}
      body={t('sessionMenu.deleteBody')}
      confirmLabel={t('sessionMenu.deleteConfirm')}
      cancelLabel={t('sessionMenu.deleteKeep')}
      onConfirm={onConfirm}
      onCancel={onCancel}
    />
  )
}

export const DeleteQuestionOpen: Story = {
  name: 'Delete question',
  render: (args) => <DeleteQuestion onConfirm={args.onConfirm} onCancel={args.onCancel} />,
  play: async ({ canvas, globals, args }) => {
    const t = wordsFor(globals.locale)
    const { onConfirm, onCancel } = args
    const title = localized(SAMPLE.deploySession.en, globals.locale)
    const dialog = canvas.getByRole('alertdialog', { name: t('sessionMenu.deleteTitle', { title }) })
    await expect(dialog).toHaveAttribute('aria-modal', 'true')
    await expect(dialog).toHaveAccessibleDescription(t('sessionMenu.deleteBody'))
    await expect(within(dialog).getByRole('button', { name: t('sessionMenu.deleteKeep') })).toHaveFocus()
    await expect(within(dialog).getByRole('button', { name: t('sessionMenu.deleteConfirm') })).toBeInTheDocument()
    await userEvent.keyboard('{Escape}')
    await expect(onCancel).toHaveBeenCalledTimes(1)
    await expect(onConfirm).not.toHaveBeenCalled()
  },
}

/** The list of keyboard shortcuts, as `?` or the header button opens it; Close has the focus. */
export const Shortcuts: Story = {
  name: 'Keyboard shortcuts',
  render: (args) => <ShortcutsDialog onClose={args.onClose} />,
  play: async ({ canvas, globals, args }) => {
    const t = wordsFor(globals.locale)
    const dialog = canvas.getByRole('dialog', { name: t('shortcuts.title') })
    const rows = within(dialog).getAllByRole('rowheader').map((th) => th.textContent)
    await expect(rows).toEqual(
      (['newSession', 'focusComposer', 'stopOrCancel', 'retryOrRegenerate', 'focusApproval', 'previousSession', 'nextSession', 'find', 'help', 'sessionStart', 'latest', 'send', 'newLine'] as const).map((id) => t(`shortcuts.${id}`)),
    )
    const close = within(dialog).getByRole('button', { name: t('shortcuts.close') })
    await expect(close).toHaveFocus()
    await userEvent.click(close)
    await expect(args.onClose).toHaveBeenCalledTimes(1)
  },
}
