/**
 * The session's polite live region, as a screen reader hears it: every change of its text is
 * recorded (a MutationObserver on the region) and compared with the exact list, so an outcome
 * said twice, a tick spoken, or a failure and its countdown said back to back all fail here.
 */
import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Language } from '../../src/i18n/resources'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null })

const WORDS = {
  en: { message: 'Message', agent: 'Agent', stop: 'Stop', regenerate: 'Regenerate', cancelRetry: 'Cancel retry', sendAgain: 'Send again', replace: 'Replace' },
  zh: { message: '消息', agent: '智能体', stop: '停止', regenerate: '重新生成', cancelRetry: '取消', sendAgain: '重新发送', replace: '替换' },
} as const

/** What the region says, sentence by sentence, in each language. */
const SAID = {
  en: {
    rateLimited: 'Reply failed: Too many requests, so the model provider is rate limiting for now. It can be tried again once the limit lifts.',
    overloaded: 'Reply failed: The model provider is overloaded or down. This is usually temporary; try again shortly.',
    rejected: "Reply failed: The model provider refused the request. Check the daemon's API key and model settings.",
    retry1: ' Retry 1 in 2 seconds.',
    retry2: ' Retry 2 in 4 seconds.',
    complete: 'Reply complete.',
    stopped: 'Reply stopped.',
    regenerating: 'Regenerating the reply.',
    notSent: 'Message not sent. Send it again, or edit it.',
    cancelled: 'Automatic retry cancelled.',
  },
  zh: {
    rateLimited: '回复失败：请求过于频繁，模型服务商暂时限流。限流解除后即可重试。',
    overloaded: '回复失败：模型服务商繁忙或暂时不可用，通常很快就会恢复。请稍后重试。',
    rejected: '回复失败：模型服务商拒绝了这次请求。请检查守护进程的 API 密钥和模型配置。',
    retry1: '2 秒后进行第 1 次重试。',
    retry2: '4 秒后进行第 2 次重试。',
    complete: '回复已完成。',
    stopped: '回复已停止。',
    regenerating: '正在重新生成回复。',
    notSent: '消息未发送。可以重新发送或编辑。',
    cancelled: '已取消自动重试。',
  },
} as const satisfies Record<Language, Record<string, string>>

/** The one polite live region of the session (reply badges are not live regions). */
function liveRegion(): HTMLElement {
  const regions = screen.getAllByRole('status').filter((el) => el.getAttribute('aria-live') === 'polite')
  expect(regions).toHaveLength(1)
  return regions[0]!
}

/** Records every text the region takes, as a screen reader would hear it. */
function listen(): { said: string[]; stop: () => string[] } {
  const region = liveRegion()
  const said: string[] = []
  const observer = new MutationObserver(() => said.push(region.textContent ?? ''))
  observer.observe(region, { childList: true, characterData: true, subtree: true })
  return {
    said,
    stop: () => {
      observer.disconnect()
      return said
    },
  }
}

function lastAgentReply(lng: Language = 'en'): HTMLElement {
  const replies = screen.getAllByRole('article', { name: WORDS[lng].agent })
  return replies[replies.length - 1]!
}

/** The last reply's status, or undefined before there is one (safe inside advanceUntil). */
function lastStatus(lng: Language = 'en'): string | null | undefined {
  return screen.queryAllByRole('article', { name: WORDS[lng].agent }).at(-1)?.getAttribute('data-status')
}

async function send(text: string, lng: Language = 'en'): Promise<void> {
  await user().type(screen.getByRole('textbox', { name: WORDS[lng].message }), `${text}{Enter}`)
}

async function open(lng: Language = 'en', title?: string) {
  const sid = createSession(daemon, title)
  const view = renderChat(sid, { lng })
  await advance(10)
  return { sid, ...view }
}

describe.each(['en', 'zh'] as const)('a full rate_limited, overloaded, ok cycle (%s)', (lng) => {
  it('says each failure with its countdown in one sentence, then the reply complete, and nothing else', async () => {
    daemon.plan(['rate_limited', 'overloaded', 'ok'])
    await open(lng)
    const region = listen()
    await send('Summarise the logs', lng)
    await advanceUntil(() => document.querySelector('[data-retry="armed"]') !== null, 'the first countdown')
    // Every tick of both countdowns goes by: none is spoken.
    await advanceUntil(() => lastStatus(lng) === 'complete', 'the reply', 10_000)
    await advance(5_000)
    const w = SAID[lng]
    expect(region.stop()).toEqual([w.rateLimited + w.retry1, w.overloaded + w.retry2, w.complete])
    expect(liveRegion()).toHaveTextContent(w.complete)
  })
})

describe('each outcome once', () => {
  it('auth_failed: the failure worded from its code, once, with no countdown', async () => {
    daemon.plan(['auth_failed'])
    await open()
    const region = listen()
    await send('hi')
    await advance(5_000)
    expect(lastAgentReply()).toHaveAttribute('data-status', 'failed')
    expect(region.stop()).toEqual([SAID.en.rejected])
  })

  it('a reply that completes: "Reply complete." once, not per delta', async () => {
    daemon.plan(['ok'])
    await open()
    const region = listen()
    await send('hi')
    await advanceUntil(() => lastStatus() === 'complete', 'the reply')
    await advance(3_000)
    expect(region.stop()).toEqual([SAID.en.complete])
  })

  it.each(['en', 'zh'] as const)('Stop: "Reply stopped." once, and never a failure (%s)', async (lng) => {
    daemon.plan(['slow'])
    await open(lng)
    const region = listen()
    await send('Write a long report', lng)
    await advanceUntil(() => lastStatus(lng) === 'streaming', 'the stream')
    await user().click(within(lastAgentReply(lng)).getByRole('button', { name: WORDS[lng].stop }))
    await advanceUntil(() => lastStatus(lng) === 'cancelled', 'the stop')
    await advance(5_000)
    expect(region.stop()).toEqual([SAID[lng].stopped])
  })

  it('Regenerate by hand: "Regenerating the reply.", then its outcome', async () => {
    daemon.plan(['ok', 'ok'])
    await open()
    const region = listen()
    await send('hi')
    await advanceUntil(() => lastStatus() === 'complete', 'the reply')
    await advance(100)
    await user().click(within(lastAgentReply()).getByRole('button', { name: 'Regenerate' }))
    await advanceUntil(() => screen.queryByRole('button', { name: '1 earlier version' }) !== null, 'the new reply')
    await advanceUntil(() => lastStatus() === 'complete', 'the regenerated reply')
    await advance(3_000)
    expect(region.stop()).toEqual([SAID.en.complete, SAID.en.regenerating, SAID.en.complete])
  })

  it('Replace in the regenerate question: "Regenerating the reply." once', async () => {
    daemon.plan(['ok', 'ok', 'ok'])
    await open()
    await send('one')
    await advanceUntil(() => lastStatus() === 'complete', 'the first reply')
    await send('two')
    await advanceUntil(() => screen.getAllByRole('article', { name: 'Agent' }).length === 2 && lastStatus() === 'complete', 'the second reply')
    await advance(100)
    const region = listen()
    await user().click(within(screen.getAllByRole('article', { name: 'Agent' })[0]!).getByRole('button', { name: 'Regenerate' }))
    await user().click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Replace' }))
    await advanceUntil(() => screen.getAllByRole('article', { name: 'Agent' }).length === 1 && lastStatus() === 'complete', 'the new reply')
    await advance(3_000)
    expect(region.stop()).toEqual([SAID.en.regenerating, SAID.en.complete])
  })

  it('Cancel retry: "Automatic retry cancelled." once, and the armed countdown was said once', async () => {
    daemon.plan(['rate_limited'])
    await open()
    const region = listen()
    await send('hi')
    await advanceUntil(() => document.querySelector('[data-retry="armed"]') !== null, 'the countdown')
    await advance(500)
    await user().click(within(lastAgentReply()).getByRole('button', { name: 'Cancel retry' }))
    await advance(10_000)
    expect(region.stop()).toEqual([SAID.en.rateLimited + SAID.en.retry1, SAID.en.cancelled])
  })

  it('Cancel retry while the retry runs: the cancel is said, and its stopped run is not said again', async () => {
    daemon.plan(['rate_limited', 'hang'])
    await open()
    const region = listen()
    await send('hi')
    await advanceUntil(() => document.querySelector('[data-retry="armed"]') !== null, 'the countdown')
    await user().click(within(lastAgentReply()).getByRole('button', { name: 'Retry now' }))
    await advanceUntil(() => document.querySelector('[data-retry="watching"]') !== null && lastStatus() === 'streaming', 'the retry running')
    await user().click(within(lastAgentReply()).getByRole('button', { name: 'Cancel retry' }))
    await advanceUntil(() => lastStatus() === 'cancelled', 'the run stopped')
    await advance(5_000)
    expect(region.stop()).toEqual([SAID.en.rateLimited + SAID.en.retry1, SAID.en.cancelled])
  })

  it.each(['en', 'zh'] as const)('a send parked as not sent: said once; Send again then lands and its reply completes (%s)', async (lng) => {
    daemon.plan(['ok'])
    await open(lng)
    // Both attempts of the send are lost in transit and history has no trace of it: parked.
    let lost = 2
    server.use(
      http.post('*/api/v1/sessions/:sid/messages', ({ request }) => {
        if (lost <= 0) return undefined
        lost--
        daemon.record(request.method, request.url)
        return HttpResponse.error()
      }),
    )
    const region = listen()
    await send('hello', lng)
    await advanceUntil(() => screen.queryByRole('button', { name: WORDS[lng].sendAgain }) !== null, 'the parked send')
    await advance(1_000)
    expect([...region.said]).toEqual([SAID[lng].notSent])
    // The refusal-free "not sent" is no alert: nothing needs an answer this instant.
    expect(screen.queryByRole('alert')).toBeNull()
    await user().click(screen.getByRole('button', { name: WORDS[lng].sendAgain }))
    await advanceUntil(() => screen.queryAllByRole('article', { name: WORDS[lng].agent }).length === 1 && lastStatus(lng) === 'complete', 'the reply')
    await advance(1_000)
    expect(region.stop()).toEqual([SAID[lng].notSent, SAID[lng].complete])
  })

  it('a session opened with ended replies and a parked failure says nothing of them', async () => {
    daemon.plan(['ok', 'auth_failed'])
    const sid = createSession(daemon)
    daemon.send(sid, { content: 'one', client_message_id: 'c-1' })
    await advance(2_000)
    daemon.send(sid, { content: 'two', client_message_id: 'c-2' })
    await advance(2_000)
    expect(daemon.state().messages.filter((m) => m.role === 'agent').map((m) => m.status)).toEqual(['complete', 'failed'])
    renderChat(sid)
    await advance(10)
    const region = listen()
    await advance(5_000)
    expect(screen.getAllByRole('article', { name: 'Agent' })).toHaveLength(2)
    expect(region.stop()).toEqual([])
    expect(liveRegion()).toHaveTextContent(/^$/)
  })

  it('tier 1: each wait once, then the reply complete', async () => {
    daemon.plan(['tier1:2'])
    await open()
    const region = listen()
    await send('hi')
    await advanceUntil(() => lastStatus() === 'complete', 'the reply', 10_000)
    await advance(2_000)
    const wait = (attempt: number) => `The model provider is overloaded. The daemon is retrying, attempt ${attempt} of 3. Stop ends it.`
    expect(region.stop()).toEqual([wait(2), wait(3), SAID.en.complete])
  })

  it('a session opened on a failure that arms: the countdown is said once, the failure it answers is not', async () => {
    daemon.plan(['rate_limited', 'hang'])
    const sid = createSession(daemon)
    daemon.send(sid, { content: 'hi', client_message_id: 'c-1' })
    await advance(50)
    renderChat(sid)
    await advance(10)
    const region = liveRegion()
    const said: string[] = [region.textContent ?? '']
    const observer = new MutationObserver(() => said.push(region.textContent ?? ''))
    observer.observe(region, { childList: true, characterData: true, subtree: true })
    await advance(1_500)
    observer.disconnect()
    expect(said.filter(Boolean)).toEqual(['Reply failed. Retry 1 in 2 seconds.'])
  })

  it('the same words twice in a row are a new announcement each time', async () => {
    daemon.plan(['ok', 'ok'])
    await open()
    const region = liveRegion()
    const nodes: Node[] = []
    const observer = new MutationObserver((records) => {
      for (const record of records) nodes.push(...record.addedNodes)
    })
    observer.observe(region, { childList: true })
    await send('one')
    await advanceUntil(() => lastStatus() === 'complete', 'the first reply')
    await send('two')
    await advanceUntil(() => screen.getAllByRole('article', { name: 'Agent' }).length === 2 && lastStatus() === 'complete', 'the second reply')
    await act(async () => {})
    observer.disconnect()
    // Two nodes, each "Reply complete.": a screen reader hears the second one too.
    expect(nodes.map((n) => n.textContent)).toEqual([SAID.en.complete, SAID.en.complete])
  })
})
