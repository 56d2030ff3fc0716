import { agentReplies, daemonState, expect, messageBox, newSession, openApp, operatorMessages, replySource, seenStatuses, sendMessage, test, statusBadge } from './fixtures'

test('a message sent with Enter gets a reply that streams in, completes, and survives a reload', async ({ page }) => {
  await openApp(page)
  // The first screen is ready to type.
  await expect(page.getByText('Write your first message below. Enter sends it and opens a new session for it.')).toBeVisible()
  await expect(messageBox(page)).toBeFocused()
  const sessionId = await newSession(page)
  expect(page.url()).toMatch(new RegExp(`/sessions/${sessionId}$`))
  await expect(page.getByText('No messages yet. Write the first one below.')).toBeVisible()

  await sendMessage(page, 'How do I rotate the daemon logs?')

  const you = operatorMessages(page)
  await expect(you).toHaveCount(1)
  await expect(you).toContainText('How do I rotate the daemon logs?')
  await expect(you).toHaveAttribute('data-delivery', 'sent')
  // The box is emptied once the daemon has the message.
  await expect(messageBox(page)).toHaveValue('')

  const reply = agentReplies(page)
  await expect(reply).toHaveCount(1)
  await expect(reply).toHaveAttribute('data-status', 'complete')
  await expect(statusBadge(reply)).toHaveText('Complete')
  await expect(reply.getByRole('button', { name: 'Regenerate' })).toBeVisible()
  // It was seen streaming before it completed, not dropped in whole.
  expect(await seenStatuses(page)).toEqual(expect.arrayContaining(['streaming', 'complete']))
  const statuses = await seenStatuses(page)
  expect(statuses.indexOf('streaming')).toBeLessThan(statuses.lastIndexOf('complete'))

  const state = await daemonState(page)
  const stored = state.messages.find((m) => m.role === 'agent')
  expect(stored?.status).toBe('complete')
  const text = stored?.content ?? ''
  expect(text).toContain('How do I rotate the daemon logs?')
  expect(await replySource(page, reply)).toBe(text)
  // Rendered as Markdown: the reply's code block is a code block, not backticks, and once it is
  // in view it is highlighted, reading exactly as the code the reply holds.
  await expect(reply.locator('pre code')).toHaveCount(1)
  const code = reply.locator('.md-code pre')
  await code.scrollIntoViewIfNeeded()
  await expect(code).toHaveAttribute('data-highlighted', 'true')
  await expect(code.locator('span[style]').first()).toBeVisible()
  expect(text).toContain(await code.innerText())
  // Tokenized in the highlight worker, off the page's main thread.
  expect(page.workers().map((worker) => worker.url())).toContainEqual(expect.stringContaining('highlight.worker'))

  // The session is in the sidebar and marked current.
  const current = page.getByRole('navigation', { name: 'Sessions' }).getByRole('link')
  await expect(current).toHaveAttribute('href', `/sessions/${sessionId}`)
  await expect(current).toHaveAttribute('aria-current', 'page')

  await page.reload()
  expect(new URL(page.url()).pathname).toBe(`/sessions/${sessionId}`)
  await expect(operatorMessages(page)).toHaveCount(1)
  await expect(operatorMessages(page)).toContainText('How do I rotate the daemon logs?')
  await expect(agentReplies(page)).toHaveCount(1)
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  expect(await replySource(page, agentReplies(page))).toBe(text)
})

test('Shift+Enter adds a line instead of sending, and an empty box cannot be sent', async ({ page }) => {
  await openApp(page)
  await newSession(page)
  const box = messageBox(page)
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled()
  await box.fill('first line')
  await box.press('Shift+Enter')
  await box.pressSequentially('second line')
  await expect(box).toHaveValue('first line\nsecond line')
  await expect(operatorMessages(page)).toHaveCount(0)

  await page.getByRole('button', { name: 'Send' }).click()
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  expect((await daemonState(page)).messages.filter((m) => m.role === 'operator').map((m) => m.content)).toEqual(['first line\nsecond line'])
})

test('a code block out of view above is left plain, and highlighted once the operator scrolls back to it', async ({ page }) => {
  // A short window: the first reply is taller than the view, and two more replies follow it.
  await page.setViewportSize({ width: 1000, height: 520 })
  await openApp(page, { faults: ['plain', 'plain', 'plain'] })
  await newSession(page)
  const prompts = ['First: the log rotation', 'Second: the disk quota', 'Third: the backups']
  for (const prompt of prompts) {
    await sendMessage(page, prompt)
    await expect(agentReplies(page).filter({ hasText: prompt })).toHaveAttribute('data-status', 'complete')
  }
  // Read again from the daemon: nothing highlighted yet, the view at the newest reply.
  await page.reload()
  await expect(agentReplies(page).filter({ hasText: prompts[2] })).toHaveAttribute('data-status', 'complete')
  // The view has settled at the end (rows measured, the scroll to the newest reply done): a
  // scroll before that lands on rows still placed at their estimated heights.
  const log = page.getByRole('log', { name: 'Conversation' })
  const stillAtEnd = () =>
    log.evaluate(
      (element) =>
        new Promise<boolean>((resolve) => {
          const top = element.scrollTop
          setTimeout(() => resolve(element.scrollTop === top && element.scrollHeight - element.scrollTop - element.clientHeight < 2), 400)
        }),
    )
  await expect.poll(stillAtEnd).toBe(true)
  // Up to the second message: the first reply is drawn just above the view, its code block out of sight.
  const second = operatorMessages(page).filter({ hasText: prompts[1] })
  const top = await second.evaluate((element) => {
    element.scrollIntoView({ block: 'start' })
    return element.getBoundingClientRect().top
  })
  const first = agentReplies(page).filter({ hasText: prompts[0] }).locator('.md-code pre')
  await expect(first).toHaveCount(1)
  await expect(first).not.toBeInViewport()
  // The rows coming back into the window above it (measured again, their Markdown drawn now) do
  // not move the message read.
  await page.waitForTimeout(300)
  expect(Math.abs((await second.evaluate((element) => element.getBoundingClientRect().top)) - top)).toBeLessThan(2)
  // Out of view above, it stays plain, however long it waits there.
  await page.waitForTimeout(800)
  await expect(first).toHaveAttribute('data-highlighted', 'false')

  // The operator scrolls back up to it.
  await first.evaluate((element) => element.scrollIntoView({ block: 'center' }))
  await expect(first).toBeInViewport()
  await expect(first).toHaveAttribute('data-highlighted', 'true')
  await expect(first.locator('span[style]').first()).toBeVisible()
})
