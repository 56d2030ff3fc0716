import type { Message, MessagePage } from '../../src/wire/types'

/**
 * A page of `history` as the daemon serves `GET …/messages?limit=N[&before=S|&after=S]`: by seq,
 * oldest first, with `has_more`. Messages without a seq are numbered by their place (1, 2, …).
 */
export function pageOf(history: readonly Message[], { limit, before, after }: { limit?: number; before?: number; after?: number }): MessagePage {
  const numbered = history.map((m, i) => (m.seq === undefined ? { ...m, seq: i + 1 } : m))
  if (after !== undefined) {
    const rest = numbered.filter((m) => (m.seq as number) > after)
    const messages = limit === undefined ? rest : rest.slice(0, limit)
    return { messages, has_more: messages.length < rest.length, skipped: 0 }
  }
  const upTo = before === undefined ? numbered : numbered.filter((m) => (m.seq as number) < before)
  const messages = limit === undefined ? upTo : upTo.slice(Math.max(0, upTo.length - limit))
  return { messages, has_more: messages.length < upTo.length, skipped: 0 }
}
