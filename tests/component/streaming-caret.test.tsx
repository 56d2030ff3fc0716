import { act } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AgentReply } from '../../src/chat/reply/agent-reply'
import type { Message } from '../../src/wire/types'
import { renderInLanguage } from './markdown-helpers'

const streaming = (content: string): Message => ({
  id: 'm2',
  session_id: 's1',
  role: 'agent',
  content,
  created_at: 1_700_000_000_000,
  superseded: false,
  status: 'streaming',
})

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('the streaming caret', () => {
  it('is steady while text arrives, blinks once the reply pauses, and is steady again when text resumes', () => {
    const { container, rerender } = renderInLanguage(<AgentReply message={streaming('Checking')} />)
    const caret = () => container.querySelector('.caret')!
    expect(caret()).not.toHaveAttribute('data-paused')

    // Text keeps arriving faster than the pause: it never blinks.
    for (const text of ['Checking the', 'Checking the logs', 'Checking the logs now']) {
      act(() => vi.advanceTimersByTime(600))
      rerender(<AgentReply message={streaming(text)} />)
      expect(caret()).not.toHaveAttribute('data-paused')
    }

    act(() => vi.advanceTimersByTime(1000))
    expect(caret()).toHaveAttribute('data-paused')

    rerender(<AgentReply message={streaming('Checking the logs now.')} />)
    expect(caret()).not.toHaveAttribute('data-paused')
    expect(caret()).toHaveAttribute('aria-hidden', 'true')

    // A second pause blinks again, a full pause after the last text, not before.
    act(() => vi.advanceTimersByTime(600))
    rerender(<AgentReply message={streaming('Checking the logs now. Found it')} />)
    act(() => vi.advanceTimersByTime(900))
    expect(caret()).not.toHaveAttribute('data-paused')
    act(() => vi.advanceTimersByTime(100))
    expect(caret()).toHaveAttribute('data-paused')
  })

  it('sets no timer per commit while text streams in', () => {
    const { container, rerender } = renderInLanguage(<AgentReply message={streaming('a')} />)
    const timers = vi.spyOn(globalThis, 'setTimeout')
    let text = 'a'
    for (let i = 0; i < 20; i++) {
      act(() => vi.advanceTimersByTime(50))
      text += ' more'
      rerender(<AgentReply message={streaming(text)} />)
    }
    // Twenty commits in a second: the pause's timer, once re-armed, is all that was set.
    expect(timers.mock.calls.filter(([, ms]) => typeof ms === 'number' && ms <= 1000).length).toBeLessThanOrEqual(1)
    act(() => vi.advanceTimersByTime(1000))
    expect(container.querySelector('.caret')).toHaveAttribute('data-paused')
    timers.mockRestore()
  })

  it('is gone once the reply is complete', () => {
    const { container } = renderInLanguage(<AgentReply message={{ ...streaming('Done.'), status: 'complete' }} />)
    expect(container.querySelector('.caret')).toBeNull()
  })
})
