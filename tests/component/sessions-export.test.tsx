/**
 * Exporting a session: the file name (`<title-slug>-<yyyy-mm-dd>.md|.json`), the Markdown
 * (operator and agent turns, superseded versions in a <details> block, failures with their worded
 * reason, in the operator's language) and the JSON (the wire's records as they are), first as
 * pure functions, then from the "⋯" menu with the browser's download stubbed.
 */
import { screen } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { exportFileName, sessionToJson, sessionToMarkdown } from '../../src/thread/export'
import type { Message, Session } from '../../src/wire/types'
import { advance, createSession, installFakeClock, startMockDaemonForFile } from './harness'
import { chooseFromMenu, renderAppAt, sessionPath, wordsOf } from './session-helpers'

const { daemon, server } = startMockDaemonForFile()

const AT = new Date(2026, 10, 30, 14, 0, 0).getTime()

describe('exportFileName', () => {
  it.each([
    ['Deploy log, 30 Nov', 'md', 'deploy-log-30-nov-2026-11-30.md'],
    ['  Release notes for 4.2!  ', 'json', 'release-notes-for-4-2-2026-11-30.json'],
    ['部署日志：11 月', 'md', '部署日志-11-月-2026-11-30.md'],
    ['Ｆｕｌｌｗｉｄｔｈ ＡＢＣ', 'md', 'fullwidth-abc-2026-11-30.md'],
    ['../../etc/passwd', 'json', 'etc-passwd-2026-11-30.json'],
    ['***', 'md', 'session-2026-11-30.md'],
    ['', 'json', 'session-2026-11-30.json'],
  ] as const)('%j → %s', (title, extension, expected) => {
    expect(exportFileName(title, AT, extension)).toBe(expected)
  })

  it('cuts a long title at 60 characters, never ending on a dash', () => {
    // 60 characters in, the cut falls right after a dash, which goes too.
    expect(exportFileName('word '.repeat(20), AT, 'md')).toBe(`${'word-'.repeat(11)}word-2026-11-30.md`)
    expect(exportFileName('a'.repeat(100), AT, 'json')).toBe(`${'a'.repeat(60)}-2026-11-30.json`)
  })

  it('dates the file on the local day of the export', () => {
    expect(exportFileName('x', new Date(2027, 0, 5, 0, 1).getTime(), 'md')).toBe('x-2027-01-05.md')
    expect(exportFileName('x', new Date(2026, 11, 31, 23, 59).getTime(), 'json')).toBe('x-2026-12-31.json')
  })
})

const SID = 'ses_x'
let clock = 0
function msg(id: string, role: Message['role'], extra: Partial<Message> = {}): Message {
  clock += 1000
  return { id, session_id: SID, role, content: `${id} text`, created_at: AT - 100_000 + clock, superseded: false, ...extra }
}

/** op1 was answered, failed, and regenerated (replacing op2 and its reply too); op3 failed with a code; op4 was stopped; op5 is still being written. */
function history(): Message[] {
  return [
    msg('op1', 'operator', { content: 'Summarise the log.\nKeep it short: `two` lines, *no* headings.', client_message_id: 'c1' }),
    msg('a1', 'agent', { reply_to: 'op1', run_id: 'r1', superseded: true, status: 'failed', content: '', error: { code: 'model_rate_limited', message: 'rate limited (429)' }, retry: { retryable: true, retry_class: 'rate_limited' } }),
    msg('op2', 'operator', { content: 'And the errors?', superseded: true, client_message_id: 'c2' }),
    msg('a2', 'agent', { reply_to: 'op2', run_id: 'r2', superseded: true, status: 'complete', content: 'Two errors.' }),
    msg('a1b', 'agent', { reply_to: 'op1', run_id: 'r3', status: 'complete', content: 'The deploy went well.\n\n```sh\nnpm run deploy\n```' }),
    msg('op3', 'operator', { content: 'Quote this: ```` four ticks', client_message_id: 'c3' }),
    msg('a3', 'agent', { reply_to: 'op3', run_id: 'r4', status: 'failed', content: 'Half an ans', error: { code: 'answer_empty', message: 'The model returned an empty answer.' } }),
    msg('op4', 'operator', { content: 'Stop me', client_message_id: 'c4' }),
    msg('a4', 'agent', { reply_to: 'op4', run_id: 'r5', status: 'cancelled', content: '' }),
    msg('op5', 'operator', { content: 'Still going', client_message_id: 'c5' }),
    msg('a5', 'agent', { reply_to: 'op5', run_id: 'r6', status: 'streaming', content: 'So far' }),
  ]
}

const SESSION: Session = { id: SID, title: 'Deploy log', status: 'running', created_at: AT - 200_000, updated_at: AT - 1_000 }

describe.each(['en', 'zh'] as const)('sessionToMarkdown (%s)', (lng) => {
  const t = wordsOf(lng)

  it('writes the turns in order, the replaced versions folded, each failure worded with its code', () => {
    const md = sessionToMarkdown(t, SESSION, history(), AT, lng)
    const when = new Intl.DateTimeFormat(lng, { dateStyle: 'long', timeStyle: 'short' }).format(AT)
    const you = `## ${t('transcript.operator')}`
    const agent = `## ${t('transcript.agent')}`
    const expected = [
      '# Deploy log',
      '',
      `_${t('export.exportedAt', { when })}_`,
      '',
      you,
      '',
      '```text',
      'Summarise the log.',
      'Keep it short: `two` lines, *no* headings.',
      '```',
      '',
      agent,
      '',
      'The deploy went well.',
      '',
      '```sh',
      'npm run deploy',
      '```',
      '',
      '<details>',
      `<summary>${t('transcript.earlierVersions', { count: 1 })}</summary>`,
      '',
      `### ${t('transcript.earlierVersion', { n: 1 })}`,
      '',
      `> **${t('export.failed')}** ${t('errors.model_rate_limited')} (${t('transcript.supportCode', { code: 'model_rate_limited' })})`,
      '',
      `#### ${t('transcript.operator')}`,
      '',
      '```text',
      'And the errors?',
      '```',
      '',
      `#### ${t('transcript.agent')}`,
      '',
      'Two errors.',
      '',
      '</details>',
      '',
      you,
      '',
      // A fence longer than the longest backtick run inside, so the text cannot close it.
      '`````text',
      'Quote this: ```` four ticks',
      '`````',
      '',
      agent,
      '',
      'Half an ans',
      '',
      `> **${t('export.failed')}** ${t('errors.answer_empty')} (${t('transcript.supportCode', { code: 'answer_empty' })})`,
      '',
      you,
      '',
      '```text',
      'Stop me',
      '```',
      '',
      agent,
      '',
      `> ${t('status.cancelled')}`,
      '',
      you,
      '',
      '```text',
      'Still going',
      '```',
      '',
      agent,
      '',
      'So far',
      '',
      `> ${t('export.unfinished')}`,
      '',
    ].join('\n')
    expect(md).toBe(expected)
  })

  it('names an untitled session with the label of the language, and words an unknown code with the daemon’s sentence', () => {
    const messages = [
      msg('op', 'operator', { content: 'hi', client_message_id: 'c' }),
      msg('ag', 'agent', { reply_to: 'op', status: 'failed', content: '', error: { code: 'flux_capacitor_depleted', message: 'The flux capacitor is depleted.' } }),
    ]
    const md = sessionToMarkdown(t, { ...SESSION, title: '' }, messages, AT, lng)
    expect(md.split('\n')[0]).toBe(`# ${t('sessions.untitled')}`)
    expect(md).toContain(`> **${t('export.failed')}** The flux capacitor is depleted. (${t('transcript.supportCode', { code: 'flux_capacitor_depleted' })})`)
    expect(md.endsWith('\n')).toBe(true)
    expect(md.endsWith('\n\n')).toBe(false)
  })
})

describe('sessionToJson', () => {
  it('is the wire’s records as they are, with the session and the export time', () => {
    const messages = history()
    const text = sessionToJson(SESSION, messages, AT)
    expect(JSON.parse(text)).toEqual({ exported_at: AT, session: SESSION, messages })
    expect(text.endsWith('}\n')).toBe(true)
    // Pretty-printed, for a person opening it too.
    expect(text.split('\n')[1]).toBe(`  "exported_at": ${AT},`)
  })
})

type Download = { name: string; type: string; text: string; href: string }

/** Stubs the browser's download: object URLs for blobs, and the link's click. */
function stubDownloads(): { downloads: Download[]; revoked: string[] } {
  const downloads: Download[] = []
  const revoked: string[] = []
  const blobs = new Map<string, Blob>()
  let next = 0
  Object.assign(URL, {
    createObjectURL: (blob: Blob) => {
      const url = `blob:http://daemon.test/${++next}`
      blobs.set(url, blob)
      return url
    },
    revokeObjectURL: (url: string) => void revoked.push(url),
  })
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    const blob = blobs.get(this.href)
    if (!blob) throw new Error(`a click on ${this.href}, which is no object URL`)
    const entry: Download = { name: this.download, type: blob.type, text: '', href: this.href }
    downloads.push(entry)
    void blob.text().then((text) => (entry.text = text))
  })
  return { downloads, revoked }
}

describe.each(['en', 'zh'] as const)('export from the menu (%s)', (lng) => {
  const t = wordsOf(lng)

  beforeEach(() => installFakeClock())
  afterEach(() => {
    vi.useRealTimers()
    window.history.replaceState(null, '', '/')
    Reflect.deleteProperty(URL, 'createObjectURL')
    Reflect.deleteProperty(URL, 'revokeObjectURL')
  })

  /** A session whose first reply failed with a code and was regenerated. */
  async function seeded(): Promise<string> {
    daemon.plan(['code:answer_empty', 'ok'])
    const sid = createSession(daemon, 'Deploy log, 30 Nov')
    const sent = daemon.send(sid, { content: 'Summarise the deploy log', client_message_id: 'cmid-1' })
    if (!sent.ok) throw new Error(sent.refusal.body.code)
    await advance(500)
    const regenerated = daemon.regenerate(sid, sent.value.receipt.message_id)
    if (!regenerated.ok) throw new Error(regenerated.refusal.body.code)
    await advance(1_000)
    expect(daemon.state().runs.map((r) => r.status)).toEqual(['failed', 'completed'])
    return sid
  }

  it('Export as Markdown downloads <slug>-<date>.md with the conversation in the operator’s language', async () => {
    const { downloads, revoked } = stubDownloads()
    const sid = await seeded()
    await renderAppAt(sessionPath(sid), lng)
    const clickedAt = Date.now()
    await chooseFromMenu(t, 'Deploy log, 30 Nov', 'exportMarkdown')
    await advance(20)

    expect(downloads.map((d) => [d.name, d.type])).toEqual([['deploy-log-30-nov-2026-11-30.md', 'text/markdown;charset=utf-8']])
    const messages = daemon.state().messages.filter((m) => m.session_id === sid)
    const session = daemon.listSessions().find((s) => s.id === sid)!
    expect(downloads[0]!.text).toBe(sessionToMarkdown(t, session, messages, clickedAt, lng))
    // What matters, said directly: both turns, the failed version folded, its reason worded.
    const text = downloads[0]!.text
    expect(text).toContain('```text\nSummarise the deploy log\n```')
    expect(text).toContain(messages.find((m) => m.role === 'agent' && !m.superseded)!.content)
    expect(text).toContain(`<details>\n<summary>${t('transcript.earlierVersions', { count: 1 })}</summary>`)
    expect(text).toContain(`> **${t('export.failed')}** ${t('errors.answer_empty')}`)
    // The object URL is let go once the download has its copy.
    expect(revoked).toEqual([downloads[0]!.href])
    // Reading the history for the file is the only request an export makes.
    expect(daemon.state().requests.filter((r) => r.method !== 'GET')).toEqual([])
  })

  it('Export as JSON downloads <slug>-<date>.json holding the wire’s records as they are', async () => {
    const { downloads } = stubDownloads()
    const sid = await seeded()
    await renderAppAt(sessionPath(sid), lng)
    const clickedAt = Date.now()
    await chooseFromMenu(t, 'Deploy log, 30 Nov', 'exportJson')
    await advance(20)

    expect(downloads.map((d) => [d.name, d.type])).toEqual([['deploy-log-30-nov-2026-11-30.json', 'application/json']])
    const parsed = JSON.parse(downloads[0]!.text) as unknown
    expect(parsed).toEqual({
      exported_at: clickedAt,
      session: daemon.listSessions().find((s) => s.id === sid),
      messages: daemon.state().messages.filter((m) => m.session_id === sid),
    })
  })

  it('exports a session that is not the one open, by the title the daemon gave it', async () => {
    const { downloads } = stubDownloads()
    const other = createSession(daemon, '')
    daemon.send(other, { content: 'first words\nand more', client_message_id: 'cmid-o' })
    const open = createSession(daemon, 'In view')
    await advance(500)
    await renderAppAt(sessionPath(open), lng)
    await chooseFromMenu(t, 'first words', 'exportMarkdown')
    await advance(20)
    expect(downloads.map((d) => d.name)).toEqual(['first-words-2026-11-30.md'])
    expect(downloads[0]!.text.split('\n')[0]).toBe('# first words')
    expect(window.location.pathname).toBe(sessionPath(open))
  })

  it('names the file of an untitled session after its label in the operator’s language', async () => {
    const { downloads } = stubDownloads()
    const sid = createSession(daemon, '')
    await renderAppAt(sessionPath(sid), lng)
    await chooseFromMenu(t, t('sessions.untitled'), 'exportMarkdown')
    await chooseFromMenu(t, t('sessions.untitled'), 'exportJson')
    await advance(20)
    const slug = lng === 'zh' ? '未命名会话' : 'untitled-session'
    expect(downloads.map((d) => d.name)).toEqual([`${slug}-2026-11-30.md`, `${slug}-2026-11-30.json`])
    expect(downloads[0]!.text.split('\n')[0]).toBe(`# ${t('sessions.untitled')}`)
    // The JSON keeps the daemon's title as it is: empty, not the label.
    expect((JSON.parse(downloads[1]!.text) as { session: { title: string }; messages: unknown[] }).session.title).toBe('')
  })

  it('an export whose history cannot be read is worded, and downloads nothing', async () => {
    const { downloads } = stubDownloads()
    const sid = createSession(daemon, 'Deploy log')
    const open = createSession(daemon, 'In view')
    await renderAppAt(sessionPath(open), lng)
    server.use(http.get(`*/api/v1/sessions/${sid}/messages`, () => HttpResponse.json({ error: 'The daemon is shutting down.', code: 'daemon_unavailable' }, { status: 503 })))
    await chooseFromMenu(t, 'Deploy log', 'exportJson')
    await advance(20)
    expect(downloads).toEqual([])
    expect(screen.getByRole('alert')).toHaveTextContent(t('sessionMenu.exportFailed', { reason: t('errors.daemon_unavailable') }))
  })
})
