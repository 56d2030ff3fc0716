import type { Meta, StoryObj } from '@storybook/react-vite'
import { useTranslation } from 'react-i18next'
import { fn } from 'storybook/test'
import { SessionList, type SessionListProps } from '../src/chat/sessions/session-list'
import { describeFailure, failureFromError } from '../src/i18n/describe-failure'
import { localized, SAMPLE, session } from './fixtures'

/** The load failure worded as SessionsPanel words it: the sentence, then the worded refusal. */
function LoadErrorList(props: SessionListProps) {
  const { t } = useTranslation()
  const reason = describeFailure(t, failureFromError({ status: 503, code: 'daemon_unavailable', message: 'The daemon is shutting down.' })).text
  return <SessionList {...props} error={`${t('sessions.loadFailed')} ${reason}`} />
}

const meta = {
  title: 'Chat/Session list',
  component: SessionList,
  args: { sessions: undefined, currentId: undefined, onSelect: fn(), onCreate: fn(), onRetry: fn() },
  // Sample titles follow the toolbar language; titles edited in Controls are shown as typed.
  render: (args, { globals }) => <SessionList {...args} sessions={args.sessions?.map((s) => ({ ...s, title: localized(s.title, globals.locale) }))} />,
} satisfies Meta<typeof SessionList>

export default meta
type Story = StoryObj<typeof meta>

/** The first read of the list is on its way. */
export const Loading: Story = {}

/** No sessions yet. */
export const Empty: Story = { args: { sessions: [] } }

/** Newest first; the one in view is marked current, and one has a run going. */
export const Several: Story = {
  args: {
    currentId: 'ses_2',
    sessions: [
      session('ses_1', SAMPLE.releaseSession.en, { status: 'running' }),
      session('ses_2', SAMPLE.deploySession.en),
      session('ses_3', ''),
      session('ses_4', SAMPLE.longSession.en),
    ],
  },
}

/** A new session is being created. */
export const Creating: Story = { args: { sessions: [session('ses_2', SAMPLE.deploySession.en)], currentId: 'ses_2', creating: true } }

/** The list could not be loaded: the reason, and a way to try again. */
export const LoadError: Story = { render: (args) => <LoadErrorList {...args} /> }
