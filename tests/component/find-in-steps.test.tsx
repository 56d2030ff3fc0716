/**
 * Find-in-session going to a reply for words in one of its folded steps: the reasoning, or the
 * tool whose input holds them, opens while the match stands, so what find counted is on screen;
 * other steps stay folded (a tool whose name holds them too: its header shows it), a step the
 * operator folded again stays folded, and clearing find folds what it opened (Escape). In en
 * and zh.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Language } from '../../src/i18n/resources'
import type { Message } from '../../src/wire/types'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeAll(async () => {
  // The steps and the Markdown renderer are lazy chunks: loaded first, so the reply renders through them.
  await import('../../src/chat/reply/steps/reply-parts')
  await import('../../src/markdown/reply-markdown')
})
beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null, advanceTimers: (ms) => vi.advanceTimersByTime(ms) })

const WORDS = {
  en: { find: 'Find in session' },
  zh: { find: '在会话中查找' },
}

function history(sid: string): Message[] {
  const at = Date.UTC(2026, 10, 30, 13, 0, 0)
  return [
    { id: 'q1', session_id: sid, role: 'operator', content: 'How do retries work?', created_at: at, superseded: false, seq: 1 },
    {
      id: 'a1',
      session_id: sid,
      role: 'agent',
      content: 'They back off.',
      created_at: at + 1_000,
      superseded: false,
      reply_to: 'q1',
      run_id: 'run_1',
      status: 'complete',
      seq: 2,
      parts: [
        { type: 'reasoning', text: 'The scheduler doubles the wait; check the Wombatfile first.' },
        { type: 'tool', tool_call_id: 'tc_1', name: 'search_docs', effect: 'read', input: '{"query":"quokka backoff"}', status: 'done', output: 'Two pages.', output_bytes: 10, output_truncated: false, started_at: at + 1_100, ended_at: at + 1_900 },
        { type: 'tool', tool_call_id: 'tc_2', name: 'read_file', effect: 'read', input: JSON.stringify({ path: 'docs/retries.md', lines: 'First line\nthe numbat line' }), status: 'done', output: 'Retries.', output_bytes: 8, output_truncated: false, started_at: at + 2_000, ended_at: at + 2_400 },
        { type: 'text', text: 'They back off.' },
      ],
    },
  ]
}

function serve(sid: string, messages: Message[]): void {
  server.use(
    http.get(`*/api/v1/sessions/${sid}/messages`, () => HttpResponse.json({ messages, has_more: false })),
  )
}

const toggles = () => [...document.querySelectorAll<HTMLElement>('.step__toggle')]
const expanded = () => toggles().map((toggle) => toggle.getAttribute('aria-expanded'))

describe.each(['en', 'zh'] as Language[])('find in a reply’s steps (%s)', (lng) => {
  const w = WORDS[lng]

  async function open() {
    const sid = createSession(daemon)
    serve(sid, history(sid))
    renderChat(sid, { lng })
    await advanceUntil(() => toggles().length === 3, 'the reply’s steps')
    // Finished: the reasoning and both tools folded.
    expect(expanded()).toEqual(['false', 'false', 'false'])
  }

  async function find(words: string) {
    const box = screen.getByRole('searchbox', { name: w.find })
    await user().clear(box)
    await user().type(box, `${words}{Enter}`)
    await advance(100)
  }

  it('opens the folded reasoning that holds the words, and only it', async () => {
    await open()
    await find('wombatfile')
    expect(document.querySelector('.transcript__row--match')).not.toBeNull()
    expect(expanded()).toEqual(['true', 'false', 'false'])
    expect(document.querySelector('.step__reasoning')).toHaveTextContent('check the Wombatfile first')
  })

  it('opens the tool whose input holds the words; clearing find folds it again', async () => {
    await open()
    await find('quokka')
    expect(expanded()).toEqual(['false', 'true', 'false'])
    expect(within(document.querySelectorAll<HTMLElement>('.step--tool')[0]!).getByText(/quokka backoff/)).toBeInTheDocument()
    // Escape in the find box clears it.
    await user().type(screen.getByRole('searchbox', { name: w.find }), '{Escape}')
    await advance(100)
    expect(expanded()).toEqual(['false', 'false', 'false'])
  })

  it('opens the tool whose input holds the words in a text field, and shows them in its box', async () => {
    await open()
    await find('numbat')
    expect(expanded()).toEqual(['false', 'false', 'true'])
    const field = document.querySelectorAll<HTMLElement>('.step--tool')[1]!.querySelector('.step__field')!
    expect(field.querySelector('.step-code')).toHaveTextContent('the numbat line')
  })

  it('leaves a tool folded when the words are its name, which its header shows', async () => {
    await open()
    await find('read_file')
    expect(document.querySelector('.transcript__row--match')).not.toBeNull()
    expect(expanded()).toEqual(['false', 'false', 'false'])
  })

  it('leaves a step the operator folded again folded', async () => {
    await open()
    await find('wombatfile')
    expect(expanded()[0]).toBe('true')
    await user().click(toggles()[0]!)
    expect(expanded()).toEqual(['false', 'false', 'false'])
  })
})
