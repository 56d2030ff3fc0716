import { describe, expect, it } from 'vitest'
import { BASE_WAIT_MS, MAX_WAIT_MS, backoffMs, remainingMs, retryDeadline } from '../../src/retry/schedule'

const NOW = Date.UTC(2026, 6, 1, 12, 0, 0)
const SECOND = 1000
const YEAR = 365 * 24 * 3600 * SECOND

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
})

describe('remainingMs', () => {
  it('is derived from the deadline and the clock, never negative', () => {
    expect(remainingMs(NOW + 1500, NOW)).toBe(1500)
    expect(remainingMs(NOW, NOW)).toBe(0)
    expect(remainingMs(NOW - 1, NOW)).toBe(0)
  })
})
