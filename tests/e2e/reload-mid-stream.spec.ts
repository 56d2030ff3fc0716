import { agentReplies, daemonState, expect, FIXED_NOW, newSession, openApp, operatorMessages, replyBody, replySource, seenStatuses, sendMessage, test } from './fixtures'

test('a reload in the middle of a reply picks the stream up again and ends with the full text', async ({ page }) => {
  // The page's clock flows from a fixed time; once the reattached stream is seen moving, the rest
  // of the slow reply (a delta every 300 ms) is run through with `runFor` instead of waited for.
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page, { faults: ['slow'] })
  const sessionId = await newSession(page)
  await sendMessage(page, 'Explain the retry policy in detail')

  const reply = agentReplies(page)
  await expect(reply).toHaveAttribute('data-status', 'streaming')
  await expect.poll(async () => (await replyBody(reply).innerText()).length).toBeGreaterThan(20)
  const before = await replyBody(reply).innerText()

  await page.reload()
  expect(new URL(page.url()).pathname).toBe(`/sessions/${sessionId}`)

  // The same reply carries on: the operator message once, one reply, still streaming, then done.
  await expect(operatorMessages(page)).toHaveCount(1)
  await expect(agentReplies(page)).toHaveCount(1)
  // The reply is still live after the reload, and carries on from where it was.
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'streaming')
  await expect.poll(async () => (await replyBody(agentReplies(page)).innerText()).length).toBeGreaterThan(before.length)
  await page.clock.runFor(30_000)
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  expect(await seenStatuses(page)).toContain('streaming')

  const state = await daemonState(page)
  expect(state.runs.map((r) => r.status)).toEqual(['completed'])
  const stored = state.messages.find((m) => m.role === 'agent')
  const full = stored?.content ?? ''
  expect(full.length).toBeGreaterThan(before.length)
  // Nothing lost and nothing doubled across the reattach: the reply's source is the daemon's text.
  expect(await replySource(page, agentReplies(page))).toBe(full)
})
