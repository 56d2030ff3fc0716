/**
 * A long session in the transcript: it opens with its newest page; the view scrolled to the top
 * reads the page before and the row the operator was on stays where it was; "Load earlier
 * messages" does the same from the keyboard; find reaches a word held nowhere near with the
 * daemon's search and goes to it, reading the page around it.
 */
import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { pageOf, searchOf } from '../../mocks/history'
import { formatClockTime } from '../../src/i18n/format'
import type { Message } from '../../src/wire/types'
import { advance, advanceUntil, createSession, installFakeClock, renderChat, startMockDaemonForFile } from './harness'

const { daemon, server } = startMockDaemonForFile()

beforeEach(() => installFakeClock())
afterEach(() => vi.useRealTimers())

const user = () => userEvent.setup({ delay: null, advanceTimers: (ms) => vi.advanceTimersByTime(ms) })

/**
 * `exchanges` questions and answers, in seq order; only the first question holds "Originquokka".
 * Exchanges in `regenerated` have that many earlier versions of their answer (superseded), so a
 * page of them makes fewer rows than it has messages.
 */
function longSession(sid: string, exchanges: number, regenerated: Record<number, number> = {}): Message[] {
  const out: Message[] = []
  const seq = () => out.length + 1
  for (let i = 1; i <= exchanges; i++) {
    const at = Date.UTC(2026, 0, 1) + i * 60_000
    out.push({ id: `q${i}`, session_id: sid, role: 'operator', content: i === 1 ? 'Where does the Originquokka live?' : `Question number ${i}`, created_at: at, superseded: false, seq: seq() })
    for (let v = 1; v <= (regenerated[i] ?? 0); v++)
      out.push({ id: `a${i}v${v}`, session_id: sid, role: 'agent', content: `Answer number ${i}, version ${v}`, created_at: at, superseded: true, reply_to: `q${i}`, run_id: `run_${i}_${v}`, status: 'complete', seq: seq() })
    out.push({ id: `a${i}`, session_id: sid, role: 'agent', content: `Answer number ${i}`, created_at: at, superseded: false, reply_to: `q${i}`, run_id: `run_${i}`, status: 'complete', seq: seq() })
  }
  return out
}

/**
 * Serves the session's history in pages and its search, as the daemon does; returns the reads'
 * queries. A page read waits for `held` when given (a slow daemon).
 */
function serve(sid: string, history: readonly Message[], held?: Promise<void>): string[] {
  const reads: string[] = []
  const number = (query: URLSearchParams, name: string) => (query.has(name) ? Number(query.get(name)) : undefined)
  server.use(
    http.get(`*/api/v1/sessions/${sid}/messages`, async ({ request }) => {
      const query = new URL(request.url).searchParams
      reads.push(query.toString())
      if (held && query.has('before')) await held
      if (!['limit', 'before', 'after'].some((name) => query.has(name))) return HttpResponse.json({ messages: history })
      return HttpResponse.json(pageOf(history, { limit: number(query, 'limit'), before: number(query, 'before'), after: number(query, 'after') }))
    }),
    http.get(`*/api/v1/sessions/${sid}/search`, ({ request }) => {
      const query = new URL(request.url).searchParams
      return HttpResponse.json(searchOf(history, query.get('q') ?? '', number(query, 'limit') ?? 20))
    }),
  )
  return reads
}

const questions = () => screen.queryAllByRole('article', { name: 'You' }).map((a) => a.textContent ?? '')

describe('a session held in pages', () => {
  it('opens with its newest page, and "Load earlier messages" reads the page before, from the keyboard', async () => {
    const sid = createSession(daemon)
    const reads = serve(sid, longSession(sid, 150))
    renderChat(sid)
    await advanceUntil(() => questions().length > 0, 'the newest page')
    expect(reads).toEqual(['limit=100'])
    expect(questions()).toHaveLength(50)
    expect(questions()[0]).toContain('Question number 101')
    const load = screen.getByRole('button', { name: 'Load earlier messages' })
    load.focus()
    await user().keyboard('{Enter}')
    await advanceUntil(() => questions().length === 100, 'the page before')
    expect(reads).toEqual(['limit=100', 'limit=100&before=201'])
    expect(questions()[0]).toContain('Question number 51')
    // The rest is still to come, and so is its button.
    expect(screen.getByRole('button', { name: 'Load earlier messages' })).toBeInTheDocument()
  })

  it('says what was spent since the first message read, and the session total once its start is read', async () => {
    const sid = createSession(daemon)
    const history = longSession(sid, 150).map((m) => (m.role === 'agent' ? { ...m, usage: { input_tokens: 10, output_tokens: 1 } } : m))
    serve(sid, history)
    renderChat(sid)
    await advanceUntil(() => questions().length > 0, 'the newest page')
    // The newest page holds exchanges 101–150.
    const spent = () => screen.getByRole('group', { name: /^(Spent since|Session total)/ })
    const since = (exchange: number) => `Spent since ${formatClockTime(Date.UTC(2026, 0, 1) + exchange * 60_000, Date.now(), 'en')}`
    expect(spent()).toHaveAccessibleName(since(101))
    expect(spent()).toHaveTextContent('500 tokens in')
    const load = async (rows: number) => {
      screen.getByRole('button', { name: 'Load earlier messages' }).focus()
      await user().keyboard('{Enter}')
      await advanceUntil(() => questions().length === rows, 'the page before')
    }
    await load(100)
    expect(spent()).toHaveAccessibleName(since(51))
    expect(spent()).toHaveTextContent('1,000 tokens in')
    await load(150)
    expect(spent()).toHaveAccessibleName('Session total')
    expect(spent()).toHaveTextContent('1,500 tokens in')
    expect(spent()).toHaveTextContent('150 tokens out')
  })

  it('finds a word only the first message holds with the daemon search, reads the page around it and goes to it', async () => {
    const sid = createSession(daemon)
    const reads = serve(sid, longSession(sid, 500))
    renderChat(sid)
    await advanceUntil(() => questions().length > 0, 'the newest page')
    expect(screen.queryByText(/Originquokka/)).toBeNull()
    const find = screen.getByRole('searchbox', { name: 'Find in session' })
    await user().type(find, 'originquokka')
    await advanceUntil(() => screen.queryByText('1 match') !== null, 'the daemon’s hit')
    await user().type(find, '{Enter}')
    await advanceUntil(() => screen.queryByText(/Originquokka/) !== null, 'the hit shown')
    expect(reads.at(-1)).toBe('limit=100&before=51')
    expect(screen.getByText('1 of 1')).toBeInTheDocument()
    const hit = screen.getByText(/Originquokka/).closest('[data-index]')
    expect(hit).toHaveClass('transcript__row--match')
    // The rows between the hit's page and the end are not held: a gap stands for them.
    expect(screen.getAllByRole('button', { name: 'Load more messages' })).toHaveLength(1)
  })

  it('numbers every match in order, held or not, with all the daemon’s hits asked at once', async () => {
    const sid = createSession(daemon)
    serve(sid, longSession(sid, 500))
    renderChat(sid)
    await advanceUntil(() => questions().length > 0, 'the newest page')
    const find = screen.getByRole('searchbox', { name: 'Find in session' })
    // Exchanges 4, 40–49 and 400–499 hold "number 4": 222 messages, the 98 of exchanges 451–499
    // held; a page of 50 hits left the 74 between its last and them unknown.
    await user().type(find, 'number 4')
    await advanceUntil(() => screen.queryByText('222 matches') !== null, 'the daemon’s hits')
    await user().type(find, '{Shift>}{Enter}{/Shift}')
    expect(screen.getByText('222 of 222')).toBeInTheDocument()
    await user().type(find, '{Shift>}{Enter}{/Shift}')
    expect(screen.getByText('221 of 222')).toBeInTheDocument()
  })

  it('past the daemon’s largest page of hits, gives a held match no number it cannot know', async () => {
    const sid = createSession(daemon)
    serve(sid, longSession(sid, 600))
    // Ahead of serve's handler: notes each search and lets it answer.
    const searches: string[] = []
    server.use(
      http.get(`*/api/v1/sessions/${sid}/search`, ({ request }) => {
        searches.push(new URL(request.url).search)
      }),
    )
    renderChat(sid)
    await advanceUntil(() => questions().length > 0, 'the newest page')
    const find = screen.getByRole('searchbox', { name: 'Find in session' })
    // 1,200 messages hold "number"; the daemon gives the oldest 1,000 and says there are more; the newest 100 are held.
    await user().type(find, 'number')
    await advanceUntil(() => screen.queryByText('1100+ matches') !== null, 'the daemon’s hits')
    expect(searches).toEqual(['?q=number&limit=1000'])
    // The newest held message: 200 hits the daemon did not give lie between it and its last.
    await user().type(find, '{Shift>}{Enter}{/Shift}')
    expect(screen.getByText('After the first 1000 matches')).toBeInTheDocument()
    // The first, from the daemon's hits: its number is known.
    await user().type(find, '{Enter}')
    await advanceUntil(() => screen.queryByText(/Originquokka/) !== null, 'the first message')
    expect(screen.getByText('1 of 1100+')).toBeInTheDocument()
  })
})

describe('a session held in pages, laid out', () => {
  const VIEW_PX = 400
  const ROW_PX = 100
  const restore: Array<() => void> = []
  /** A screen for the transcript: jsdom lays nothing out, so the log, its rows and its scroll are given sizes. */
  function layOut() {
    const offsets = new WeakMap<Element, number>()
    const isLog = (el: Element) => el.classList.contains('transcript')
    const content = (el: Element) => parseFloat((el.querySelector('.transcript__content') as HTMLElement | null)?.style.height ?? '0') || 0
    const define = (proto: object, name: string, descriptor: PropertyDescriptor) => {
      const before = Object.getOwnPropertyDescriptor(proto, name)
      Object.defineProperty(proto, name, { configurable: true, ...descriptor })
      restore.push(() => (before ? Object.defineProperty(proto, name, before) : delete (proto as Record<string, unknown>)[name]))
    }
    const rowHeight = (el: HTMLElement) => (el.style.height ? parseFloat(el.style.height) : ROW_PX)
    define(HTMLElement.prototype, 'offsetHeight', {
      get(this: HTMLElement) {
        return isLog(this) ? VIEW_PX : this.classList.contains('transcript__row') ? rowHeight(this) : 0
      },
    })
    define(HTMLElement.prototype, 'offsetWidth', { get(this: HTMLElement) { return isLog(this) ? 800 : 0 } })
    define(Element.prototype, 'clientHeight', { get(this: Element) { return isLog(this) ? VIEW_PX : 0 } })
    define(Element.prototype, 'scrollHeight', { get(this: Element) { return isLog(this) ? content(this) : 0 } })
    define(Element.prototype, 'scrollTop', {
      get(this: Element) {
        return offsets.get(this) ?? 0
      },
      set(this: Element, value: number) {
        offsets.set(this, Math.max(0, Math.min(value, this.scrollHeight - this.clientHeight)))
        this.dispatchEvent(new Event('scroll'))
      },
    })
    define(Element.prototype, 'scrollTo', {
      value(this: Element, options: ScrollToOptions) {
        if (options.top !== undefined) this.scrollTop = options.top
      },
    })
    // jsdom's style drops a translate3d it cannot parse: kept as written, it says where a row is.
    const transforms = new WeakMap<CSSStyleDeclaration, string>()
    define(CSSStyleDeclaration.prototype, 'transform', {
      get(this: CSSStyleDeclaration) {
        return transforms.get(this) ?? ''
      },
      set(this: CSSStyleDeclaration, value: string) {
        transforms.set(this, value)
      },
    })
    const rect = Element.prototype.getBoundingClientRect
    define(Element.prototype, 'getBoundingClientRect', {
      value(this: Element) {
        if (!this.classList.contains('transcript__row')) return rect.call(this)
        const style = (this as HTMLElement).style
        const height = rowHeight(this as HTMLElement)
        const log = this.closest('.transcript')
        const top = parseFloat(/translate3d\([^,]*,\s*(-?[\d.]+)px/.exec(style.transform)?.[1] ?? '0') - (log?.scrollTop ?? 0)
        return { x: 0, y: top, top, left: 0, right: 800, bottom: top + height, width: 800, height, toJSON: () => ({}) } as DOMRect
      },
    })
  }
  afterEach(() => {
    for (const undo of restore.splice(0).reverse()) undo()
  })

  /** The row across the middle of the view (a message, not a gap): its first words and where it is. */
  const underTheMiddle = () => {
    for (const row of document.querySelectorAll<HTMLElement>('.transcript__row:not(.transcript__row--gap)')) {
      const box = row.getBoundingClientRect()
      const article = row.querySelector('article')
      if (article && box.top <= VIEW_PX / 2 && box.bottom > VIEW_PX / 2) return { text: within(article).getByText(/number \d+/).textContent ?? '', top: box.top }
    }
    return undefined
  }

  /** Where the row of `text` is on screen: its offset in the log less the log's scroll. */
  const onScreen = (text: string) => {
    const row = screen.getByText(text).closest('[data-index]') as HTMLElement
    return row.getBoundingClientRect().top
  }

  it('reads the page before as the view nears the top, and the row on screen stays where it is when it lands', async () => {
    layOut()
    const sid = createSession(daemon)
    let release = () => {}
    // The page before the newest holds 30 earlier versions: 70 rows where its messages are 100.
    const history = longSession(sid, 500, { 420: 30 })
    const newest = history.at(-100)!
    const reads = serve(sid, history, new Promise<void>((resolve) => (release = resolve)))
    renderChat(sid)
    await advanceUntil(() => screen.queryByText('Answer number 500') !== null, 'the newest page')
    const log = screen.getByRole('log')
    expect(log.scrollTop).toBeGreaterThan(0)
    expect(reads).toEqual(['limit=100'])
    // Up, half a screen at a time, as a reader scrolls: the gap above the first row held comes
    // within reach, and its page is asked for (the daemon is slow to answer).
    while (reads.length < 2 || screen.queryByText('Question number 451') === null) {
      await act(async () => {
        log.scrollTop -= VIEW_PX / 2
      })
      await advance(20)
    }
    expect(reads[1]).toBe(`limit=100&before=${newest.seq}`)
    // The reader goes on up until the gap shows above the first row held.
    await act(async () => {
      log.scrollTop += onScreen('Question number 451') - 100
    })
    const eye = underTheMiddle()
    if (!eye) throw new Error('no row was on screen')
    expect(onScreen('Question number 451')).toBe(100)
    const indexOf = (text: string) => Number(screen.getByText(text).closest('[data-index]')?.getAttribute('data-index'))
    const at = indexOf(eye.text)
    release()
    // It lands: its rows go in above (the row read moves down the list, not on screen).
    await advanceUntil(() => indexOf(eye.text) > at, 'the page before to land')
    expect(onScreen(eye.text)).toBe(eye.top)
    // The page landed above: scrolling on up shows its rows, not a gap.
    while (screen.queryByText('Question number 450') === null && log.scrollTop > 0) {
      await act(async () => {
        log.scrollTop -= VIEW_PX / 2
      })
      await advance(20)
    }
    expect(screen.getByText('Question number 450')).toBeInTheDocument()
  })

  it('after a Stop, reads the session\'s end from the reply stopped, never the newest page again', async () => {
    const sid = createSession(daemon)
    const start = Date.UTC(2026, 0, 1)
    daemon.fill(sid, Array.from({ length: 150 }, (_, i) => ({ content: `Question number ${i + 1}`, at: start + i * 60_000 })))
    renderChat(sid)
    await advanceUntil(() => screen.queryByText('Question number 150') !== null, 'the session')
    daemon.plan(['long_tool:30'])
    await user().type(screen.getByRole('textbox', { name: 'Message' }), 'Run the long command{Enter}')
    await advanceUntil(() => document.querySelector('.step--tool[data-status="running"]') !== null, 'the tool running')
    // The last seq held before the send: the send's own messages came with its receipt, unnumbered.
    const sent = daemon.state().messages.findLast((m) => m.role === 'operator')!
    const readsBefore = daemon.state().requests.length
    const reply = screen.getAllByRole('article', { name: 'Agent' }).at(-1)!
    await user().click(within(reply).getByRole('button', { name: 'Stop' }))
    await advanceUntil(() => screen.getAllByRole('article', { name: 'Agent' }).at(-1)?.getAttribute('data-status') === 'cancelled', 'the reply stopped')
    await advance(1_000)
    const reads = daemon
      .state()
      .requests.slice(readsBefore)
      .filter((r) => r.method === 'GET' && /\/messages\?/.test(r.path))
      .map((r) => new URLSearchParams(r.path.split('?')[1]))
    expect(reads.length).toBeGreaterThan(0)
    // Each read starts where the exchange stopped begins: none goes back over the page held.
    for (const read of reads) expect(Number(read.get('after'))).toBeGreaterThanOrEqual((sent.seq as number) - 1)
  })

  it('keeps one row beyond the window while it follows a reply being written, through the reply\'s pauses, and the rest once it ends', async () => {
    layOut()
    const sid = createSession(daemon)
    for (let i = 1; i <= 12; i++) {
      daemon.plan(['plain'])
      const sent = daemon.send(sid, { content: `Question number ${i}`, client_message_id: `c${i}` })
      if (!sent.ok) throw new Error(sent.refusal.body.code)
      await advanceUntil(() => daemon.state().runs.filter((r) => r.status === 'completed').length === i, `answer ${i}`)
    }
    renderChat(sid)
    await advanceUntil(() => screen.queryByText('Question number 12') !== null, 'the session')
    await advance(500)
    const rows = () => document.querySelectorAll('.transcript__row').length
    const settled = rows()
    // A tool that runs for half a minute: the reply pauses there, long past a scroll's quiet.
    daemon.plan(['long_tool:30'])
    const input = screen.getByRole('textbox', { name: 'Message' })
    await user().type(input, 'Run the long command{Enter}')
    await advanceUntil(() => document.querySelector('.step--tool[data-status="running"]') !== null, 'the tool running')
    await advance(1_000)
    const following = rows()
    // Two rows more for the exchange sent, two fewer beyond the window (one left of the three).
    expect(following).toBe(settled)
    await advanceUntil(() => daemon.state().runs.every((r) => r.status === 'completed'), 'the reply to end', 60_000)
    await advanceUntil(() => screen.queryAllByRole('article', { name: 'Agent' }).at(-1)?.getAttribute('data-status') === 'complete', 'the reply shown complete')
    await advance(500)
    expect(rows()).toBe(following + 2)
  })
})
