/**
 * Sessions in a real browser against the in-browser mock daemon: the first screen's first Enter
 * (one session, one message, a reply, titled by the message), rename and delete surviving a
 * reload, both exports downloaded with their content, and the shortcut list. In English and
 * Chinese where the words differ.
 */
import { readFileSync } from 'node:fs'
import type { Download, Locator, Page } from '@playwright/test'
import { agentReplies, daemonState, errorWords, expect, FIXED_NOW, messageBox, openApp, operatorMessages, replyBody, requestLog, sendMessage, sessionIdOf, test, word, type Lang } from './fixtures'
import { newSessionAnyWidth, sessionsNav } from './panel'

const CREATES = /^POST \/api\/v1\/sessions$/
const PATCHES = /^PATCH \/api\/v1\/sessions\/[^/]+$/
const DELETES = /^DELETE \/api\/v1\/sessions\/[^/]+$/
const SENDS = /^POST \/api\/v1\/sessions\/[^/]+\/messages$/
const LANGS = ['en', 'zh'] as const

/** The titles the session list shows, top to bottom. */
function listedTitles(page: Page, lang: Lang): Promise<string[]> {
  return sessionsNav(page, lang).locator('.sessions__title').allTextContents()
}

function sessionLink(page: Page, lang: Lang, title: string): Locator {
  return sessionsNav(page, lang).getByRole('link', { name: title })
}

async function chooseFromMenu(page: Page, lang: Lang, title: string, item: 'rename' | 'exportMarkdown' | 'exportJson' | 'delete'): Promise<void> {
  await sessionsNav(page, lang).getByRole('button', { name: word(lang, 'sessionMenu.actions', { title }) }).click()
  await sessionsNav(page, lang).getByRole('group', { name: word(lang, 'sessionMenu.actions', { title }) }).getByRole('button', { name: word(lang, `sessionMenu.${item}`) }).click()
}

async function textOf(download: Download): Promise<string> {
  return readFileSync(await download.path(), 'utf8')
}

const FIRST = {
  en: { text: 'Check the deploy from last night\nOnly the failed steps, please.', title: 'Check the deploy from last night' },
  zh: { text: '检查昨晚的部署\n只列出失败的步骤。', title: '检查昨晚的部署' },
} as const

for (const lang of LANGS) {
  test(`first screen (${lang}): type, Enter, and one session exists with the message and its reply, titled by it`, async ({ page }) => {
    await openApp(page, { lang })
    await expect(page.getByRole('heading', { name: word(lang, 'start.heading') })).toBeVisible()
    await expect(messageBox(page, lang)).toBeFocused()
    expect(await requestLog(page, CREATES)).toEqual([])

    await sendMessage(page, FIRST[lang].text, lang)
    await page.waitForURL((url) => /^\/sessions\/[^/]+$/.test(url.pathname))
    const reply = agentReplies(page, lang)
    await expect(reply).toHaveAttribute('data-status', 'complete')
    await expect(operatorMessages(page, lang)).toHaveCount(1)
    await expect(operatorMessages(page, lang)).toContainText(FIRST[lang].title)
    await expect(reply).toHaveCount(1)
    if (lang === 'zh') await expect(replyBody(reply)).toHaveText(/\p{Script=Han}/u)
    await expect(sessionLink(page, lang, FIRST[lang].title)).toHaveAttribute('aria-current', 'page')
    await expect(messageBox(page, lang)).toBeFocused()
    await expect(messageBox(page, lang)).toHaveValue('')

    const state = await daemonState(page)
    expect(state.sessions.map((s) => [s.id, s.title])).toEqual([[sessionIdOf(page), FIRST[lang].title]])
    expect(state.messages.filter((m) => m.role === 'operator').map((m) => m.content)).toEqual([FIRST[lang].text])
    expect(state.runs.map((r) => r.status)).toEqual(['completed'])
    expect(await requestLog(page, CREATES)).toHaveLength(1)
    expect(await requestLog(page, SENDS)).toHaveLength(1)

    // The daemon keeps it: a reload shows the same session, message and reply.
    await page.reload()
    await expect(agentReplies(page, lang)).toHaveAttribute('data-status', 'complete')
    await expect(operatorMessages(page, lang)).toHaveCount(1)
    expect(await listedTitles(page, lang)).toEqual([FIRST[lang].title])
  })
}

for (const lang of LANGS) {
  test(`rename and delete (${lang}) survive a reload; deleting the last session goes back to the first screen`, async ({ page }) => {
    await openApp(page, { lang })
    await sendMessage(page, 'Alpha notes', lang)
    await expect(agentReplies(page, lang)).toHaveAttribute('data-status', 'complete')
    await newSessionAnyWidth(page, lang)
    await sendMessage(page, 'Beta notes', lang)
    await expect(agentReplies(page, lang)).toHaveAttribute('data-status', 'complete')
    const beta = sessionIdOf(page)
    await expect.poll(() => listedTitles(page, lang)).toEqual(['Beta notes', 'Alpha notes'])

    // Rename from the menu: Enter saves, and the focus is back on the link.
    await chooseFromMenu(page, lang, 'Beta notes', 'rename')
    const field = page.getByRole('textbox', { name: word(lang, 'sessionMenu.renameLabel', { title: 'Beta notes' }) })
    await expect(field).toBeFocused()
    await field.fill('Beta, renamed')
    await field.press('Enter')
    await expect(sessionLink(page, lang, 'Beta, renamed')).toBeFocused()
    expect(await requestLog(page, PATCHES)).toEqual([`PATCH /api/v1/sessions/${beta}`])

    // Double-click to rename, Escape keeps the old title and sends nothing.
    await sessionLink(page, lang, 'Alpha notes').dblclick()
    const alpha = page.getByRole('textbox', { name: word(lang, 'sessionMenu.renameLabel', { title: 'Alpha notes' }) })
    await alpha.fill('Not this')
    await alpha.press('Escape')
    await expect(sessionLink(page, lang, 'Alpha notes')).toBeFocused()
    expect(await requestLog(page, PATCHES)).toHaveLength(1)

    // A refusal is worded under the field.
    await sessionLink(page, lang, 'Alpha notes').dblclick()
    await alpha.fill('   ')
    await alpha.press('Enter')
    await expect(sessionsNav(page, lang).getByRole('alert')).toHaveText(word(lang, 'sessionMenu.renameFailed', { reason: errorWords(lang).title_empty ?? '' }))
    await alpha.press('Escape')

    await page.reload()
    await expect.poll(() => listedTitles(page, lang)).toEqual(['Beta, renamed', 'Alpha notes'])

    // Delete the other session: asked first, naming it; Keep it sends nothing.
    await chooseFromMenu(page, lang, 'Alpha notes', 'delete')
    const question = page.getByRole('alertdialog', { name: word(lang, 'sessionMenu.deleteTitle', { title: 'Alpha notes' }) })
    await expect(question).toBeVisible()
    await expect(question.getByRole('button', { name: word(lang, 'sessionMenu.deleteKeep') })).toBeFocused()
    await question.getByRole('button', { name: word(lang, 'sessionMenu.deleteKeep') }).click()
    await expect(question).toHaveCount(0)
    expect(await requestLog(page, DELETES)).toEqual([])
    await chooseFromMenu(page, lang, 'Alpha notes', 'delete')
    await question.getByRole('button', { name: word(lang, 'sessionMenu.deleteConfirm') }).click()
    await expect.poll(() => listedTitles(page, lang)).toEqual(['Beta, renamed'])
    expect(await requestLog(page, DELETES)).toHaveLength(1)
    expect(sessionIdOf(page)).toBe(beta)

    await page.reload()
    await expect.poll(() => listedTitles(page, lang)).toEqual(['Beta, renamed'])
    const state = await daemonState(page)
    expect(state.sessions.map((s) => s.title)).toEqual(['Beta, renamed'])
    expect(state.messages.every((m) => m.session_id === beta)).toBe(true)

    // Deleting the open (and last) session: the first screen, ready to type.
    await chooseFromMenu(page, lang, 'Beta, renamed', 'delete')
    await page.getByRole('alertdialog').getByRole('button', { name: word(lang, 'sessionMenu.deleteConfirm') }).click()
    await page.waitForURL((url) => url.pathname === '/')
    await expect(page.getByRole('heading', { name: word(lang, 'start.heading') })).toBeVisible()
    await expect(messageBox(page, lang)).toBeFocused()
    await page.reload()
    await expect(page.getByRole('heading', { name: word(lang, 'start.heading') })).toBeVisible()
    expect((await daemonState(page)).sessions).toEqual([])
  })
}

for (const lang of LANGS) {
  test(`export (${lang}): Markdown and JSON download as <title>-<date> with the conversation in them`, async ({ page }) => {
    await page.clock.install({ time: FIXED_NOW })
    // The first reply fails with a code (never retried on its own); Regenerate replaces it.
    await openApp(page, { lang, faults: ['code:answer_empty'] })
    await sendMessage(page, 'Export this deploy log', lang)
    const reply = agentReplies(page, lang)
    await expect(reply).toHaveAttribute('data-status', 'failed')
    await reply.getByRole('button', { name: word(lang, 'actions.regenerate') }).click()
    await expect(reply).toHaveAttribute('data-status', 'complete')
    const sid = sessionIdOf(page)
    const day = FIXED_NOW.toISOString().slice(0, 10)

    const [md] = await Promise.all([page.waitForEvent('download'), chooseFromMenu(page, lang, 'Export this deploy log', 'exportMarkdown')])
    expect(md.suggestedFilename()).toBe(`export-this-deploy-log-${day}.md`)
    const markdown = await textOf(md)
    const state = await daemonState(page)
    const current = state.messages.find((m) => m.role === 'agent' && !m.superseded)!
    expect(markdown.startsWith('# Export this deploy log\n')).toBe(true)
    expect(markdown).toContain(`## ${word(lang, 'transcript.operator')}\n\n\`\`\`text\nExport this deploy log\n\`\`\``)
    // The reply step by step (an `ok` reply reasons and searches the docs before it answers):
    // the reasoning and the tool folded, the tool with its input and output, then the answer.
    const [reasoning, tool, answer] = current.parts ?? []
    if (reasoning?.type !== 'reasoning' || tool?.type !== 'tool' || answer?.type !== 'text') throw new Error(`unexpected steps: ${JSON.stringify(current.parts)}`)
    expect(answer.text).toBe(current.content)
    expect(markdown).toContain(
      [
        `## ${word(lang, 'transcript.agent')}`,
        '',
        '<details>',
        `<summary>${word(lang, 'steps.reasoning')}</summary>`,
        '',
        '```text',
        reasoning.text,
        '```',
        '',
        '</details>',
        '',
        '<details>',
        `<summary>${tool.name} · ${word(lang, 'steps.effect.read')} · ${word(lang, 'steps.status.done')}</summary>`,
        '',
        `**${word(lang, 'steps.input')}**`,
        '',
        '```json',
        tool.input,
        '```',
        '',
        `**${word(lang, 'steps.output')}**`,
        '',
        '```',
        tool.output,
        '```',
        '',
        '</details>',
        '',
        current.content,
      ].join('\n'),
    )
    expect(markdown).toContain(`<details>\n<summary>${word(lang, 'transcript.earlierVersions', { count: 1 })}</summary>`)
    expect(markdown).toContain(`> **${word(lang, 'export.failed')}** ${errorWords(lang).answer_empty}`)

    const [json] = await Promise.all([page.waitForEvent('download'), chooseFromMenu(page, lang, 'Export this deploy log', 'exportJson')])
    expect(json.suggestedFilename()).toBe(`export-this-deploy-log-${day}.json`)
    const parsed = JSON.parse(await textOf(json)) as { exported_at: number; session: { id: string; title: string }; messages: unknown[] }
    expect(parsed.session).toEqual(state.sessions.find((s) => s.id === sid))
    expect(parsed.messages).toEqual(state.messages.filter((m) => m.session_id === sid))
    expect(parsed.exported_at).toBeGreaterThanOrEqual(FIXED_NOW.getTime())
    // An export only reads.
    expect(await requestLog(page, /^(PATCH|DELETE) /)).toEqual([])
  })
}

for (const lang of LANGS) {
  test(`? opens the shortcut list (${lang}) outside a text field; in the message box it is typed`, async ({ page }) => {
    await openApp(page, { lang })
    const dialog = page.getByRole('dialog', { name: word(lang, 'shortcuts.title') })
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await page.keyboard.press('?')
    await expect(dialog).toBeVisible()
    await expect(dialog.getByRole('button', { name: word(lang, 'shortcuts.close') })).toBeFocused()
    await expect(dialog.getByRole('row', { name: word(lang, 'shortcuts.newSession') })).toContainText('Ctrl+Shift+O')
    await expect(dialog.getByRole('row', { name: word(lang, 'shortcuts.stopOrCancel') })).toContainText('Ctrl+Shift+Backspace')
    await expect(dialog.getByRole('row', { name: word(lang, 'shortcuts.focusApproval') })).toContainText('Ctrl+Shift+Y')
    await expect(dialog.getByRole('row', { name: word(lang, 'shortcuts.latest') })).toContainText('End')
    await expect(dialog.getByRole('rowheader')).toHaveCount(13)
    await page.keyboard.press('Escape')
    await expect(dialog).toHaveCount(0)

    await messageBox(page, lang).click()
    await page.keyboard.type('why?')
    await expect(messageBox(page, lang)).toHaveValue('why?')
    await expect(dialog).toHaveCount(0)

    // The header button opens it too, and Close gives the focus back to it.
    const button = page.getByRole('button', { name: word(lang, 'shortcuts.button') })
    await button.click()
    await expect(dialog).toBeVisible()
    await dialog.getByRole('button', { name: word(lang, 'shortcuts.close') }).click()
    await expect(dialog).toHaveCount(0)
    await expect(button).toBeFocused()
  })
}

test('Ctrl+Shift+O makes a session, Alt+↑/↓ walk the list, / and Shift+Esc go to the message box', async ({ page }) => {
  await openApp(page)
  await sendMessage(page, 'First session')
  await expect(agentReplies(page)).toHaveAttribute('data-status', 'complete')
  const first = sessionIdOf(page)

  await page.keyboard.press('Control+Shift+O')
  await page.waitForURL((url) => url.pathname !== `/sessions/${first}`)
  const second = sessionIdOf(page)
  await expect(messageBox(page)).toBeFocused()
  expect(await requestLog(page, CREATES)).toHaveLength(2)

  // The box is empty, so Alt+↓ switches even from inside it: the older session is next.
  await page.keyboard.press('Alt+ArrowDown')
  await page.waitForURL((url) => url.pathname === `/sessions/${first}`)
  await page.keyboard.press('Alt+ArrowUp')
  await page.waitForURL((url) => url.pathname === `/sessions/${second}`)

  await sessionsNav(page).getByRole('link').first().focus()
  await page.keyboard.press('/')
  await expect(messageBox(page)).toBeFocused()
  await expect(messageBox(page)).toHaveValue('')
  await sessionsNav(page).getByRole('link').first().focus()
  await page.keyboard.press('Shift+Escape')
  await expect(messageBox(page)).toBeFocused()
})
