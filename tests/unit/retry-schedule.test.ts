import { describe, expect, it } from 'vitest'
import { BASE_WAIT_MS, MAX_WAIT_MS, backoffMs, isArmable, remainingMs, retryDeadline } from '../../src/retry/schedule'
import type { Message } from '../../src/wire/types'
import { RETRY_CLASSES, TRANSIENT_RETRY_CLASSES } from '../../src/wire/types'

const NOW = Date.UTC(2026, 6, 1, 12, 0, 0)
const SECOND = 1000
const YEAR = 365 * 24 * 3600 * SECOND

function failedReply(overrides: Partial<Message> = {}): Message {
  return {
    id: 'reply-1',
    session_id: 'session-1',
    role: 'agent',
    content: '',
    created_at: NOW - 5 * SECOND,
    superseded: false,
    reply_to: 'anchor-1',
    run_id: 'run-1',
    status: 'failed',
    error: { code: 'model_rate_limited', message: 'Rate limited.' },
    retry: { retryable: true, retry_class: 'rate_limited' },
    ...overrides,
  }
}

describe('backoffMs', () => {
  it('waits 2 s, doubling each attempt, capped at 300 s', () => {
    const waits = Array.from({ length: 10 }, (_, i) => backoffMs(i + 1) / SECOND)
    expect(waits).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
  })

  it('stays at the cap for huge attempt numbers instead of overflowing', () => {
    expect(backoffMs(1_000)).toBe(MAX_WAIT_MS)
    expect(backoffMs(Number.MAX_SAFE_INTEGER)).toBe(MAX_WAIT_MS)
    expect(backoffMs(Infinity)).toBe(MAX_WAIT_MS)
  })

  it('treats attempts below 2 and non-numbers as the first attempt', () => {
    expect(backoffMs(0)).toBe(BASE_WAIT_MS)
    expect(backoffMs(-3)).toBe(BASE_WAIT_MS)
    expect(backoffMs(Number.NaN)).toBe(BASE_WAIT_MS)
  })
})

describe('retryDeadline', () => {
  it('is now plus the backoff when the provider named no time', () => {
    expect(retryDeadline({ attempt: 1, now: NOW })).toEqual({ deadline: NOW + 2 * SECOND, paused: false })
    expect(retryDeadline({ attempt: 3, now: NOW })).toEqual({ deadline: NOW + 8 * SECOND, paused: false })
  })

  it('is never before a future retry_after_until', () => {
    const until = NOW + 45 * SECOND
    expect(retryDeadline({ attempt: 1, now: NOW, retryAfterUntil: until })).toEqual({ deadline: until, paused: false })
  })

  it('keeps the backoff when retry_after_until is sooner than it', () => {
    const until = NOW + SECOND
    expect(retryDeadline({ attempt: 2, now: NOW, retryAfterUntil: until }).deadline).toBe(NOW + 4 * SECOND)
  })

  it('ignores a retry_after_until in the past', () => {
    expect(retryDeadline({ attempt: 1, now: NOW, retryAfterUntil: NOW - 60 * SECOND }).deadline).toBe(NOW + 2 * SECOND)
    expect(retryDeadline({ attempt: 1, now: NOW, retryAfterUntil: NOW }).deadline).toBe(NOW + 2 * SECOND)
  })

  it.each([Number.NaN, Infinity, -Infinity, String(NOW + 3_600_000), null, {}])(
    'ignores a malformed retry_after_until (%s)',
    (retryAfterUntil) => {
      expect(retryDeadline({ attempt: 1, now: NOW, retryAfterUntil })).toEqual({
        deadline: NOW + 2 * SECOND,
        paused: false,
      })
    },
  )

  it('pauses the countdown when the wait is longer than the cap', () => {
    const quota = NOW + 50 * 60 * SECOND
    expect(retryDeadline({ attempt: 1, now: NOW, retryAfterUntil: quota })).toEqual({ deadline: quota, paused: true })
  })

  it('does not pause at exactly the cap', () => {
    const atCap = NOW + MAX_WAIT_MS
    expect(retryDeadline({ attempt: 1, now: NOW, retryAfterUntil: atCap })).toEqual({ deadline: atCap, paused: false })
    expect(retryDeadline({ attempt: 9, now: NOW })).toEqual({ deadline: NOW + MAX_WAIT_MS, paused: false })
  })

  it('keeps a deadline years away, paused', () => {
    const until = NOW + 3 * YEAR
    expect(retryDeadline({ attempt: 1, now: NOW, retryAfterUntil: until })).toEqual({ deadline: until, paused: true })
  })

  it('counts the backoff from the failure when the caller knows when it happened', () => {
    expect(retryDeadline({ attempt: 2, failedAt: NOW - SECOND, now: NOW }).deadline).toBe(NOW + 3 * SECOND)
  })

  it('never lets a failure time from the future push the deadline out', () => {
    expect(retryDeadline({ attempt: 1, failedAt: NOW + 60 * SECOND, now: NOW }).deadline).toBe(NOW + 2 * SECOND)
    expect(retryDeadline({ attempt: 1, failedAt: Number.NaN, now: NOW }).deadline).toBe(NOW + 2 * SECOND)
  })
})

describe('remainingMs', () => {
  it('is derived from the deadline and the clock, never negative', () => {
    expect(remainingMs(NOW + 1500, NOW)).toBe(1500)
    expect(remainingMs(NOW, NOW)).toBe(0)
    expect(remainingMs(NOW - 1, NOW)).toBe(0)
  })
})

describe('isArmable', () => {
  const transient: ReadonlySet<string> = new Set(TRANSIENT_RETRY_CLASSES)
  const cases = RETRY_CLASSES.flatMap((retry_class) =>
    [true, false].map((retryable) => ({ retry_class, retryable, expected: retryable && transient.has(retry_class) })),
  )

  it.each(cases)('$retry_class, retryable $retryable → $expected', ({ retry_class, retryable, expected }) => {
    expect(isArmable(failedReply({ retry: { retryable, retry_class } }))).toBe(expected)
  })

  it('arms for exactly the five transient classes when retryable', () => {
    const armed = RETRY_CLASSES.filter((retry_class) => isArmable(failedReply({ retry: { retryable: true, retry_class } })))
    expect(armed).toEqual(['rate_limited', 'overloaded', 'unavailable', 'network', 'timeout'])
  })

  it('never arms from a superseded reply', () => {
    expect(isArmable(failedReply({ superseded: true }))).toBe(false)
  })

  it('never arms from a cancelled run', () => {
    expect(isArmable(failedReply({ status: 'cancelled', error: undefined }))).toBe(false)
  })

  it('never arms from a coarse failure with no classification', () => {
    expect(isArmable(failedReply({ retry: undefined }))).toBe(false)
  })

  it('never arms from a class this client does not know, even when retryable', () => {
    expect(isArmable(failedReply({ retry: { retryable: true, retry_class: 'cosmic_rays' } }))).toBe(false)
  })

  it('never arms from a reply that has not failed', () => {
    for (const status of ['queued', 'streaming', 'complete'] as const) {
      expect(isArmable(failedReply({ status }))).toBe(false)
    }
    expect(isArmable(failedReply({ status: undefined }))).toBe(false)
  })

  it('never arms from an operator message', () => {
    expect(isArmable(failedReply({ role: 'operator' }))).toBe(false)
  })
})
