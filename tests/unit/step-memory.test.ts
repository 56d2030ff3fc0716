import { afterEach, describe, expect, it } from 'vitest'
import { forgetSteps, keepOutput, keptOutput } from '../../src/chat/reply/steps/use-disclosure'

afterEach(() => forgetSteps())

describe("a step's kept whole output", () => {
  it('is kept by step', () => {
    keepOutput('msg_1:2', 'all of it')
    expect(keptOutput('msg_1:2')).toBe('all of it')
    expect(keptOutput('msg_1:3')).toBeUndefined()
  })

  it('lets the oldest go past 4,000,000 characters in all, and keeps the one read most lately', () => {
    const mb = 'x'.repeat(1_000_000)
    for (const key of ['a', 'b', 'c', 'd']) keepOutput(key, mb)
    // Read again: it becomes the newest.
    expect(keptOutput('a')).toBe(mb)
    keepOutput('e', mb)
    expect(keptOutput('b')).toBeUndefined()
    for (const key of ['a', 'c', 'd', 'e']) expect(keptOutput(key)).toBe(mb)
  })

  it('keeps no output larger than the bound, and a new one replaces the old under the same key', () => {
    keepOutput('big', 'y'.repeat(4_000_001))
    expect(keptOutput('big')).toBeUndefined()
    keepOutput('k', 'first')
    keepOutput('k', 'second')
    expect(keptOutput('k')).toBe('second')
  })
})
