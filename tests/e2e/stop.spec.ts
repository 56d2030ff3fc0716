import type { Page } from '@playwright/test'
import { agentReplies, daemonState, expect, FIXED_NOW, newSession, openApp, planFaults, replyBody, requestLog, seenStatuses, sendMessage, test, statusBadge } from './fixtures'

/** Sends, stops the reply while it runs, and checks it reads Stopped with no failure and no retry. */
async function sendAndStop(page: Page, index: number, fault: 'slow' | 'hang'): Promise<void> {
  await planFaults(page, [fault])
  await sendMessage(page, `Write me a long report on outage ${index + 1}`)
  const reply = agentReplies(page).nth(index)
  await expect(reply).toHaveAttribute('data-status', 'streaming')
  // `slow` has written something by the time the operator decides to stop; `hang` never writes.
  if (fault === 'slow') await expect(replyBody(reply)).not.toHaveText('')
  await reply.getByRole('button', { name: 'Stop' }).click()

  await expect(reply).toHaveAttribute('data-status', 'cancelled')
  await expect(statusBadge(reply)).toHaveText('Stopped')
  await expect(reply.getByRole('button', { name: 'Regenerate' })).toBeVisible()
  await expect(reply.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  // A cancelled run is not a failure: no failure notice, no countdown.
  await expect(reply.locator('.failure')).toHaveCount(0)
  await expect(reply.locator('[data-retry]')).toHaveCount(0)

  const state = await daemonState(page)
  const run = state.runs[index]
  expect(run?.outcome).toBe(fault)
  expect(run?.status).toBe('cancelled')
  expect(run?.retry).toBeUndefined()
  expect(run?.error).toBeUndefined()
  const stored = state.messages.find((m) => m.id === run?.reply_message_id)
  expect(stored?.status).toBe('cancelled')
  expect(stored?.retry).toBeUndefined()
  expect(await requestLog(page, /^POST .*\/runs\/[^/]+\/cancel$/)).toHaveLength(index + 1)
}

test('Stop on a slow and on a hanging reply ends each as Stopped, never Failed, and arms no retry', async ({ page }) => {
  await page.clock.install({ time: FIXED_NOW })
  await openApp(page)
  await newSession(page)

  await sendAndStop(page, 0, 'slow')
  await sendAndStop(page, 1, 'hang')

  // Well past the first backoff (2 s): still Stopped, nothing regenerated behind the operator's back.
  await page.clock.runFor(5_000)
  await expect(agentReplies(page).nth(0)).toHaveAttribute('data-status', 'cancelled')
  await expect(agentReplies(page).nth(1)).toHaveAttribute('data-status', 'cancelled')
  expect(await requestLog(page, /\/regenerate$/)).toEqual([])
  expect((await daemonState(page)).runs.map((r) => r.status)).toEqual(['cancelled', 'cancelled'])
  expect(await seenStatuses(page)).not.toContain('failed')
  await expect(page.getByText('Failed', { exact: true })).toHaveCount(0)

  // History agrees after a reload.
  await page.reload()
  await expect(agentReplies(page)).toHaveCount(2)
  for (const reply of await agentReplies(page).all()) {
    await expect(reply).toHaveAttribute('data-status', 'cancelled')
    await expect(statusBadge(reply)).toHaveText('Stopped')
  }
})
