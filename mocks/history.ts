/**
 * History in pages (`shared/design/daemon-wire.md`, "History in pages"): a page of a session's
 * messages by `seq`, and find-in-session. Pure functions of the session's messages, oldest first;
 * the daemon checks the query before it calls them.
 */
import type { Message, SearchHit } from '../src/wire/types'

/** The newest `limit` messages, or the `limit` before `seq` `before`, or the ones after `after` (all of them without a limit). */
export type PageQuery = { limit?: number; before?: number; after?: number }

export function pageOf(messages: readonly Message[], { limit, before, after }: PageQuery): { messages: Message[]; has_more: boolean } {
  const seqOf = (m: Message) => m.seq ?? 0
  if (after !== undefined) {
    const later = messages.filter((m) => seqOf(m) > after)
    const page = limit === undefined ? later : later.slice(0, limit)
    return { messages: page, has_more: page.length < later.length }
  }
  const earlier = before === undefined ? messages : messages.filter((m) => seqOf(m) < before)
  const size = limit ?? earlier.length
  return { messages: earlier.slice(Math.max(0, earlier.length - size)), has_more: earlier.length > size }
}

/** Characters of context on each side of a match in a snippet. */
const SNIPPET_CONTEXT = 40

/** The texts of a message a search reads: its content, and its reasoning, tool names and tool inputs. */
function searchable(message: Message): string[] {
  const texts = [message.content]
  for (const part of message.parts ?? []) {
    if (part.type === 'reasoning') texts.push(part.text)
    else if (part.type === 'tool') texts.push(part.name, part.input)
  }
  return texts
}

function snippetOf(text: string, index: number, length: number): string {
  // Twice the context in UTF-16 units holds the context in code points, so a 200 KiB input is never split whole.
  const beforePoints = Array.from(text.slice(Math.max(0, index - 2 * SNIPPET_CONTEXT), index))
  const end = index + length
  const afterPoints = Array.from(text.slice(end, end + 2 * SNIPPET_CONTEXT))
  const before = beforePoints.slice(-SNIPPET_CONTEXT).join('')
  const after = afterPoints.slice(0, SNIPPET_CONTEXT).join('')
  const head = index > before.length ? '…' : ''
  const tail = end + after.length < text.length ? '…' : ''
  return `${head}${before}${text.slice(index, end)}${after}${tail}`.replace(/\s+/g, ' ')
}

/** The first `limit` messages, oldest first, whose text holds `q` in any case, each with a snippet around its first match. */
export function searchOf(messages: readonly Message[], q: string, limit: number): { hits: SearchHit[]; has_more: boolean } {
  const pattern = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'iu')
  const hits: SearchHit[] = []
  for (const message of messages) {
    for (const text of searchable(message)) {
      const match = pattern.exec(text)
      if (!match) continue
      if (hits.length === limit) return { hits, has_more: true }
      hits.push({ message_id: message.id, seq: message.seq ?? 0, snippet: snippetOf(text, match.index, match[0].length) })
      break
    }
  }
  return { hits, has_more: false }
}
