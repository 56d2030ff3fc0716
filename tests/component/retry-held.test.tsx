/**
 * Tier 2 held, in the chat view against the mock daemon: a reply whose `write_file` ran and then
 * failed retryable (`write_then_fail`) arms held — the box says which tool a retry would run
 * again, nothing counts down and nothing regenerates however long the page waits; Retry now
 * regenerates once, Cancel retry cancels; the live region says it once; in en and zh.
 */
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Language } from '../../src/i18n/resources'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })
const MINUTE = 60_000

const WORDS = {
  en: {
    message: 'Message',
    agent: 'Agent',
    retryNow: 'Retry now',
    cancelRetry: 'Cancel retry',
    regenerate: 'Regenerate',
    held: 'Retrying would run write_file again, which changes things. Retry now to regenerate.',
    said: 'Reply failed: The model provider is overloaded or down. This is usually temporary; try again shortly. Retrying would run write_file again: waiting for you.',
    cancelled: 'Automatic retry cancelled. You can regenerate by hand.',
  },
  zh: {
    message: '消息',
    agent: '智能体',
    retryNow: '立即重试',
    cancelRetry: '取消',
    regenerate: '重新生成',
    held: '重新生成会再次运行 write_file（会修改内容），因此不会自动开始。确认后请点击“立即重试”。',
    said: '回复失败：模型服务商繁忙或暂时不可用，通常很快就会恢复。请稍后重试。重新生成会再次运行 write_file，正在等你确认。',
    cancelled: '已取消自动重试，可以手动重新生成。',
  },
} as const satisfies Record<Language, Record<string, string>>

const regenerates = () => daemon.state().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/regenerate'))
/** How many times `write_file` ran on the daemon, over every reply (superseded ones included). */
const writeRuns = () =>
  daemon
    .state()
    .messages.flatMap((m) => m.parts ?? [])
    .filter((p) => p.type === 'tool' && p.name === 'write_file' && p.status !== 'input' && p.status !== 'awaiting_approval' && p.status !== 'denied').length

function lastAgentReply(lng: Language): HTMLElement {
  const replies = screen.getAllByRole('article', { name: WORDS[lng].agent })
  return replies[replies.length - 1]!
}

const lastStatus = (lng: Language) => screen.queryAllByRole('article', { name: WORDS[lng].agent }).at(-1)?.getAttribute('data-status')
const retryBlock = (lng: Language) => lastAgentReply(lng).querySelector<HTMLElement>('[data-retry]')

/** The session's one polite live region. */
function liveRegion(): HTMLElement {
  const regions = screen.getAllByRole('status').filter((el) => el.getAttribute('aria-live') === 'polite')
  expect(regions).toHaveLength(1)
  return regions[0]!
}

/** Sends a message whose reply runs `write_file` and then fails retryable, and waits for the failure. */
async function failAfterWrite(lng: Language, plan: string[] = ['write_then_fail']) {
  daemon.plan(plan)
  const sid = createSession(daemon)
  renderChat(sid, { lng })
  await advance(10)
  const region = liveRegion()
  const said: string[] = []
  const observer = new MutationObserver(() => said.push(region.textContent ?? ''))
  observer.observe(region, { childList: true, characterData: true, subtree: true })
  await user().type(screen.getByRole('textbox', { name: WORDS[lng].message }), 'Save the summary{Enter}')
  await advanceUntil(() => lastStatus(lng) === 'failed', 'the failed reply')
  await advance(50)
  return { said, stopListening: () => observer.disconnect() }
}

describe.each(['en', 'zh'] as const)('a failed reply whose write_file ran (%s)', (lng) => {
  const w = WORDS[lng]

  it('shows the held box, says it once, and never regenerates by itself', async () => {
    const { said, stopListening } = await failAfterWrite(lng)
    expect(writeRuns()).toBe(1)
    const block = retryBlock(lng)!
    expect(block).toHaveAttribute('data-retry', 'held')
    expect(block.querySelector('.retry__line')!.textContent).toBe(w.held)
    expect(within(block).getByRole('button', { name: w.retryNow })).toBeInTheDocument()
    expect(within(block).getByRole('button', { name: w.cancelRetry })).toBeInTheDocument()
    // The scheduler owns the reply: its own Retry now is the way, not a second Regenerate.
    expect(within(lastAgentReply(lng)).queryByRole('button', { name: w.regenerate })).toBeNull()

    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(0)
    expect(writeRuns()).toBe(1)
    expect(retryBlock(lng)).toHaveAttribute('data-retry', 'held')
    expect(retryBlock(lng)!.querySelector('.retry__line')!.textContent).toBe(w.held)
    stopListening()
    expect(said).toEqual([w.said])
  })

  it('Retry now regenerates once, and the new reply completes', async () => {
    await failAfterWrite(lng, ['write_then_fail', 'plain'])
    await user().click(within(retryBlock(lng)!).getByRole('button', { name: w.retryNow }))
    await advance(0)
    expect(regenerates()).toHaveLength(1)
    await advanceUntil(() => lastStatus(lng) === 'complete', 'the regenerated reply')
    expect(retryBlock(lng)).toBeNull()
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(1)
  })

  it('Cancel retry cancels: Regenerate is back and nothing is sent', async () => {
    await failAfterWrite(lng)
    await user().click(within(retryBlock(lng)!).getByRole('button', { name: w.cancelRetry }))
    await advance(0)
    expect(retryBlock(lng)).toHaveAttribute('data-retry', 'cancelled')
    expect(retryBlock(lng)!.querySelector('.retry__line')!.textContent).toBe(w.cancelled)
    expect(within(lastAgentReply(lng)).getByRole('button', { name: w.regenerate })).toBeInTheDocument()
    await advance(10 * MINUTE)
    expect(regenerates()).toHaveLength(0)
    expect(writeRuns()).toBe(1)
  })
})
