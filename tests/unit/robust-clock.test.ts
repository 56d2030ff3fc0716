/**
 * The daemon's clock as the client measures it from `Date` headers (1 s resolution, truncated):
 * the estimator on synthetic answers, and the HTTP client reading every answer, refusals too.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RefusalError } from '../../src/wire/errors'
import { createDaemonClock } from '../../src/wire/clock'
import { createDaemonClient } from '../../src/wire/http'

const MINUTE = 60_000

/** One answer: the daemon stamps at `stampAt` (browser clock) with its own clock `offset` ahead. */
function answer(clock: ReturnType<typeof createDaemonClock>, offset: number, sentAt: number, rtt: number, stampFraction = 0.5) {
  const stampAt = sentAt + rtt * stampFraction
  clock.observe(new Date(Math.floor((stampAt + offset) / 1000) * 1000).toUTCString(), sentAt, sentAt + rtt)
}

describe('the offset estimator', () => {
  it('reads 0 for clocks in sync, however the seconds fall', () => {
    const clock = createDaemonClock()
    for (let i = 0; i < 20; i++) answer(clock, 0, 1_700_000_000_000 + i * 1337, 40)
    expect(clock.offsetMs()).toBe(0)
  })

  it.each([10 * MINUTE, -10 * MINUTE, 3_456, -777])('narrows to within a second of an offset of %i ms, never past it', (offset) => {
    const clock = createDaemonClock()
    let t = 1_700_000_000_000
    for (let i = 0; i < 15; i++) {
      answer(clock, offset, t, 30 + (i % 5) * 20)
      t += 1000 + 137 * i
    }
    const estimate = clock.offsetMs()
    // The lower bound: a daemon time is never placed earlier on the browser's clock than it is.
    expect(estimate).toBeLessThanOrEqual(offset + 0)
    expect(offset - estimate).toBeLessThan(1000)
  })

  it('property: the estimate is within (rtt + 1 s) below the true offset, or 0 when 0 fits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -3_600_000, max: 3_600_000 }),
        fc.array(fc.record({ gap: fc.integer({ min: 1, max: 5000 }), rtt: fc.integer({ min: 0, max: 800 }), at: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 20 }),
        (offset, answers) => {
          const clock = createDaemonClock()
          let t = 1_700_000_000_000
          let maxRtt = 0
          for (const a of answers) {
            t += a.gap
            maxRtt = Math.max(maxRtt, a.rtt)
            answer(clock, offset, t, a.rtt, a.at)
          }
          const estimate = clock.offsetMs()
          if (estimate === 0) return Math.abs(offset) < 1000 + maxRtt
          return estimate <= offset + 1 && offset - estimate <= 1000 + maxRtt + 1
        },
      ),
    )
  })

  it('follows a browser clock that was set: the newest answers win over older ones that disagree', () => {
    const clock = createDaemonClock()
    let t = 1_700_000_000_000
    for (let i = 0; i < 10; i++) answer(clock, 10 * MINUTE, (t += 1234), 20)
    expect(Math.abs(clock.offsetMs() - 10 * MINUTE)).toBeLessThan(1000)
    for (let i = 0; i < 3; i++) answer(clock, 0, (t += 1234), 20)
    expect(Math.abs(clock.offsetMs())).toBeLessThan(1000)
  })

  it('places a daemon time on the browser clock', () => {
    const clock = createDaemonClock()
    answer(clock, -10 * MINUTE, 1_700_000_000_000, 0, 0)
    expect(clock.toLocal(1_700_000_000_000)).toBe(1_700_000_000_000 - clock.offsetMs())
    expect(clock.toLocal(Infinity)).toBe(Infinity)
  })
})

describe('the HTTP client', () => {
  function clientWith(skew: number, status = 200) {
    let now = 1_700_000_000_000
    const fetch = (async () => {
      now += 25
      const body = status === 200 ? JSON.stringify({ sessions: [] }) : JSON.stringify({ error: 'no', code: 'unauthorized' })
      return new Response(body, { status, headers: { 'content-type': 'application/json', date: new Date(now - skew).toUTCString() } })
    }) as typeof globalThis.fetch
    return createDaemonClient({ baseUrl: 'http://daemon.test', fetch, now: () => (now += 5) })
  }

  it('measures the skew from the answers it reads (a browser 10 minutes fast)', async () => {
    const client = clientWith(10 * MINUTE)
    for (let i = 0; i < 8; i++) await client.listSessions()
    expect(client.daemonClock.samples()).toBe(8)
    expect(Math.abs(client.daemonClock.offsetMs() + 10 * MINUTE)).toBeLessThan(1100)
  })

  it('reads the Date of refusals too', async () => {
    const client = clientWith(-10 * MINUTE, 401)
    await expect(client.listSessions()).rejects.toBeInstanceOf(RefusalError)
    expect(client.daemonClock.samples()).toBe(1)
    expect(client.daemonClock.offsetMs()).toBeGreaterThan(9 * MINUTE)
  })
})
