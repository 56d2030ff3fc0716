/**
 * The focus after the session menu, in Chromium with a real `showModal()` (the component suite's
 * tests/component/sessions-menu-focus.test.tsx, in a browser): Keep it on the delete question and
 * an export give it back to the session's "⋯" button; deleting the open session puts it on the
 * session that opens in its place, never on <body>. Also, in both languages: a press outside an
 * open menu closes it.
 */
import { agentReplies, expect, openApp, sendMessage, test, word } from './fixtures'
import { newSessionAnyWidth, sessionsNav } from './panel'

const ACTIONS = (title: string) => word('en', 'sessionMenu.actions', { title })

test('Keep it on the delete question gives the focus back to the ⋯ button', async ({ page }) => {
  await openApp(page)
  await sendMessage(page, 'Deploy log')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await sessionsNav(page).getByRole('button', { name: ACTIONS('Deploy log') }).click()
  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Keep it' }).click()
  await expect(page.getByRole('alertdialog')).toHaveCount(0)
  await expect(sessionsNav(page).getByRole('button', { name: ACTIONS('Deploy log') })).toBeFocused()
})

test('Export as JSON gives the focus back to the ⋯ button', async ({ page }) => {
  await openApp(page)
  await sendMessage(page, 'Deploy log')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await sessionsNav(page).getByRole('button', { name: ACTIONS('Deploy log') }).click()
  await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export as JSON' }).click()])
  await expect(sessionsNav(page).getByRole('button', { name: ACTIONS('Deploy log') })).toBeFocused()
})

test('deleting the open session leaves the focus on the session that opens in its place', async ({ page }) => {
  await openApp(page)
  await sendMessage(page, 'Older one')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await newSessionAnyWidth(page)
  await sendMessage(page, 'Open one')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  await sessionsNav(page).getByRole('button', { name: ACTIONS('Open one') }).click()
  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete session' }).click()
  const older = sessionsNav(page).getByRole('link', { name: 'Older one' })
  await expect(older).toHaveAttribute('aria-current', 'page')
  await expect(older).toBeFocused()
})

for (const lng of ['en', 'zh'] as const) {
  test(`a press outside the open ⋯ menu closes it (${lng})`, async ({ page }) => {
    await openApp(page, { lang: lng })
    await sendMessage(page, 'Older one', lng)
    await expect(agentReplies(page, lng)).toHaveAttribute('data-status', 'complete')
    await newSessionAnyWidth(page, lng)
    await sendMessage(page, 'Open one', lng)
    await expect(agentReplies(page, lng)).toHaveAttribute('data-status', 'complete')
    const actions = word(lng, 'sessionMenu.actions', { title: 'Open one' })
    const toggle = sessionsNav(page, lng).getByRole('button', { name: actions })
    await toggle.click()
    const menu = sessionsNav(page, lng).getByRole('group', { name: actions })
    await expect(menu).toBeVisible()
    await page.getByRole('log').click({ position: { x: 40, y: 40 } })
    await expect(menu).toHaveCount(0)
    await expect(toggle).toHaveAttribute('aria-expanded', 'false')
    await expect(sessionsNav(page, lng).getByRole('button', { name: word(lng, 'sessionMenu.actions', { title: 'Older one' }) })).toHaveAttribute('aria-expanded', 'false')
  })
}
