import { afterEach, describe, expect, it, vi } from 'vitest'
import { whenIdle } from '../../src/workers/idle'

afterEach(() => {
  vi.unstubAllGlobals()
  vi.useRealTimers()
})

describe('whenIdle', () => {
  it('asks the browser for an idle moment within the timeout, and cancels what it asked', () => {
    const request = vi.fn((_work: () => void, _options?: { timeout: number }) => 7)
    const cancel = vi.fn()
    vi.stubGlobal('requestIdleCallback', request)
    vi.stubGlobal('cancelIdleCallback', cancel)
    const work = vi.fn()
    const stop = whenIdle(work, { timeout: 500, fallback: 0 })
    expect(request).toHaveBeenCalledWith(work, { timeout: 500 })
    stop()
    expect(cancel).toHaveBeenCalledWith(7)
    whenIdle(work, { fallback: 1_000 })
    expect(request).toHaveBeenLastCalledWith(work, undefined)
  })

  it('waits the fallback where the browser has no idle callback, and a cancel keeps the work from running', () => {
    vi.useFakeTimers()
    vi.stubGlobal('requestIdleCallback', undefined)
    const work = vi.fn()
    whenIdle(work, { timeout: 2_000, fallback: 1_000 })
    vi.advanceTimersByTime(999)
    expect(work).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(work).toHaveBeenCalledTimes(1)
    const cancelled = vi.fn()
    whenIdle(cancelled, { fallback: 0 })()
    vi.advanceTimersByTime(10)
    expect(cancelled).not.toHaveBeenCalled()
  })
})
