import { agentReplies, daemonState, expect, FIXED_NOW, newSession, openApp, operatorMessages, replySource, requestLog, runClockUntil, sendMessage, test, statusBadge } from './fixtures'

const REGENERATE = /^POST \/api\/v1\/sessions\/[^/]+\/messages\/[^/]+\/regenerate$/

test('Regenerate: the last reply at once; an earlier one asks first and keeps what it replaced readable', async ({ page }) => {
  await openApp(page)
  await newSession(page)
  await sendMessage(page, 'First question about disks')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await sendMessage(page, 'Second question about memory')
  await expect(agentReplies(page)).toHaveCount(2)
  await expect(agentReplies(page).nth(1)).toHaveAttribute('data-status', 'complete')

  // The last reply replaces only itself: no question asked.
  const last = agentReplies(page).nth(1)
  await last.getByRole('button', { name: 'Regenerate' }).click()
  await expect(page.getByRole('alertdialog')).toHaveCount(0)
  await expect(last.getByRole('button', { name: '1 earlier version' })).toBeVisible()
  await expect(last).toHaveAttribute('data-status', 'complete')
  expect(await requestLog(page, REGENERATE)).toHaveLength(1)

  // The first reply would replace the operator's second message too (itself, that message and its
  // reply: 3): asked first, and "Keep them" keeps them.
  const first = agentReplies(page).first()
  await first.getByRole('button', { name: 'Regenerate' }).click()
  const dialog = page.getByRole('alertdialog', { name: 'Regenerate from here?' })
  await expect(dialog).toContainText('This replaces 3 messages after this point.')
  await expect(dialog.getByRole('button', { name: 'Keep them' })).toBeFocused()
  await dialog.getByRole('button', { name: 'Keep them' }).click()
  await expect(dialog).toHaveCount(0)
  expect(await requestLog(page, REGENERATE)).toHaveLength(1)

  await first.getByRole('button', { name: 'Regenerate' }).click()
  await dialog.getByRole('button', { name: 'Replace' }).click()
  await expect(operatorMessages(page)).toHaveCount(1)
  await expect(agentReplies(page)).toHaveCount(1)
  const reply = agentReplies(page)
  await expect(reply).toHaveAttribute('data-status', 'complete')
  expect(await requestLog(page, REGENERATE)).toHaveLength(2)

  // What was replaced is still there to read, the operator's own message included.
  await reply.getByRole('button', { name: '1 earlier version' }).click()
  const earlier = reply.locator('.earlier')
  await expect(earlier).toContainText('Second question about memory')
  const state = await daemonState(page)
  const oldFirst = state.messages.find((m) => m.role === 'agent' && m.superseded && m.reply_to === state.messages[0]?.id)
  // The earlier version reads as it was written: its Copy gives its Markdown source back.
  expect(await replySource(page, earlier.locator('.earlier__item').first())).toBe(oldFirst?.content ?? '(missing)')
  expect(state.messages.filter((m) => m.role === 'operator')).toHaveLength(2)
  expect(state.messages.filter((m) => !m.superseded).map((m) => m.role)).toEqual(['operator', 'agent'])
})

test('a queued reply waits its turn behind a running one, then streams', async ({ page }) => {
  await openApp(page, { faults: ['slow'] })
  await newSession(page)
  await sendMessage(page, 'Start the long job')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'streaming')
  await sendMessage(page, 'And then the short one')
  const second = agentReplies(page).nth(1)
  await expect(second).toHaveAttribute('data-status', 'queued')
  await expect(statusBadge(second)).toHaveText('Queued, 1 ahead')
  // Stopping the first lets the second go at once.
  await agentReplies(page).first().getByRole('button', { name: 'Stop' }).click()
  await expect(agentReplies(page).first()).toHaveAttribute('data-status', 'cancelled')
  await expect(second).toHaveAttribute('data-status', 'complete')
  expect((await daemonState(page)).runs.map((r) => r.status)).toEqual(['cancelled', 'completed'])
})

test('drop and lag: the stream is reattached and the reply completes with nothing lost or doubled', async ({ page }) => {
  // The page's clock holds the mock daemon's runs still until the client is attached: on a loaded
  // machine a short reply could otherwise end before the client asks for its events, and be read
  // whole from the log with no connection to break.
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page, { faults: ['drop', 'lag'] })
  await newSession(page)
  await page.clock.pauseAt(FIXED_NOW.getTime() + 10 * 60_000)
  const streamsOpened = async () => (await requestLog(page, /^GET .*\/events$/)).length
  const settle = async (count: number) => {
    await runClockUntil(page, async () => (await agentReplies(page).count()) === count && (await agentReplies(page).nth(count - 1).getAttribute('data-status')) === 'complete')
  }
  await sendMessage(page, 'A reply whose connection drops')
  await expect.poll(streamsOpened).toBe(1)
  await settle(1)
  await sendMessage(page, 'A reply whose connection lags')
  await expect.poll(streamsOpened).toBe(3)
  await settle(2)

  const state = await daemonState(page)
  expect(state.runs.map((r) => `${r.outcome}:${r.status}`)).toEqual(['drop:completed', 'lag:completed'])
  const stored = state.messages.filter((m) => m.role === 'agent').map((m) => m.content)
  expect(await replySource(page, agentReplies(page).nth(0))).toBe(stored[0] ?? '')
  expect(await replySource(page, agentReplies(page).nth(1))).toBe(stored[1] ?? '')
  await expect(page.locator('.failure')).toHaveCount(0)
  // The client asked for the events again after each broken connection, with Last-Event-ID.
  const streams = await requestLog(page, /^GET .*\/events$/)
  expect(streams.length).toBeGreaterThanOrEqual(4)
})
