import { expect, it, vi } from 'vitest'
import { AgentReply } from '../../src/chat/reply/agent-reply'
import type { Message } from '../../src/wire/types'
import { renderInLanguage } from './markdown-helpers'

// The steps' chunk cannot be fetched (offline, or a deploy replaced it).
vi.mock('../../src/chat/reply/steps/reply-parts', () => {
  throw new Error('Failed to fetch dynamically imported module')
})

it('keeps showing the answer when the steps cannot be loaded', async () => {
  // React reports the error it caught; that report is expected here, not a failure.
  const reported = vi.spyOn(console, 'error').mockImplementation(() => undefined)
  const reply: Message = {
    id: 'msg_offline',
    session_id: 'ses_1',
    role: 'agent',
    content: 'Still readable.',
    created_at: 0,
    superseded: false,
    run_id: 'run_1',
    status: 'complete',
    parts: [
      { type: 'reasoning', text: 'Hidden thoughts.' },
      { type: 'text', text: 'Still readable.' },
    ],
  }
  const { container } = renderInLanguage(<AgentReply message={reply} />)
  await vi.waitFor(() => expect(reported).toHaveBeenCalled())
  // The boundary caught the failed import (not a fallback still waiting for it).
  expect(reported.mock.calls.flat().map(String).join(' ')).toMatch(/error boundary you provided, AnswerOnError/)
  expect(container.querySelector('.message__body')).toHaveTextContent('Still readable.')
  expect(container).not.toHaveTextContent('Hidden thoughts.')
})
