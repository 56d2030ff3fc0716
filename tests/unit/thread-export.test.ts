/** The Markdown export of a reply with steps: each step in order, reasoning and tools folded, raw HTML as text. */
import { describe, expect, it } from 'vitest'
import { createI18n } from '../../src/i18n/bundled'
import { sessionToMarkdown } from '../../src/thread/export'
import type { Message, Session } from '../../src/wire/types'

const session: Session = { id: 's', title: 'Steps', status: 'idle', created_at: 0, updated_at: 0 }
const messages: Message[] = [
  { id: 'op', session_id: 's', role: 'operator', content: 'find it', created_at: 0, superseded: false },
  {
    id: 'r',
    session_id: 's',
    role: 'agent',
    content: 'Found it.',
    created_at: 0,
    superseded: false,
    reply_to: 'op',
    status: 'complete',
    parts: [
      { type: 'reasoning', text: 'look in the docs' },
      { type: 'tool', tool_call_id: 't1', name: 'search_docs', effect: 'read', input: '{"q":"<b>x</b>"}', status: 'done', output: 'hit ``` one', started_at: 0, ended_at: 1 },
      { type: 'tool', tool_call_id: 't2', name: 'write_file', effect: 'write', input: '{}', status: 'failed', error: { code: 'tool_failed', message: 'disk full' }, started_at: 0 },
      { type: 'text', text: 'Found it.' },
    ],
  },
]

describe('sessionToMarkdown with steps', () => {
  it('writes each step in order, folded, and the answer after them', () => {
    const { t } = createI18n({ lng: 'en' })
    const md = sessionToMarkdown(t, session, messages, 0, 'en')
    const order = ['<summary>Reasoning</summary>', 'look in the docs', '<summary>search_docs · read-only · Done</summary>', 'hit ``` one', 'write_file · writes · Failed', 'Found it.']
    let at = -1
    for (const piece of order) {
      const next = md.indexOf(piece, at + 1)
      expect(next, piece).toBeGreaterThan(at)
      at = next
    }
    // The output's own backticks stay inside its fence.
    expect(md).toContain('````\nhit ``` one\n````')
    // A tool's failure is worded from its code.
    expect(md).toContain('The tool failed.')
  })

  it('is worded in Chinese too', () => {
    const { t } = createI18n({ lng: 'zh' })
    const md = sessionToMarkdown(t, session, messages, 0, 'zh')
    expect(md).toContain('工具执行失败。')
    expect(md).not.toContain('<summary>Reasoning</summary>')
  })
})
