import '@testing-library/jest-dom/vitest'
import { cleanup } from '@testing-library/react'
import { afterEach, vi } from 'vitest'
import { forgetSteps } from '../../src/chat/reply/steps/use-disclosure'

// Testing Library's async wrapper (used by user-event and waitFor) only advances fake timers it
// recognises as Jest's; without this it waits on a faked setTimeout(0) forever.
Object.assign(globalThis, { jest: { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) } })

// jsdom lays nothing out, so it has no ResizeObserver; the transcript's stick-to-bottom needs the
// constructor to exist. Nothing is ever observed to resize, as nothing has a size here.
if (typeof globalThis.ResizeObserver === 'undefined') {
  globalThis.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
}

afterEach(() => {
  cleanup()
  // What the operator opened in a reply's steps is kept by message id for the page's lifetime; each test is a page of its own.
  forgetSteps()
  sessionStorage.clear()
  localStorage.clear()
})
