import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect } from 'storybook/test'
import { ChatView } from '../src/chat/chat-view'
import { sample } from './fixtures'
import { mockDaemonStory } from './mock-daemon'

/**
 * ChatView bound to a mock daemon through msw-storybook-addon. The loader seeds the daemon and
 * passes the session id on (`loaded.sessionId`); seeded runs have ended before the first render
 * unless the story is about a run in flight, so what the story shows does not depend on timing.
 */
const meta = {
  title: 'Connected/Chat view',
  component: ChatView,
  args: { sessionId: '' },
  argTypes: { sessionId: { control: false, description: 'Set by the story loader from the seeded daemon.' } },
  render: (args, { loaded }) => <ChatView sessionId={(loaded.sessionId as string | undefined) ?? args.sessionId} />,
} satisfies Meta<typeof ChatView>

export default meta
type Story = StoryObj<typeof meta>

/** Two exchanges, both complete. */
export const CompleteConversation: Story = {
  ...mockDaemonStory(async (d, locale) => {
    const sessionId = d.createSession(sample('deploySession', locale))
    d.send(sessionId, sample('question', locale))
    await d.settled()
    d.send(sessionId, sample('followUp', locale))
    await d.settled()
    return { sessionId }
  }),
}

/** The second run fails by the fault plan (`context_overflow`, which is never retried on its own). */
export const FailedReply: Story = {
  ...mockDaemonStory(async (d, locale) => {
    const sessionId = d.createSession(sample('deploySession', locale))
    d.plan(['ok', 'context_overflow'])
    d.send(sessionId, sample('question', locale))
    await d.settled()
    d.send(sessionId, sample('followUp', locale))
    await d.settled()
    return { sessionId }
  }),
  play: async ({ canvas }) => {
    await expect(await canvas.findByText('context_overflow', { exact: false })).toBeInTheDocument()
  },
}

/** A reply that failed mid-stream with a code, then was regenerated: the failed one is an earlier version. */
export const RegeneratedReply: Story = {
  ...mockDaemonStory(async (d, locale) => {
    const sessionId = d.createSession(sample('deploySession', locale))
    d.plan(['code:answer_tool_text'])
    const anchor = d.send(sessionId, sample('question', locale))
    await d.settled()
    d.regenerate(sessionId, anchor)
    await d.settled()
    return { sessionId }
  }),
}

/** A reply streamed live: the client follows the run's event stream until it completes. */
export const StreamingReply: Story = {
  ...mockDaemonStory(async (d, locale) => {
    const sessionId = d.createSession(sample('deploySession', locale))
    d.send(sessionId, sample('question', locale))
    await d.settled()
    // Not awaited: the story opens while this run streams.
    d.send(sessionId, sample('followUp', locale))
    return { sessionId }
  }),
}

/** A new session with nothing in it yet. */
export const EmptySession: Story = {
  ...mockDaemonStory(async (d, locale) => ({ sessionId: d.createSession(sample('releaseSession', locale)) })),
}

/** The session is gone (404 session_not_found): said plainly, with a way to try again. */
export const SessionGone: Story = {
  ...mockDaemonStory(async () => ({ sessionId: 'ses_deleted' })),
}
