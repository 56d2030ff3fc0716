import { afterEach, beforeEach, vi } from 'vitest'

// Any console.error fails the test that caused it: React warnings, act() misuse and
// unhandled render errors all land here and must not pass silently.
let errors: unknown[][] = []
beforeEach(() => {
  errors = []
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    errors.push(args)
  })
})
afterEach(() => {
  if (errors.length > 0) {
    const first = errors[0]!.map((a) => (a instanceof Error ? a.stack : String(a))).join(' ')
    throw new Error(`console.error was called ${errors.length} time(s): ${first}`)
  }
})
