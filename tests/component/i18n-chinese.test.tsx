/**
 * The Chinese interface is Chinese: the main screens, rendered in zh with a failed reply, a retry
 * countdown and the confirm dialog on screen, show no English word that is not a name or a code.
 * And `?lang=zh` picks Chinese at boot (in any case), with `<html lang>` following the language.
 */
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { App } from '../../src/app/app'
import { createQueryClient, Providers } from '../../src/app/providers'
import { createChatRuntime } from '../../src/thread/runtime'
import { createI18n, resources } from '../../src/i18n/bundled'
import { currentLanguage } from '../../src/i18n/setup'
import { createDaemonClient } from '../../src/wire/http'
import { ERROR_CODES, REFUSAL_CODES, RETRY_CLASSES } from '../../src/wire/types'
import { advance, advanceUntil, DAEMON_ORIGIN, installFakeClock, renderApp, startMockDaemonForFile } from './harness'

const { daemon } = startMockDaemonForFile()

beforeEach(() => {
  installFakeClock()
  window.history.replaceState(null, '', '/')
})
afterEach(() => {
  vi.useRealTimers()
  window.history.replaceState(null, '', '/')
  document.documentElement.lang = ''
})

const zh = resources.zh.translation
const user = () => userEvent.setup({ delay: null })

/** What the operator types: Chinese prompts, so their own words are not English either. */
const PROMPTS = ['第一个问题', '第二个问题', '第三个问题', '第四个问题']

/**
 * Latin-letter words a Chinese screen may show: the product's name, the daemon's codes and retry
 * classes (shown in small print for support), and key names as printed on the keys.
 */
const ALLOWED = [
  'Rebound',
  ...ERROR_CODES,
  ...REFUSAL_CODES,
  'transport_failed',
  'payload_invalid',
  ...RETRY_CLASSES,
  'Shift',
  'Enter',
  'Esc',
  // Written in Latin letters in Chinese developer tools too (API 密钥).
  'API',
  ...PROMPTS,
].sort((a, b) => b.length - a.length)

/** Runs of three or more Latin letters left once allowed names and codes are taken out. */
function englishWords(text: string): string[] {
  let rest = text
  for (const allowed of ALLOWED) rest = rest.replaceAll(allowed, ' ')
  return rest.match(/[A-Za-z]{3,}/g) ?? []
}

/**
 * Everything the operator can see or hear: the body's text and the aria-labels, placeholders,
 * titles and alt texts, minus content that is not the interface's to word: message bodies (the
 * operator's and the daemon's text), a tool's name (the daemon's identifier, as `search_docs`),
 * the fault simulator (a developer tool), and anything marked as another language with `lang`
 * (the language switch names English in English).
 */
function visibleInterfaceText(): { where: string; text: string }[] {
  const copy = document.body.cloneNode(true) as HTMLElement
  for (const excluded of copy.querySelectorAll('.message__body, .step__name, .simulator, [lang]:not([lang^="zh"])')) excluded.remove()
  // Text node by text node: textContent would glue neighbours ("重试" + "x" into one run).
  const found: { where: string; text: string }[] = []
  const walker = document.createTreeWalker(copy, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) found.push({ where: 'text', text: node.nodeValue ?? '' })
  for (const attribute of ['aria-label', 'placeholder', 'title', 'alt']) {
    for (const element of copy.querySelectorAll(`[${attribute}]`)) {
      found.push({ where: `${element.tagName.toLowerCase()}[${attribute}]`, text: element.getAttribute(attribute) ?? '' })
    }
  }
  return found
}

function expectNoEnglish() {
  const offenders = visibleInterfaceText().flatMap(({ where, text }) => englishWords(text).map((word) => `${where}: ${word} (in "${text.slice(0, 120)}")`))
  expect(offenders).toEqual([])
}

const agentReplies = () => screen.queryAllByRole('article', { name: zh.transcript.agent })

async function sendAndSettle(text: string, status: string) {
  const box = screen.getByRole('textbox', { name: zh.composer.label })
  const before = agentReplies().length
  await user().type(box, `${text}{Enter}`)
  await advanceUntil(() => agentReplies().length === before + 1 && agentReplies().at(-1)?.getAttribute('data-status') === status, `a ${status} reply to "${text}"`)
  await advance(30)
}

describe('the Chinese interface', () => {
  it('shows no English on the main screens', async () => {
    renderApp({ lng: 'zh' })
    await advance(50)
    // The empty list and the first screen, ready to type.
    expect(screen.getByText(zh.sessions.empty)).toBeInTheDocument()
    expect(screen.getByText(zh.start.hint)).toBeInTheDocument()
    expectNoEnglish()

    await user().click(screen.getByRole('button', { name: zh.sessions.new }))
    await advance(50)
    expect(screen.getByText(zh.transcript.empty)).toBeInTheDocument()
    expectNoEnglish()

    daemon.plan(['ok', 'code:answer_empty', 'rate_limited'])
    await sendAndSettle(PROMPTS[0]!, 'complete')
    await sendAndSettle(PROMPTS[1]!, 'failed')
    await sendAndSettle(PROMPTS[2]!, 'failed')

    // The retry countdown of the rate-limited reply is on screen (tier 2 armed, 2 s).
    const [complete, coded, rateLimited] = agentReplies()
    expect(complete).toHaveAttribute('data-status', 'complete')
    expect(coded!.querySelector('.failure__text')).toHaveTextContent(zh.errors.answer_empty)
    expect(rateLimited!.querySelector('[data-retry="armed"]')).not.toBeNull()
    expect(within(rateLimited!).getByRole('button', { name: zh.actions.cancelRetry })).toBeInTheDocument()

    // Regenerating the first reply would replace later messages: the confirm dialog asks first.
    await user().click(within(complete!).getByRole('button', { name: zh.actions.regenerate }))
    expect(screen.getByRole('alertdialog', { name: zh.regenerate.confirmTitle })).toBeInTheDocument()

    // A refused send leaves its worded reason under the composer.
    daemon.plan(['send_error'])
    await user().type(screen.getByRole('textbox', { name: zh.composer.label }), '第四个问题{Enter}')
    await advance(50)
    expect(screen.getByRole('alert')).toHaveTextContent(zh.errors.internal_error)

    // The operator's messages, the session in the list, the composer, the header are all on screen.
    expect(screen.getAllByRole('article', { name: zh.transcript.operator })).toHaveLength(3)
    // The daemon titled the session by its first message (the list read again after the send).
    expect(screen.getByRole('link', { current: 'page' })).toHaveTextContent(PROMPTS[0]!)
    expect(screen.getByRole('textbox', { name: zh.composer.label })).toHaveAttribute('placeholder', zh.composer.placeholder)
    expectNoEnglish()
  })

  it('the scan finds English when there is some', () => {
    render(
      <div>
        <p>重试 Retry</p>
        <button aria-label="Close">x</button>
        <p className="message__body">Daemon prose is content</p>
        <span lang="en">English</span>
        <p>错误码：model_rate_limited</p>
      </div>,
    )
    expect(visibleInterfaceText().flatMap(({ text }) => englishWords(text))).toEqual(['Retry', 'Close'])
  })
})

describe('?lang=zh', () => {
  it.each(['zh', 'zh-CN', 'ZH', 'zh-hans'])('?lang=%s is Chinese, whatever the case of the tag', (tag) => {
    localStorage.setItem('rebound.lang', 'en')
    window.history.replaceState(null, '', `/?lang=${tag}`)
    const i18n = createI18n({ detect: true })
    expect(currentLanguage(i18n)).toBe('zh')
    expect(i18n.t('sessions.new')).toBe(zh.sessions.new)
    expect(document.documentElement.lang).toBe('zh-Hans')
  })

  it('forces Chinese at boot, and <html lang> follows the language both ways', async () => {
    localStorage.setItem('rebound.lang', 'en')
    window.history.replaceState(null, '', '/?lang=zh')
    const i18n = createI18n({ detect: true })
    expect(currentLanguage(i18n)).toBe('zh')
    expect(document.documentElement.lang).toBe('zh-Hans')

    render(
      <Providers i18n={i18n} queryClient={createQueryClient()} runtime={createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }), window.sessionStorage)}>
        <App />
      </Providers>,
    )
    await advance(50)
    expect(screen.getByText(zh.sessions.empty)).toBeInTheDocument()
    expect(screen.getByRole('button', { name: zh.sessions.new })).toBeInTheDocument()

    await user().click(screen.getByRole('button', { name: 'English' }))
    expect(document.documentElement.lang).toBe('en')
    expect(screen.getByRole('button', { name: resources.en.translation.sessions.new })).toBeInTheDocument()
  })
})
