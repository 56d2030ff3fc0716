/**
 * Every fault outcome of the mock daemon, in English and Chinese, each with its expected end
 * state on screen and in the daemon's state: one table, one row per outcome (every simple outcome,
 * and the parameterised forms with representative arguments), one test per row and language.
 *
 * The page's clock is Playwright's, paused just after the session opens, and moved only by the
 * test (`runClockUntil`): a 2 s countdown cannot fire before the test has read it, however loaded
 * the machine is, and waits of minutes cost no real time. At the end of every row the clock jumps
 * an hour on, past every countdown and provider time, and the end state must still hold with no
 * request the row did not expect.
 */
import type { Page } from '@playwright/test'
import { test as bare } from '@playwright/test'
import { parseOutcome, RAW_ERROR_TEXT, SIMPLE_OUTCOMES, UNKNOWN_CODE } from '../../mocks/faults'
import { DELTAS_BEFORE_ERROR } from '../../mocks/model'
import { deltasOf, replyFor } from '../../mocks/replies'
import type { RetryClass } from '../../src/wire/types'
import {
  agentReplies,
  daemonState,
  errorWords,
  expect,
  FIXED_NOW,
  messageBox,
  newSession,
  openApp,
  operatorMessages,
  peakCounts,
  recordTier1Lines,
  REGENERATE_REQUEST,
  replyBody,
  replySource,
  requestLog,
  runClockUntil,
  seenStatuses,
  seenTier1Lines,
  sendMessage,
  statusBadge,
  test,
  word,
  WORDS,
  type Lang,
} from './fixtures'

type SimpleOutcome = (typeof SIMPLE_OUTCOMES)[number]

/** What the reply shows as its failure: a code worded from the language's errors table, or the daemon's own words. */
type ShownFailure = { code: string } | { verbatim: string; code?: string }

/**
 * Tier 2 armed by the failure. `armed` shows a countdown of `seconds` (or one less, as it ticks);
 * `paused` shows "retry after HH:MM", `minutes` after the failure. Then the operator presses
 * Cancel retry (`cancel`: it ends cancelled, and nothing is regenerated even after the time), or
 * the row plans `ok` after the fault and lets the countdown regenerate it (`regenerate`).
 */
type Tier2 = ({ shows: 'armed'; seconds: number } | { shows: 'paused'; minutes: number }) & {
  then: 'cancel' | 'regenerate'
  /** Attempts tier 1 made before handing over, shown beside the countdown. */
  handoff?: number
}

/** An agent message as the daemon keeps it, one per run, in order (all but the last superseded). */
type StoredReply = {
  status: 'complete' | 'failed' | 'cancelled'
  /** `error.code`; absent means no error. An empty string is a plain-text frame's coded-less error. */
  code?: string
  /** `retry`; absent means no classification. `afterMs`: `retry_after_until` this far after the failure. */
  retry?: { retryable: boolean; retry_class: RetryClass; afterMs?: number }
  /** The text: none, the whole reply, the whole long (`slow`) reply, or the deltas before an error. */
  content: 'none' | 'reply' | 'long' | 'head'
}

type Row = {
  /** The reply's `data-status` at the end; `not_sent` when the send was refused and nothing shows. */
  end: 'complete' | 'failed' | 'cancelled' | 'not_sent'
  /** The failure shown (for a `regenerate` row, while the countdown runs; for `not_sent`, in the refusal). */
  failure?: ShownFailure
  /** The operator presses Stop while the reply runs. */
  stop?: true
  /** Tier 1's waits before attempts 2 and 3, in seconds, each announced on the reply's tier 1 line. */
  tier1?: { cause: 'model_unavailable' | 'model_rate_limited'; waits: number[] }
  tier2?: Tier2
  replies: StoredReply[]
  /** POST …/messages the daemon received (the send is retried once when its answer is lost). */
  sends?: number
  /** The stream broke before the end and the client attached to it again. */
  reattached?: true
}

const transient = (retry_class: RetryClass, afterMs?: number): StoredReply['retry'] => ({
  retryable: true,
  retry_class,
  ...(afterMs === undefined ? {} : { afterMs }),
})
const terminal = (retry_class: RetryClass): StoredReply['retry'] => ({ retryable: false, retry_class })
const completed: StoredReply = { status: 'complete', content: 'reply' }

const FLUX_SENTENCE = 'The flux capacitor is depleted; the run cannot go on.'

/** One row per simple outcome; a new outcome in SIMPLE_OUTCOMES fails to compile until it has its row. */
const SIMPLE_ROWS = {
  ok: { end: 'complete', replies: [completed] },
  slow: { end: 'complete', replies: [{ status: 'complete', content: 'long' }] },
  hang: { end: 'cancelled', stop: true, replies: [{ status: 'cancelled', content: 'none' }] },
  rate_limited: {
    end: 'complete',
    failure: { code: 'model_rate_limited' },
    tier2: { shows: 'armed', seconds: 2, then: 'regenerate' },
    replies: [{ status: 'failed', code: 'model_rate_limited', retry: transient('rate_limited'), content: 'none' }, completed],
  },
  overloaded: {
    end: 'failed',
    failure: { code: 'model_unavailable' },
    tier2: { shows: 'armed', seconds: 2, then: 'cancel' },
    replies: [{ status: 'failed', code: 'model_unavailable', retry: transient('overloaded'), content: 'none' }],
  },
  unreachable: {
    end: 'complete',
    failure: { code: 'model_unreachable' },
    tier2: { shows: 'armed', seconds: 2, then: 'regenerate' },
    replies: [{ status: 'failed', code: 'model_unreachable', retry: transient('network'), content: 'none' }, completed],
  },
  out_of_credit: {
    end: 'failed',
    failure: { code: 'model_out_of_credit' },
    replies: [{ status: 'failed', code: 'model_out_of_credit', retry: terminal('spend_limit_exceeded'), content: 'none' }],
  },
  auth_failed: {
    end: 'failed',
    failure: { code: 'model_rejected' },
    replies: [{ status: 'failed', code: 'model_rejected', retry: terminal('auth_failed'), content: 'none' }],
  },
  credentials_unresolved: {
    end: 'failed',
    failure: { code: 'credentials_unresolved' },
    replies: [{ status: 'failed', code: 'credentials_unresolved', retry: terminal('credentials_unresolved'), content: 'none' }],
  },
  spend_limit: {
    end: 'failed',
    failure: { code: 'spend_limit_exceeded' },
    replies: [{ status: 'failed', code: 'spend_limit_exceeded', retry: terminal('spend_limit_exceeded'), content: 'none' }],
  },
  context_overflow: {
    end: 'failed',
    failure: { code: 'context_overflow' },
    replies: [{ status: 'failed', code: 'context_overflow', retry: terminal('context_overflow'), content: 'none' }],
  },
  hard_quota: {
    end: 'failed',
    failure: { code: 'quota_exhausted' },
    replies: [{ status: 'failed', code: 'quota_exhausted', retry: terminal('quota_exhausted'), content: 'none' }],
  },
  unknown_code: {
    end: 'failed',
    failure: { verbatim: FLUX_SENTENCE, code: UNKNOWN_CODE },
    replies: [{ status: 'failed', code: UNKNOWN_CODE, content: 'head' }],
  },
  raw: {
    end: 'failed',
    failure: { verbatim: RAW_ERROR_TEXT },
    replies: [{ status: 'failed', code: '', content: 'head' }],
  },
  drop: { end: 'complete', reattached: true, replies: [completed] },
  lag: { end: 'complete', reattached: true, replies: [completed] },
  accept_then_drop: { end: 'complete', sends: 2, replies: [completed] },
  send_error: { end: 'not_sent', failure: { code: 'internal_error' }, replies: [] },
} satisfies Record<SimpleOutcome, Row>

/** The parameterised forms, with representative arguments. */
const PARAMETERISED_ROWS = {
  // Within tier 1's window: it waits the provider's 5 s twice, then hands the failure to tier 2.
  'rate_limited:5': {
    end: 'failed',
    failure: { code: 'model_rate_limited' },
    tier1: { cause: 'model_rate_limited', waits: [5, 5] },
    tier2: { shows: 'armed', seconds: 2, then: 'cancel', handoff: 3 },
    replies: [{ status: 'failed', code: 'model_rate_limited', retry: transient('rate_limited'), content: 'none' }],
  },
  // Beyond the window: it fails at once, and tier 2 counts down the provider's 120 s.
  'rate_limited:120': {
    end: 'complete',
    failure: { code: 'model_rate_limited' },
    tier2: { shows: 'armed', seconds: 120, then: 'regenerate' },
    replies: [{ status: 'failed', code: 'model_rate_limited', retry: transient('rate_limited', 120_000), content: 'none' }, completed],
  },
  'tier1:2': { end: 'complete', tier1: { cause: 'model_unavailable', waits: [1, 2] }, replies: [completed] },
  'tier1:4': {
    end: 'failed',
    failure: { code: 'model_unavailable' },
    tier1: { cause: 'model_unavailable', waits: [1, 2] },
    tier2: { shows: 'armed', seconds: 2, then: 'cancel', handoff: 3 },
    replies: [{ status: 'failed', code: 'model_unavailable', retry: transient('overloaded'), content: 'none' }],
  },
  'quota:50': {
    end: 'failed',
    failure: { code: 'model_rate_limited' },
    tier2: { shows: 'paused', minutes: 50, then: 'cancel' },
    replies: [{ status: 'failed', code: 'model_rate_limited', retry: transient('rate_limited', 50 * 60_000), content: 'none' }],
  },
  'code:model_rejected': {
    end: 'failed',
    failure: { code: 'model_rejected' },
    replies: [{ status: 'failed', code: 'model_rejected', retry: terminal('rejected'), content: 'head' }],
  },
  'code:answer_empty': {
    end: 'failed',
    failure: { code: 'answer_empty' },
    replies: [{ status: 'failed', code: 'answer_empty', retry: terminal('answer'), content: 'head' }],
  },
  // A transient code after the first deltas: tier 2 arms on a reply that has text.
  'code:model_unavailable': {
    end: 'complete',
    failure: { code: 'model_unavailable' },
    tier2: { shows: 'armed', seconds: 2, then: 'regenerate' },
    replies: [{ status: 'failed', code: 'model_unavailable', retry: transient('overloaded'), content: 'head' }, completed],
  },
} satisfies Record<string, Row>

const ROWS: Record<string, Row> = { ...SIMPLE_ROWS, ...PARAMETERISED_ROWS }

const LANGS = ['en', 'zh'] as const satisfies readonly Lang[]
const PROMPT: Record<Lang, string> = { en: 'Summarise the deploy log', zh: '总结一下部署日志' }

/** Where the page's clock stops once the session is open; every time in a row is counted from here. */
const PAUSED_AT = FIXED_NOW.getTime() + 10 * 60_000
/** An hour on from the end state: past every countdown and provider time of the table. */
const QUIET_MS = 60 * 60_000
const EVENTS_REQUEST = /^GET \/api\/v1\/sessions\/[^/]+\/runs\/[^/]+\/events$/
const CANCEL_REQUEST = /^POST \/api\/v1\/sessions\/[^/]+\/runs\/[^/]+\/cancel$/
const SEND_REQUEST = /^POST \/api\/v1\/sessions\/[^/]+\/messages$/

const BADGE = { complete: 'complete', failed: 'failed', cancelled: 'stopped' } as const
const RUN_STATUS = { complete: 'completed', failed: 'failed', cancelled: 'cancelled' } as const

/** The title's right-hand side, from the row itself so it cannot drift from what the test checks. */
function summary(row: Row): string {
  if (row.end === 'not_sent') return 'not sent, nothing created'
  if (row.stop) return 'stopped by the operator'
  const waits = row.tier1 ? `${row.tier1.waits.length} daemon retries, then ` : ''
  if (row.tier2) {
    const shown = row.tier2.shows === 'paused' ? `retry after ${clockTime(PAUSED_AT + row.tier2.minutes * 60_000)}` : 'armed'
    return `${waits}${shown}, ${row.tier2.then === 'cancel' ? 'cancelled by the operator' : 'regenerates to complete'}`
  }
  const first = row.replies[0]
  if (row.end === 'failed') return `failed ${first?.code || '(plain text)'}${first?.retry ? ` (${first.retry.retry_class})` : ''}, no retry`
  const how = row.reattached ? 'stream reattached, ' : row.sends === 2 ? 'send answer lost, ' : ''
  return `${waits}${how}complete`
}

/** HH:MM (UTC, the config's zone) of a time. */
const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 16)

/** The regexp of a countdown that reads `seconds` or one less (it may have ticked once). */
function countdown(lang: Lang, seconds: number): RegExp {
  const texts = [seconds, seconds - 1].map((s) => word(lang, 'retry.countdown', { seconds: s }).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^(${texts.join('|')})$`)
}

/** What the transcript shows right now, read in one step without waiting (the clock is paused). */
function screenNow(page: Page) {
  return page.evaluate(() => {
    const reply = document.querySelector('article[data-status]')
    return {
      status: reply?.getAttribute('data-status') ?? null,
      retry: reply?.querySelector('[data-retry]')?.getAttribute('data-retry') ?? null,
      alert: document.querySelector('[role="alert"]') !== null,
    }
  })
}

function expectedContent(kind: StoredReply['content'], prompt: string): string {
  switch (kind) {
    case 'none':
      return ''
    case 'reply':
      return replyFor(prompt)
    case 'long':
      return replyFor(prompt, true)
    case 'head':
      return deltasOf(replyFor(prompt)).slice(0, DELTAS_BEFORE_ERROR).join('')
  }
}

bare('the table has a row for every simple outcome, and its other rows are parameterised outcomes', () => {
  expect(Object.keys(SIMPLE_ROWS)).toEqual([...SIMPLE_OUTCOMES])
  for (const key of Object.keys(PARAMETERISED_ROWS)) {
    expect(parseOutcome(key), key).toBeDefined()
    expect((SIMPLE_OUTCOMES as readonly string[]).includes(key), key).toBe(false)
  }
})

for (const lang of LANGS) {
  test.describe(lang, () => {
    for (const [outcome, row] of Object.entries(ROWS)) {
      test(`${lang} · ${outcome} → ${summary(row)}`, async ({ page }) => {
        const prompt = PROMPT[lang]
        const faults = row.tier2?.then === 'regenerate' ? [outcome, 'ok'] : [outcome]
        const words = errorWords(lang)
        const reply = agentReplies(page, lang)
        const retryBox = reply.locator('[data-retry]')

        await page.clock.install({ time: FIXED_NOW })
        await recordTier1Lines(page)
        await openApp(page, { lang, faults })
        await newSession(page, lang)
        await page.clock.pauseAt(PAUSED_AT)
        await sendMessage(page, prompt, lang)

        // The outcome shows: the reply reaches its status (or the send is refused).
        if (row.reattached) {
          // Attached before the run moves, so there is a live connection for the fault to break.
          await expect.poll(async () => (await requestLog(page, EVENTS_REQUEST)).length).toBe(1)
        }
        await runClockUntil(page, async () => {
          const now = await screenNow(page)
          if (row.end === 'not_sent') return now.alert
          if (row.stop) return now.status === 'streaming'
          if (row.tier2) return now.status === 'failed' && now.retry === row.tier2.shows
          return now.status === row.end
        })

        // The worded failure: the language's words for its code, or the daemon's own words as they came.
        const expectFailureShown = async (failure: ShownFailure) => {
          const text = 'verbatim' in failure ? failure.verbatim : words[failure.code]
          expect(text, `the ${lang} words of the failure`).toBeTruthy()
          await expect(reply.locator('.failure__text')).toHaveText(text ?? '')
          const codeLine = reply.locator('.failure__code')
          if (failure.code) await expect(codeLine).toHaveText(word(lang, 'transcript.supportCode', { code: failure.code }))
          else await expect(codeLine).toHaveCount(0)
          // Outside English the daemon's own words are marked as untranslated.
          await expect(reply.locator('.failure__note')).toHaveCount('verbatim' in failure && lang === 'zh' ? 1 : 0)
        }
        if (row.failure && row.end !== 'not_sent') await expectFailureShown(row.failure)

        if (row.tier2) {
          const { tier2 } = row
          await expect(retryBox.locator('.retry__attempt')).toHaveText(word(lang, 'retry.attempt', { attempt: 1 }))
          if (tier2.shows === 'armed') {
            await expect(retryBox.locator('.retry__text')).toHaveText(countdown(lang, tier2.seconds))
          } else {
            const until = (await daemonState(page)).runs[0]?.retry?.retry_after_until ?? 0
            const time = clockTime(until)
            // Paused at 09:10 UTC, failed within the same minute: 50 minutes on is 10:00.
            expect(time).toBe(clockTime(PAUSED_AT + tier2.minutes * 60_000))
            await expect(retryBox.locator('.retry__text')).toHaveText(word(lang, 'retry.after', { time }))
          }
          if (tier2.handoff) await expect(retryBox.locator('.retry__handoff')).toHaveText(word(lang, 'tier1.handoff', { count: tier2.handoff }))
          else await expect(retryBox.locator('.retry__handoff')).toHaveCount(0)
          await expect(reply.getByRole('button', { name: WORDS[lang].retryNow })).toBeVisible()
          const cancel = reply.getByRole('button', { name: WORDS[lang].cancelRetry })
          await expect(cancel).toBeVisible()
          // While the scheduler owns the reply, Regenerate is not offered next to it.
          await expect(reply.getByRole('button', { name: WORDS[lang].regenerate })).toHaveCount(0)
          expect(await requestLog(page, REGENERATE_REQUEST)).toEqual([])

          if (tier2.then === 'cancel') {
            await cancel.click()
            await runClockUntil(page, async () => (await screenNow(page)).retry === 'cancelled')
          } else {
            const waitMs = tier2.shows === 'armed' ? tier2.seconds * 1000 : tier2.minutes * 60_000
            // Steps of a fiftieth of the wait: nothing is read before the end, and a long wait takes few steps.
            await runClockUntil(page, async () => (await screenNow(page)).status === 'complete', { stepMs: Math.max(250, waitMs / 50), maxMs: waitMs + 30_000 })
          }
        }

        if (row.stop) {
          await reply.getByRole('button', { name: WORDS[lang].stop }).click()
          await runClockUntil(page, async () => (await screenNow(page)).status === 'cancelled')
        }

        // Quiet: an hour on, nothing more happens by itself.
        await page.clock.fastForward(QUIET_MS)
        await page.clock.runFor(3_000)

        // --- The end state on screen ---
        const shown = row.end === 'not_sent' ? 0 : 1
        await expect(operatorMessages(page, lang)).toHaveCount(shown)
        await expect(reply).toHaveCount(shown)
        // Never two copies at once; a refused send too showed its message while it was on the wire.
        expect(await peakCounts(page), 'the most messages and replies shown at once').toEqual({ operator: 1, agent: shown })
        if (row.end === 'not_sent') {
          const reason = row.failure && 'code' in row.failure ? words[row.failure.code ?? ''] : undefined
          expect(reason, 'the refusal has its words').toBeTruthy()
          await expect(page.getByRole('alert')).toHaveText(word(lang, 'composer.refused', { reason: reason ?? '' }))
          await expect(messageBox(page, lang)).toHaveValue(prompt)
        } else {
          await expect(operatorMessages(page, lang)).toHaveAttribute('data-delivery', 'sent')
          await expect(operatorMessages(page, lang)).toContainText(prompt)
          await expect(messageBox(page, lang)).toHaveValue('')
          await expect(reply).toHaveAttribute('data-status', row.end)
          await expect(statusBadge(reply)).toHaveText(WORDS[lang][BADGE[row.end]])
          if (row.end === 'failed' && row.failure) await expectFailureShown(row.failure)
          else await expect(reply.locator('.failure')).toHaveCount(0)
          if (row.tier2?.then === 'cancel') {
            await expect(retryBox).toHaveAttribute('data-retry', 'cancelled')
            await expect(retryBox.locator('.retry__text')).toHaveText(word(lang, 'retry.cancelled'))
          } else {
            await expect(retryBox).toHaveCount(0)
          }
          await expect(reply.locator('[data-tier1]')).toHaveCount(0)
          await expect(reply.getByRole('button', { name: WORDS[lang].regenerate })).toBeVisible()
          const earlier = row.replies.length - 1
          const earlierButton = reply.getByRole('button', { name: /earlier version|历史版本/ })
          if (earlier > 0) await expect(earlierButton).toHaveText(word(lang, 'transcript.earlierVersions', { count: earlier }))
          else await expect(earlierButton).toHaveCount(0)
        }
        const fails = row.replies.some((r) => r.status === 'failed')
        expect((await seenStatuses(page)).includes('failed'), 'the reply read Failed at some point').toBe(fails)
        if (row.tier1) {
          const seen = await seenTier1Lines(page)
          for (const [index, seconds] of row.tier1.waits.entries()) {
            const cause = word(lang, `tier1.cause.${row.tier1.cause}`)
            expect(seen, `tier 1's wait before attempt ${index + 2}`).toContain(word(lang, 'tier1.waiting', { cause, attempt: index + 2, max: 3, seconds }))
          }
        } else {
          expect(await seenTier1Lines(page)).toEqual([])
        }

        // --- The end state in the daemon ---
        const state = await daemonState(page)
        expect(state.plan, 'the plan is consumed').toEqual([])
        const operator = state.messages.filter((m) => m.role === 'operator')
        expect(operator.map((m) => m.content)).toEqual(shown ? [prompt] : [])
        // Each run took its outcome from the plan in order; a send fault leaves the run `ok`.
        const runOutcomes = parseOutcome(outcome)?.kind === 'send' ? ['ok'] : faults
        expect(state.runs.map((r) => `${r.outcome}:${r.status}`)).toEqual(row.replies.map((r, i) => `${runOutcomes[i]}:${RUN_STATUS[r.status]}`))
        const agent = state.messages.filter((m) => m.role === 'agent')
        expect(agent).toHaveLength(row.replies.length)
        for (const [index, expected] of row.replies.entries()) {
          const stored = agent[index]
          const run = state.runs[index]
          expect(stored?.run_id).toBe(run?.id)
          expect(stored?.reply_to).toBe(operator[0]?.id)
          expect(stored?.superseded, `reply ${index + 1} superseded`).toBe(index < row.replies.length - 1)
          expect(stored?.status).toBe(expected.status)
          expect(stored?.content).toBe(expectedContent(expected.content, prompt))
          expect(stored?.error?.code).toBe(expected.code)
          const { afterMs, ...classification } = expected.retry ?? {}
          if (expected.retry) {
            expect(stored?.retry).toEqual({ ...classification, ...(afterMs === undefined ? {} : { retry_after_until: expect.any(Number) }) })
            if (afterMs !== undefined) {
              // The run failed within moments of PAUSED_AT (the clock moves in 100 ms steps).
              const after = (stored?.retry?.retry_after_until ?? 0) - PAUSED_AT
              expect(after).toBeGreaterThanOrEqual(afterMs)
              expect(after).toBeLessThan(afterMs + 5_000)
            }
          } else {
            expect(stored?.retry).toBeUndefined()
          }
          // The run carries the same error and classification as its message.
          expect(run?.error).toEqual(stored?.error)
          expect(run?.retry).toEqual(stored?.retry)
        }
        const last = row.replies.at(-1)
        if (last && last.content !== 'none') expect(await replySource(page, reply)).toBe(expectedContent(last.content, prompt))
        else if (last) await expect(replyBody(reply)).toHaveCount(0)

        // --- The requests it took ---
        expect(await requestLog(page, SEND_REQUEST)).toHaveLength(row.sends ?? 1)
        const regenerates = state.requests.filter((r) => REGENERATE_REQUEST.test(`${r.method} ${r.path}`))
        expect(regenerates, 'regenerate requests').toHaveLength(row.tier2?.then === 'regenerate' ? 1 : 0)
        const until = state.runs[0]?.retry?.retry_after_until
        if (regenerates[0] && until !== undefined) expect(regenerates[0].at, 'never before the provider’s time').toBeGreaterThanOrEqual(until)
        expect(await requestLog(page, CANCEL_REQUEST)).toHaveLength(row.stop ? 1 : 0)
        if (row.reattached) {
          const firstRun = state.runs[0]?.id ?? ''
          expect((await requestLog(page, EVENTS_REQUEST)).filter((line) => line.includes(`/runs/${firstRun}/`)).length).toBeGreaterThanOrEqual(2)
        }
      })
    }
  })
}
