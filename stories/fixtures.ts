/**
 * Shared story data: a fixed clock, wire records and sample text in both interface languages.
 * Nothing here reads the real time, so a story looks the same today, tomorrow and in the suite.
 */
import type { TFunction } from 'i18next'
import { createI18n } from '../src/i18n/bundled'
import type { Message, Session } from '../src/wire/types'

/** The stories' "now": 30 November 2026, 14:05:00 local time (a local date, so HH:MM reads 14:05 in any zone). */
export const FIXED_NOW = new Date(2026, 10, 30, 14, 5, 0).getTime()

/** Sample conversation text, written in each interface language. */
export const SAMPLE = {
  question: {
    en: 'Summarise the deploy log from last night and list anything that failed.',
    zh: '总结一下昨晚的部署日志，并列出所有失败的步骤。',
  },
  answer: {
    en: 'The deploy finished at 02:14. Two health checks failed on the first try and passed on the second; nothing else failed.',
    zh: '部署于 02:14 完成。有两项健康检查第一次失败、第二次通过，其余步骤都没有失败。',
  },
  followUp: {
    en: 'Which of those checks should get a longer timeout?',
    zh: '这些检查里，哪些应该调高超时时间？',
  },
  deploySession: { en: 'Deploy log, 30 Nov', zh: '11 月 30 日部署日志' },
  releaseSession: { en: 'Release notes for 4.2', zh: '4.2 版发布说明' },
  longSession: {
    en: 'A very long session title that goes on past the width of the side panel and has to be cut',
    zh: '一个很长的会话标题，长到超出了侧栏的宽度，只能截断显示，后面的文字看不到',
  },
  partial: {
    en: 'The deploy finished at 02:14. Two health checks failed on the',
    zh: '部署于 02:14 完成。有两项健康检查第一次',
  },
  earlierFirst: {
    en: 'The deploy log is long; here are the first 200 lines, unsummarised.',
    zh: '部署日志很长，下面是前 200 行，尚未总结。',
  },
  long: {
    en: [
      'Here is the deploy, step by step.',
      '',
      '1. 01:58 — the build started on runner 3 and restored its cache in 41 s.',
      '2. 02:03 — the database migration ran 12 statements and took 1 min 12 s; none were rolled back.',
      '3. 02:06 — the first health check on api-2 timed out after 30 s. The load balancer kept api-2 out of rotation, as configured.',
      '4. 02:07 — the second health check on api-2 passed. The same pattern repeated on worker-1 at 02:09.',
      '5. 02:14 — the deploy was marked complete and the previous release was kept for rollback.',
      '',
      'Nothing failed for good. The two timeouts line up with the cache warm-up after the migration: the first request to each node loads the new schema, and that takes longer than the health check allows. Raising the health check timeout to 45 s, or warming the cache before the check, would stop the noise. A very long unbroken identifier from the log, to check wrapping: release-2026-11-30T02:14:00Z-4f9c2a7e1b3d5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4.',
    ].join('\n'),
    zh: [
      '下面按步骤说明这次部署。',
      '',
      '1. 01:58 —— 构建在 3 号执行器上开始，用 41 秒恢复了缓存。',
      '2. 02:03 —— 数据库迁移执行了 12 条语句，耗时 1 分 12 秒，没有回滚。',
      '3. 02:06 —— api-2 的第一次健康检查在 30 秒后超时。负载均衡按配置把 api-2 移出了轮询。',
      '4. 02:07 —— api-2 的第二次健康检查通过。02:09 时 worker-1 上出现了同样的情况。',
      '5. 02:14 —— 部署标记为完成，上一个版本保留以便回滚。',
      '',
      '没有真正失败的步骤。两次超时都与迁移之后的缓存预热有关：每个节点的第一个请求要加载新的表结构，耗时超过了健康检查的上限。把健康检查超时提高到 45 秒，或在检查前先预热缓存，就不会再有这些告警。日志里有一个很长、不带空格的标识符，用来检查换行：release-2026-11-30T02:14:00Z-4f9c2a7e1b3d5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4。',
    ].join('\n'),
  },
} as const

export type SampleKey = keyof typeof SAMPLE

/** Sample text in the story's locale (the `locale` global); English for anything but `zh`. */
export function sample(key: SampleKey, locale: unknown): string {
  return SAMPLE[key][locale === 'zh' ? 'zh' : 'en']
}

/**
 * The sample text in the story's locale when `text` is one of the English samples; any other
 * text (typed into Controls, daemon text, markup-like text) is shown exactly as given.
 */
export function localized(text: string, locale: unknown): string {
  if (locale !== 'zh') return text
  const key = (Object.keys(SAMPLE) as SampleKey[]).find((k) => SAMPLE[k].en === text)
  return key ? SAMPLE[key].zh : text
}

/** A message with its sample text in the story's locale. */
export function localizedMessage(message: Message, locale: unknown): Message {
  return { ...message, content: localized(message.content, locale) }
}

const SESSION_ID = 'ses_story'

/** An agent reply as history holds it; complete unless `overrides` say otherwise. */
export function agentReply(overrides: Partial<Message> = {}): Message {
  return {
    id: 'msg_ag1',
    session_id: SESSION_ID,
    role: 'agent',
    content: SAMPLE.answer.en,
    created_at: FIXED_NOW - 55_000,
    superseded: false,
    reply_to: 'msg_op1',
    run_id: 'run_1',
    status: 'complete',
    ...overrides,
  }
}

/** A session record. */
export function session(id: string, title: string, overrides: Partial<Session> = {}): Session {
  return { id, title, status: 'idle', created_at: FIXED_NOW - 3_600_000, updated_at: FIXED_NOW - 60_000, ...overrides }
}

/**
 * The word function of the story's locale (the `locale` global), for play functions that check
 * what the operator reads in either language. Its own i18next instance, in the same language as
 * the story's.
 */
export function wordsFor(locale: unknown): TFunction {
  return createI18n({ lng: locale === 'zh' ? 'zh' : 'en' }).t
}
