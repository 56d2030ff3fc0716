/**
 * The README's picture of an agent's steps, `docs/steps.png`: a `tools:3` reply with its reasoning
 * folded, its three tools done and the second opened to its JSON input and its output, the answer,
 * what the run spent and the session's total.
 *
 * The test always sets the scene and checks it, and attaches the picture to its report; it writes
 * docs/steps.png only when asked, so CI never rewrites the docs:
 *
 *   REBOUND_README_SHOTS=1 npx playwright test readme-shots
 */
import { writeFileSync } from 'node:fs'
import { agentReplies, expect, newSession, openApp, operatorMessages, sendMessage, test } from './fixtures'

const DOCS_STEPS = new URL('../../docs/steps.png', import.meta.url)

test('docs/steps.png: a reply with its reasoning folded, its tools (one open on its JSON input and output), its usage and the session total', async ({ page }, testInfo) => {
  // Tall enough for the whole reply, from the session total above it to its usage line below.
  await page.setViewportSize({ width: 1200, height: 1700 })
  await openApp(page, { faults: ['tools:3'] })
  await newSession(page)
  await sendMessage(page, 'How do retries back off after a rate limit?')
  const reply = agentReplies(page)
  await expect(reply).toHaveAttribute('data-status', 'complete')

  await expect(reply.locator('.step--reasoning .step__toggle')).toHaveAttribute('aria-expanded', 'false')
  await expect(reply.locator('.step--tool[data-status="done"]')).toHaveCount(3)
  const tool = reply.locator('.step--tool').nth(1)
  await expect(tool.locator('.step__name')).toHaveText('read_file')
  await tool.locator('.step__toggle').click()
  const [input, output] = [tool.locator('.step-code').nth(0), tool.locator('.step-code').nth(1)]
  await expect(input).toHaveAttribute('data-language', 'json')
  // Both highlighted: the input as JSON, the output as the Markdown file it read.
  await expect(input).toHaveAttribute('data-highlighted', 'true')
  await expect(output).toHaveAttribute('data-highlighted', 'true')
  // The reply from its first step: the transcript scrolls so that its top is in view.
  await reply.locator('.step--reasoning').scrollIntoViewIfNeeded()
  await expect(operatorMessages(page)).toBeInViewport()
  await expect(reply.locator('.step--reasoning')).toBeInViewport()
  await expect(tool).toBeInViewport()
  await expect(page.getByRole('group', { name: 'Session total' })).toBeInViewport()
  await expect(reply.locator('.usage')).toBeInViewport()

  const picture = await page.screenshot({ animations: 'disabled', caret: 'hide' })
  await testInfo.attach('steps.png', { body: picture, contentType: 'image/png' })
  if (process.env.REBOUND_README_SHOTS) writeFileSync(DOCS_STEPS, picture)
})
