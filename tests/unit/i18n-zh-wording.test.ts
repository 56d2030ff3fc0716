/**
 * The Chinese tables keep one term per thing and read as written, not translated: the rules a
 * reviewer would otherwise have to re-check by eye on every change to locales/zh.
 */
import { describe, expect, it } from 'vitest'
import zhApp from '../../locales/zh/app.json'
import zhErrors from '../../locales/zh/errors.json'
import { createI18n } from '../../src/i18n/bundled'

/** Every string of a table, with its dotted key. */
function entries(table: unknown, prefix = ''): [string, string][] {
  if (typeof table === 'string') return [[prefix, table]]
  if (typeof table !== 'object' || table === null) return []
  return Object.entries(table).flatMap(([key, value]) => entries(value, prefix ? `${prefix}.${key}` : key))
}

const all = [...entries(zhApp), ...entries(zhErrors)]

describe('the Chinese word tables', () => {
  it.each([
    ['模型服务 is always 模型服务商, the provider', /模型服务(?!商)/],
    ['无法连接到, not 连不上', /连不上/],
    ['API 密钥, not 接口密钥', /接口密钥/],
    ['历史版本, not 早先版本', /早先/],
    ['numbers grouped as 32,000, never 32000', /\d{5,}/],
  ])('%s', (_rule, pattern) => {
    expect(all.filter(([, text]) => pattern.test(text)).map(([key]) => key)).toEqual([])
  })

  it('a retry box says 重试 at most twice: the attempt and Retry now', () => {
    const { retry, actions } = zhApp
    for (const line of [retry.countdown, retry.after, retry.dispatching, retry.watching]) {
      const box = [retry.attempt, line, actions.retryNow, actions.cancelRetry].join(' · ')
      expect(box.split('重试').length - 1, box).toBeLessThanOrEqual(2)
    }
  })

  it('the advice on an answer failure names 重新生成, the button that reply offers', () => {
    const answers = Object.entries(zhErrors.errors).filter(([code]) => code.startsWith('answer_'))
    for (const [code, text] of answers) {
      if (code === 'answer_too_long') continue // its advice is to ask differently, not to press a button
      expect(text, code).toContain('重新生成')
      expect(text, code).not.toContain('重试')
    }
  })

  it('the over-long hint groups its numbers as the content_too_long error does, in both languages', () => {
    const zh = createI18n({ lng: 'zh' })
    expect(zh.t('composer.tooLong', { count: 1234, max: 32000 })).toBe('超出 32,000 字的上限，请删减 1,234 字。')
    expect(zh.t('errors.content_too_long')).toContain('32,000')
    const en = createI18n({ lng: 'en' })
    expect(en.t('composer.tooLong', { count: 1234, max: 32000 })).toBe('1,234 characters over the limit of 32,000.')
    // One over is one character, not "1 characters".
    expect(en.t('composer.tooLong', { count: 1, max: 32000 })).toBe('1 character over the limit of 32,000.')
    expect(zh.t('composer.tooLong', { count: 1, max: 32000 })).toBe('超出 32,000 字的上限，请删减 1 字。')
    expect(en.t('errors.content_too_long')).toContain('32,000')
  })
})
