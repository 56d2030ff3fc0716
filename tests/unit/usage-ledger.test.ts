import { describe, expect, it } from 'vitest'
import { countSegments, EMPTY_LEDGER, ledgerSpent, type UsageLedger } from '../../src/thread/usage'
import type { Message } from '../../src/wire/types'

const START = Number.NEGATIVE_INFINITY
const END = Number.POSITIVE_INFINITY

/** Exchanges 1…n: operator at seq 2k-1, its reply (1 token in, k out) at 2k, written at k minutes. */
function exchange(k: number, status: Message['status'] = 'complete'): Message[] {
  const at = k * 60_000
  return [
    { id: `m${k}`, session_id: 's', role: 'operator', content: 'q', created_at: at, superseded: false, seq: 2 * k - 1 },
    { id: `r${k}`, session_id: 's', role: 'agent', content: 'a', created_at: at, superseded: false, seq: 2 * k, status, usage: { input_tokens: 1, output_tokens: k, cost_usd: 0.5 } },
  ]
}
const exchanges = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => exchange(from + i)).flat()
const count = (ledger: UsageLedger, ...segments: { lo: number; hi: number; messages: Message[] }[]) => countSegments(ledger, segments)

describe('what a session spent, as pages come and go', () => {
  it('counts from the newest page, says since when, and reaches the session total at its start', () => {
    // Exchanges 1–10; the newest page holds 6–10 (seqs 11–20).
    let ledger = count(EMPTY_LEDGER, { lo: 11, hi: END, messages: exchanges(6, 10) })
    expect(ledgerSpent(ledger)).toEqual({ usage: { input_tokens: 5, output_tokens: 6 + 7 + 8 + 9 + 10, cost_usd: 2.5 }, since: 6 * 60_000 })
    // Scrolling up reads 3–5: the count reaches further back.
    ledger = count(ledger, { lo: 5, hi: 10, messages: exchanges(3, 5) }, { lo: 11, hi: END, messages: exchanges(6, 10) })
    expect(ledgerSpent(ledger).since).toBe(3 * 60_000)
    expect(ledgerSpent(ledger).usage?.output_tokens).toBe(52)
    // The start: the whole session, once.
    ledger = count(ledger, { lo: START, hi: 4, messages: exchanges(1, 2) })
    expect(ledgerSpent(ledger)).toEqual({ usage: { input_tokens: 10, output_tokens: 55, cost_usd: 5 }, since: undefined })
  })

  it('keeps what a page counted when the page is let go, and never counts a page read again twice', () => {
    let ledger = count(EMPTY_LEDGER, { lo: 11, hi: END, messages: exchanges(6, 10) })
    ledger = count(ledger, { lo: START, hi: 10, messages: exchanges(1, 5) }, { lo: 11, hi: END, messages: exchanges(6, 10) })
    const whole = ledgerSpent(ledger)
    // The earlier page let go, then read again, in two halves.
    expect(count(ledger, { lo: 11, hi: END, messages: exchanges(6, 10) })).toBe(ledger)
    ledger = count(ledger, { lo: 5, hi: END, messages: exchanges(3, 10) })
    ledger = count(ledger, { lo: START, hi: 4, messages: exchanges(1, 2) }, { lo: 5, hi: END, messages: exchanges(3, 10) })
    expect(ledgerSpent(ledger)).toEqual(whole)
  })

  it('counts a run read while running once it is read ended, and a run that starts later', () => {
    let ledger = count(EMPTY_LEDGER, { lo: START, hi: END, messages: [...exchanges(1, 1), ...exchange(2, 'streaming')] })
    expect(ledgerSpent(ledger).usage?.output_tokens).toBe(1)
    ledger = count(ledger, { lo: START, hi: END, messages: exchanges(1, 2) })
    expect(ledgerSpent(ledger).usage?.output_tokens).toBe(3)
    ledger = count(ledger, { lo: START, hi: END, messages: exchanges(1, 2) })
    expect(ledgerSpent(ledger).usage?.output_tokens).toBe(3)
    ledger = count(ledger, { lo: START, hi: END, messages: exchanges(1, 3) })
    expect(ledgerSpent(ledger)).toEqual({ usage: { input_tokens: 3, output_tokens: 6, cost_usd: 1.5 }, since: undefined })
  })

  it('a page far above the end (a find hit) is not added to what the end says', () => {
    let ledger = count(EMPTY_LEDGER, { lo: 11, hi: END, messages: exchanges(6, 10) })
    const fromEnd = ledgerSpent(ledger)
    ledger = count(ledger, { lo: 1, hi: 4, messages: exchanges(1, 2) }, { lo: 11, hi: END, messages: exchanges(6, 10) })
    expect(ledgerSpent(ledger)).toEqual(fromEnd)
  })

  it('counts a reply whose end was written in from its stream (no seq yet) once, and once more never when a read brings it', () => {
    const [question, answer] = exchange(1)
    const { seq: _q, ...shownQuestion } = question!
    const { seq: _a, ...shownAnswer } = answer!
    let ledger = count(EMPTY_LEDGER, { lo: START, hi: END, messages: [] })
    ledger = count(ledger, { lo: START, hi: END, messages: [shownQuestion, { ...shownAnswer, status: 'streaming' }] })
    expect(ledgerSpent(ledger).usage).toBeUndefined()
    ledger = count(ledger, { lo: START, hi: END, messages: [shownQuestion, shownAnswer] })
    expect(ledgerSpent(ledger)).toEqual({ usage: { input_tokens: 1, output_tokens: 1, cost_usd: 0.5 }, since: undefined })
    ledger = count(ledger, { lo: START, hi: END, messages: [question!, answer!] })
    ledger = count(ledger, { lo: START, hi: END, messages: [...exchanges(1, 2)] })
    expect(ledgerSpent(ledger).usage).toEqual({ input_tokens: 2, output_tokens: 3, cost_usd: 1 })
  })
})
