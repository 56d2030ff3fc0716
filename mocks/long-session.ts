/**
 * A long session to try history in pages with (`npm run daemon -- --long-session 10000`, or
 * `?long=500` with the in-browser mock daemon): an
 * operator's weeks of questions about one service, in English with one in eight in Chinese, and
 * the agent's replies as the mock writes them live (reasoning, tool calls, Markdown with code and
 * tables). Every hundredth exchange was regenerated once, so its first reply is an earlier
 * version. Only the very first message holds the word `Lodestar`: find it from the newest page.
 */
import type { FilledExchange, MockDaemon } from './model'
import { seeded } from './replies'

/** The word only the first exchange holds (its message and the reply that quotes it). */
export const FIRST_WORD = 'Lodestar'
/** The most messages a long session may have: 20,000 are written in about 1.5 s and hold about 300 MB of the daemon's memory. */
export const MAX_LONG_SESSION = 20_000
/** Minutes between two exchanges. */
const SPACING_MIN = 7

const EN_ASKS = [
  'How should the {thing} handle {trouble}?',
  'Why does the {thing} fail with {trouble} after a deploy?',
  'Can you check the {thing} logs for {trouble} since yesterday?',
  'Write a test for the {thing} that reproduces {trouble}.',
  'What would change in the {thing} if we retried on {trouble}?',
  'Summarise what we know about {trouble} in the {thing}.',
  'Is {trouble} in the {thing} something the provider does, or us?',
  'Draft a runbook entry for {trouble} in the {thing}.',
]
const EN_THINGS = ['billing worker', 'stream reader', 'retry scheduler', 'session store', 'webhook relay', 'search index', 'token meter', 'deploy pipeline']
const EN_TROUBLES = ['rate limits', 'a 503 from the provider', 'timeouts under load', 'duplicate sends', 'a stale cache', 'clock skew', 'a full disk', 'lost connections']
const ZH_ASKS = ['{thing}遇到{trouble}时应该怎么处理？', '为什么部署之后{thing}会出现{trouble}？', '帮我查一下{thing}从昨天起关于{trouble}的日志。', '给{thing}写一个能复现{trouble}的测试。']
const ZH_THINGS = ['计费服务', '流读取器', '重试调度器', '会话存储']
const ZH_TROUBLES = ['限流', '服务商返回 503', '高负载下超时', '重复发送']

/** Replies with agent steps of several kinds, and text-only ones; every outcome here ends by itself. */
const OUTCOMES = ['ok', 'ok', 'plain', 'tools:2', 'ok', 'tools:3', 'plain', 'tool_fail', 'approval:auto', 'ok']

/** Messages in a session of `count` exchanges: two each, and the earlier version of every hundredth. */
const messagesOf = (count: number) => 2 * count + Math.floor(Math.max(0, count - 1) / 100)

/** The exchanges of a session of `messages` messages (one fewer when that cannot be), the last ending near `endAt`. */
export function longSessionExchanges(messages: number, endAt: number): FilledExchange[] {
  let count = Math.max(1, Math.floor(messages / 2))
  while (count > 1 && messagesOf(count) > messages) count--
  // One short: the first reply was regenerated too.
  const extra = messages - messagesOf(count)
  const r = seeded(29)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T
  const exchanges: FilledExchange[] = []
  for (let i = 0; i < count; i++) {
    const chinese = i % 8 === 5
    const ask = (chinese ? pick(ZH_ASKS) : pick(EN_ASKS)).replace('{thing}', chinese ? pick(ZH_THINGS) : pick(EN_THINGS)).replace('{trouble}', chinese ? pick(ZH_TROUBLES) : pick(EN_TROUBLES))
    const content = i === 0 ? `Project ${FIRST_WORD} starts today. ${ask}` : `${ask} (#${i + 1})`
    exchanges.push({
      content,
      at: endAt - (count - i) * SPACING_MIN * 60_000,
      outcome: pick(OUTCOMES),
      ...((i > 0 && i % 100 === 0) || (i === 0 && extra > 0) ? { regenerations: 1 } : {}),
    })
  }
  return exchanges
}

/** Creates the long session in `daemon` and fills it (at most `max` messages); returns its id, title and message count. */
export function seedLongSession(daemon: MockDaemon, messages: number, max = MAX_LONG_SESSION): { id: string; title: string; messages: number } {
  if (!Number.isInteger(messages) || messages < 2 || messages > max) {
    throw new Error(`A long session has 2 to ${max.toLocaleString('en-US')} messages, not ${messages}.`)
  }
  const exchanges = longSessionExchanges(messages, daemon.now())
  const total = exchanges.reduce((sum, e) => sum + 2 + (e.regenerations ?? 0), 0)
  const created = daemon.createSession({ title: `A long session (${total.toLocaleString('en-US')} messages)` })
  if (!created.ok) throw new Error(created.refusal.body.error)
  const { id, title } = created.value
  daemon.fill(id, exchanges)
  return { id, title, messages: total }
}
