/**
 * Found while testing and fixed; this test keeps it so. What it was: the Markdown export turns raw HTML in a reply into markup. The wire says "raw HTML in a
 * reply is text, never markup" (daemon-wire.md, the event stream), and the app shows it as text,
 * but sessionToMarkdown (src/thread/export.ts, agentBody) writes a reply's content into the file
 * as it is. Wherever the file is rendered, a reply's `<img …>` or `<a …>` becomes an element, and
 * a reply (or an earlier version) containing `</details>` closes the folded block early, so the
 * versions after it spill out of it.
 *
 * Fix: in agentBody, escape the HTML the reply's Markdown holds before writing it: lex the
 * content with marked's lexer (already a dependency, see src/markdown/split-blocks.ts) and
 * write `html` tokens, block and inline, with `<` as `&lt;`; code spans and fences stay as they are.
 */
import { describe, expect, it } from 'vitest'
import { sessionToMarkdown } from '../../src/thread/export'
import type { Message, Session } from '../../src/wire/types'
import { wordsOf } from './session-helpers'

const AT = new Date(2026, 10, 30, 14, 0, 0).getTime()
const SESSION: Session = { id: 's', title: 'HTML in replies', status: 'idle', created_at: AT, updated_at: AT }
const base = { session_id: 's', created_at: AT, superseded: false }

const messages: Message[] = [
  { ...base, id: 'op', role: 'operator', content: 'Show me the tag', client_message_id: 'c' },
  { ...base, id: 'old', role: 'agent', reply_to: 'op', superseded: true, status: 'complete', content: 'Here it is: </details>\n\n<img src=x onerror=alert(1)>' },
  { ...base, id: 'new', role: 'agent', reply_to: 'op', status: 'complete', content: 'The tag is <b>bold</b>, and `<code>` stays code.' },
]

describe('the Markdown export and HTML in replies', () => {
  const md = sessionToMarkdown(wordsOf('en'), SESSION, messages, AT, 'en')

  it('keeps a reply’s HTML as text: no element would be made from it', () => {
    expect(md).not.toContain('<img ')
    expect(md).not.toContain('<b>')
    // Inside a code span it was text already, and stays exactly as written.
    expect(md).toContain('`<code>`')
  })

  it('folds every earlier version inside its <details> block, whatever the reply says', () => {
    expect(md.split('\n').filter((line) => line.includes('</details>'))).toEqual(['</details>'])
  })
})
