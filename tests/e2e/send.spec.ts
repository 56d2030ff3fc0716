/**
 * One message and at most one run per send, as issue 5's "Done when" puts it, whatever the
 * network does, and no lost draft.
 */
import {
  agentReplies,
  daemonState,
  expect,
  messageBox,
  newSession,
  openApp,
  operatorMessages,
  peakCounts,
  requestLog,
  sendMessage,
  test,
} from './fixtures'

const POST_MESSAGES = /^POST \/api\/v1\/sessions\/[^/]+\/messages$/

test('accept_then_drop: the lost answer is retried with the same id; one message and one reply appear', async ({ page }) => {
  const sentBodies: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST' && /\/api\/v1\/sessions\/[^/]+\/messages$/.test(request.url())) sentBodies.push(request.postData() ?? '')
  })
  await openApp(page, { faults: ['accept_then_drop'] })
  await newSession(page)
  await sendMessage(page, 'Restart the indexer once')

  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await expect(operatorMessages(page)).toHaveCount(1)
  await expect(operatorMessages(page)).toHaveAttribute('data-delivery', 'sent')
  await expect(operatorMessages(page)).toContainText('Restart the indexer once')
  await expect(agentReplies(page)).toHaveCount(1)
  await expect(page.getByRole('button', { name: 'Send again' })).toHaveCount(0)
  await expect(messageBox(page)).toHaveValue('')
  // Never two copies, not even for a moment while the retry and the history read settled.
  expect(await peakCounts(page)).toEqual({ operator: 1, agent: 1 })

  const state = await daemonState(page)
  const operator = state.messages.filter((m) => m.role === 'operator')
  expect(operator).toHaveLength(1)
  expect(state.runs).toHaveLength(1)
  expect(state.runs[0]?.anchor_message_id).toBe(operator[0]?.id)
  expect(state.runs[0]?.status).toBe('completed')
  expect(state.plan).toEqual([])

  // The daemon saw the send twice (the answer to the first was lost), both with the same id.
  expect(await requestLog(page, POST_MESSAGES)).toHaveLength(2)
  const ids = sentBodies.map((body) => (JSON.parse(body) as { client_message_id: string }).client_message_id)
  expect(ids).toHaveLength(2)
  expect(new Set(ids).size).toBe(1)
  expect(ids[0]).toBe(operator[0]?.client_message_id)

  // And a reload shows the same single pair.
  await page.reload()
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await expect(operatorMessages(page)).toHaveCount(1)
  await expect(agentReplies(page)).toHaveCount(1)
})

test('send_error: the refusal is worded, the draft stays in the box, and nothing is created', async ({ page }) => {
  await openApp(page, { faults: ['send_error'] })
  await newSession(page)
  await sendMessage(page, 'Rotate the API keys tonight')

  await expect(page.getByRole('alert')).toHaveText('Not sent: The daemon ran into an internal error and changed nothing. Try again.')
  await expect(messageBox(page)).toHaveValue('Rotate the API keys tonight')
  await expect(operatorMessages(page)).toHaveCount(0)
  await expect(agentReplies(page)).toHaveCount(0)
  let state = await daemonState(page)
  expect(state.messages).toEqual([])
  expect(state.runs).toEqual([])

  // Sending it again (the plan is spent) goes through once.
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await expect(operatorMessages(page)).toHaveCount(1)
  await expect(messageBox(page)).toHaveValue('')
  state = await daemonState(page)
  expect(state.messages.filter((m) => m.role === 'operator')).toHaveLength(1)
  expect(state.runs).toHaveLength(1)
})

test('a draft is kept per session, across switching sessions and a reload', async ({ page }) => {
  await openApp(page)
  const first = await newSession(page)
  await messageBox(page).fill('Half-written thought about the first session')
  const second = await newSession(page)
  await expect(messageBox(page)).toHaveValue('')
  await messageBox(page).fill('Another thought for the second')

  const sessions = page.getByRole('navigation', { name: 'Sessions' })
  await sessions.locator(`a[href="/sessions/${first}"]`).click()
  await expect(messageBox(page)).toHaveValue('Half-written thought about the first session')
  await page.reload()
  await expect(messageBox(page)).toHaveValue('Half-written thought about the first session')
  await sessions.locator(`a[href="/sessions/${second}"]`).click()
  await expect(messageBox(page)).toHaveValue('Another thought for the second')
  // Back and forward move between the two, as links do.
  await page.goBack()
  await expect(page).toHaveURL(new RegExp(`/sessions/${first}$`))
  await expect(messageBox(page)).toHaveValue('Half-written thought about the first session')
  expect((await daemonState(page)).messages).toEqual([])
})
