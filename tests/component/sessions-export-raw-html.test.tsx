/**
 * The Markdown export keeps raw HTML in a reply as text, as the app shows it ("raw HTML in a reply
 * is text, never markup", daemon-wire.md, the event stream): wherever the file is rendered, a
 * reply's `<img …>` or `<a …>` makes no element, and a `</details>` in a reply (or an earlier
 * version) cannot close the folded block early and spill the versions after it.
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
