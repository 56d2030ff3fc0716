/**
 * Every code of the wire's error table, as an `error` frame on a new stream, is worded from the
 * table of the interface language (the daemon's English sentence is not shown), with the code in
 * small print. In Chinese no English sentence gets through.
 */
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { failureForCode } from '../../mocks/faults'
import { resources } from '../../src/i18n/bundled'
import { type Language } from '../../src/i18n/resources'
import { ERROR_CODES } from '../../src/wire/types'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const words = (lng: Language) => resources[lng].translation

function agentReplies(lng: Language): HTMLElement[] {
  return screen.queryAllByRole('article', { name: words(lng).transcript.agent })
}

/** Sends one message in a fresh session whose run fails with `code`, and returns the failed reply. */
async function failWith(code: string, lng: Language): Promise<HTMLElement> {
  daemon.plan([`code:${code}`])
  renderChat(createSession(daemon, lng === 'zh' ? '错误码' : 'Codes'), { lng })
  await advance(10)
  const box = screen.getByRole('textbox', { name: words(lng).composer.label })
  await userEvent.setup({ delay: null }).type(box, lng === 'zh' ? '你好{Enter}' : 'hi{Enter}')
  await advanceUntil(() => agentReplies(lng).at(-1)?.getAttribute('data-status') === 'failed', `the reply to fail with ${code}`)
  // Let the history read that follows the terminal frame land too: what stays on screen counts.
  await advance(30)
  const replies = agentReplies(lng)
  expect(replies).toHaveLength(1)
  expect(replies[0]).toHaveAttribute('data-status', 'failed')
  return replies[0]!
}

function noticeOf(reply: HTMLElement) {
  const notice = reply.querySelector(':scope > .failure')
  expect(notice, 'the failed reply shows a failure notice').not.toBeNull()
  return {
    text: notice!.querySelector('.failure__text')?.textContent,
    codeLine: notice!.querySelector('.failure__code')?.textContent,
    all: notice!.textContent ?? '',
  }
}

describe.each(['en', 'zh'] as const)('an error frame in %s', (lng) => {
  it.each(ERROR_CODES)('words %s from the table, with the code in small print', async (code) => {
    const reply = await failWith(code, lng)
    const { text, codeLine, all } = noticeOf(reply)
    expect(text).toBe(words(lng).errors[code])
    expect(codeLine).toBe(lng === 'zh' ? `错误码：${code}` : `Code: ${code}`)
    if (lng === 'zh') {
      // The daemon's English sentence is for logs, never for a Chinese operator.
      expect(all).not.toContain(failureForCode(code).message)
      expect(all).toMatch(/[\u4e00-\u9fff]/)
      // "API" (API 密钥) is how Chinese developer tools write it; no other Latin word belongs here.
      const english = all.replaceAll(code, '').replaceAll('API', '').match(/[A-Za-z]{3,}/g) ?? []
      expect(english, `English in the Chinese failure for ${code}: ${all}`).toEqual([])
    }
  })
})
