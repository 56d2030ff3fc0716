/**
 * The tier 2 scheduler's stand-in, while its chunk is on the way: it arms nothing and offers
 * nothing, keeps what it was told (each session's latest history, the regenerates by hand), and
 * hands it all to the scheduler once the chunk arrives, whose listeners then hear it.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { createRetrySchedulerStandIn } from '../../src/retry/lazy-scheduler'
import * as schedulerModule from '../../src/retry/scheduler'
import { retryView } from '../../src/retry/view'
import { createKeyedStore } from '../../src/storage/keyed-store'
import type { Message } from '../../src/wire/types'
import { failedReply, SID } from './retry-fixtures'
import { memoryBackend } from './memory-backend'

const NOW = Date.UTC(2026, 6, 1, 12)

const operator = (id: string): Message => ({ id, session_id: SID, role: 'operator', content: `question ${id}`, created_at: Date.now(), superseded: false })

function standIn() {
  let arrive!: (module: typeof schedulerModule) => void
  let fail!: (error: unknown) => void
  const fetchModule = vi.fn(
    () =>
      new Promise<typeof schedulerModule>((resolve, reject) => {
        arrive = resolve
        fail = reject
      }),
  )
  const client = { regenerate: vi.fn(() => new Promise<never>(() => {})), cancelRun: vi.fn(), listMessagesPage: vi.fn(async () => ({ messages: [], has_more: false, skipped: 0 })) }
  const scheduler = createRetrySchedulerStandIn({ client, clock: { now: () => Date.now() }, store: createKeyedStore(memoryBackend()), refreshHistory: () => {}, wake: () => () => {} }, fetchModule)
  return { scheduler, fetchModule, arrive: (module = schedulerModule) => arrive(module), fail: (error: unknown) => fail(error) }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(NOW)
})

afterEach(() => {
  vi.useRealTimers()
})

it('arms nothing until the scheduler arrives, then arms from the latest history it was fed, and tells the listeners', async () => {
  const s = standIn()
  const listener = vi.fn()
  s.scheduler.subscribe(SID, listener)
  s.scheduler.feed(SID, [operator('op1')])
  s.scheduler.feed(SID, [operator('op1'), failedReply('a1', 'op1')])
  expect(s.scheduler.snapshot(SID).size).toBe(0)
  // Nothing armed: these have nothing to act on, and must not throw.
  s.scheduler.retryNow(SID, 'op1')
  s.scheduler.cancel(SID, 'op1')

  s.arrive()
  await vi.advanceTimersByTimeAsync(0)
  const armed = s.scheduler.snapshot(SID).get('op1')
  expect(armed && retryView(armed, Date.now()).status).toBe('armed')
  expect(listener).toHaveBeenCalled()
  // From now on every call is the scheduler's own.
  const heard = listener.mock.calls.length
  s.scheduler.cancel(SID, 'op1')
  expect(retryView(s.scheduler.snapshot(SID).get('op1')!, Date.now()).status).toBe('cancelled')
  expect(listener.mock.calls.length).toBeGreaterThan(heard)
  s.scheduler.dispose()
})

it('hands a regenerate by hand to the scheduler, and forgets a session left before it arrived', async () => {
  const s = standIn()
  s.scheduler.feed(SID, [operator('op1'), failedReply('a1', 'op1')])
  s.scheduler.feed('ses_2', [operator('op1'), failedReply('a1', 'op1')])
  s.scheduler.release('ses_2')
  s.scheduler.dismiss(SID, 'op0')
  const dismissed = vi.fn()
  s.arrive({
    ...schedulerModule,
    createRetryScheduler: (options) => {
      const made = schedulerModule.createRetryScheduler(options)
      const dismiss = made.dismiss
      return Object.assign(made, { dismiss: (sessionId: string, anchorId: string) => (dismissed(sessionId, anchorId), dismiss(sessionId, anchorId)) })
    },
  })
  await vi.advanceTimersByTimeAsync(0)
  expect(dismissed).toHaveBeenCalledWith(SID, 'op0')
  expect(s.scheduler.snapshot(SID).size).toBe(1)
  expect(s.scheduler.snapshot('ses_2').size).toBe(0)
  s.scheduler.dispose()
})

it('stops hearing a listener that unsubscribed before the scheduler arrived', async () => {
  const s = standIn()
  const listener = vi.fn()
  s.scheduler.subscribe(SID, listener)()
  s.scheduler.feed(SID, [operator('op1'), failedReply('a1', 'op1')])
  s.arrive()
  await vi.advanceTimersByTimeAsync(0)
  expect(s.scheduler.snapshot(SID).size).toBe(1)
  expect(listener).not.toHaveBeenCalled()
  s.scheduler.dispose()
})

it('asks for the chunk again at the next history read when it could not be fetched, and never makes a scheduler once disposed', async () => {
  const s = standIn()
  expect(s.fetchModule).toHaveBeenCalledTimes(1)
  s.fail(new Error('Failed to fetch dynamically imported module'))
  await vi.advanceTimersByTimeAsync(0)
  s.scheduler.feed(SID, [operator('op1'), failedReply('a1', 'op1')])
  expect(s.fetchModule).toHaveBeenCalledTimes(2)
  s.scheduler.dispose()
  s.arrive()
  await vi.advanceTimersByTimeAsync(0)
  expect(s.scheduler.snapshot(SID).size).toBe(0)
})
