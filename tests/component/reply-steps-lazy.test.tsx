import { screen, waitFor } from '@testing-library/react'
import { expect, it } from 'vitest'
import { AgentReply } from '../../src/chat/reply/agent-reply'
import type { Message } from '../../src/wire/types'
import { renderInLanguage } from './markdown-helpers'

const reply: Message = {
  id: 'msg_lazy',
  session_id: 'ses_1',
  role: 'agent',
  content: 'Looked it up. The timeout is 30 s.',
  created_at: 0,
  superseded: false,
  run_id: 'run_1',
  status: 'complete',
  parts: [
    { type: 'text', text: 'Looked it up.' },
    { type: 'tool', tool_call_id: 'tc_1', name: 'search_docs', effect: 'read', input: '{"query":"timeout"}', status: 'done', output: 'one page', started_at: 0, ended_at: 1_000 },
    { type: 'text', text: ' The timeout is 30 s.' },
  ],
}

it('shows the answer until the steps have loaded, then the steps in order', async () => {
  const { container } = renderInLanguage(<AgentReply message={reply} />)
  // Before the chunk arrives: the answer, as a reply without steps would show it.
  expect(container.querySelector('.step')).toBeNull()
  expect(container.querySelector('.message__body')).toHaveTextContent('Looked it up. The timeout is 30 s.')

  // The chunk is compiled on first import here, which on a busy machine takes a while.
  expect(await screen.findByRole('button', { name: /^search_docs/ }, { timeout: 10_000 })).toHaveAttribute('aria-expanded', 'false')
  await waitFor(() => expect(container.querySelectorAll('.steps > .message__body')).toHaveLength(2))
  expect(container.querySelector('.steps')).toHaveTextContent(/Looked it up\.\s*search_docs.*The timeout is 30 s\./)
})
