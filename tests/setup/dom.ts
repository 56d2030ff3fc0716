import '@testing-library/jest-dom/vitest'
import { cleanup } from '@testing-library/react'
import { afterEach, vi } from 'vitest'

// Testing Library's async wrapper (used by user-event and waitFor) only advances fake timers it
// recognises as Jest's; without this it waits on a faked setTimeout(0) forever.
Object.assign(globalThis, { jest: { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) } })

afterEach(() => {
  cleanup()
  sessionStorage.clear()
  localStorage.clear()
})
