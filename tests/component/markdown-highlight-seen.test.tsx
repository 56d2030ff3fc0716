import { act, waitFor } from '@testing-library/react'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ReplyMarkdown } from '../../src/markdown/reply-markdown'
import { SEEN_DWELL_MS } from '../../src/markdown/use-seen'
import { renderInLanguage } from './markdown-helpers'

/** A stand-in IntersectionObserver: the test says when an element enters or leaves the view. */
class FakeObserver {
  static all: FakeObserver[] = []
  readonly targets = new Set<Element>()
  constructor(private readonly callback: IntersectionObserverCallback) {
    FakeObserver.all.push(this)
  }
  observe(target: Element) {
    this.targets.add(target)
  }
  unobserve(target: Element) {
    this.targets.delete(target)
  }
  disconnect() {
    this.targets.clear()
  }
  takeRecords() {
    return []
  }
  /** Tells every observer watching `target` that it is now in (or out of) view. */
  static show(target: Element, isIntersecting: boolean) {
    for (const observer of FakeObserver.all) {
      if (!observer.targets.has(target)) continue
      observer.callback([{ target, isIntersecting } as IntersectionObserverEntry], observer as unknown as IntersectionObserver)
    }
  }
  static watching(target: Element) {
    return FakeObserver.all.some((observer) => observer.targets.has(target))
  }
}

beforeAll(() => vi.stubGlobal('IntersectionObserver', FakeObserver))
afterAll(() => vi.unstubAllGlobals())

const block = (container: HTMLElement) => container.querySelector<HTMLElement>('.md-code')!
const pre = (container: HTMLElement) => container.querySelector<HTMLElement>('.md-code pre')!
const wait = (ms: number) => act(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe('a finished code block is highlighted once it has been in view a moment', () => {
  it('stays plain while it is out of view, and while it only passes through the view', async () => {
    const { container } = renderInLanguage(<ReplyMarkdown source={'Out of view:\n\n```python\nprint("far below")\n```'} />)
    await waitFor(() => expect(FakeObserver.watching(block(container))).toBe(true))
    await wait(SEEN_DWELL_MS * 2)
    expect(pre(container)).toHaveAttribute('data-highlighted', 'false')

    // In view for less than the dwell, then pushed past by the stream: still plain.
    act(() => FakeObserver.show(block(container), true))
    await wait(SEEN_DWELL_MS / 2)
    act(() => FakeObserver.show(block(container), false))
    await wait(SEEN_DWELL_MS * 2)
    expect(pre(container)).toHaveAttribute('data-highlighted', 'false')
    expect(pre(container).querySelector('span')).toBeNull()

    // The operator scrolls back to it: it stays in view, and is highlighted; then no longer watched.
    act(() => FakeObserver.show(block(container), true))
    await waitFor(() => expect(pre(container)).toHaveAttribute('data-highlighted', 'true'), { timeout: 10_000 })
    expect(pre(container).textContent).toBe('print("far below")')
    expect(FakeObserver.watching(block(container))).toBe(false)
  })

  it('is not watched while it streams in, nor when its language has no highlighting', async () => {
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source={'```json\n{"still": "typing'} streaming />)
    const plain = renderInLanguage(<ReplyMarkdown source={'```brainfuck\n++>\n```'} />)
    await wait(50)
    expect(FakeObserver.watching(block(container))).toBe(false)
    expect(FakeObserver.watching(block(plain.container))).toBe(false)

    rerender(<ReplyMarkdown source={'```json\n{"still": "typing"}\n```'} />)
    await waitFor(() => expect(FakeObserver.watching(block(container))).toBe(true))
    act(() => FakeObserver.show(block(container), true))
    await waitFor(() => expect(pre(container)).toHaveAttribute('data-highlighted', 'true'), { timeout: 10_000 })
  })

  it('shows a block highlighted before at once, even out of view, and does not watch it', async () => {
    const { container } = renderInLanguage(<ReplyMarkdown source={'Again:\n\n```python\nprint("far below")\n```'} />)
    expect(pre(container)).toHaveAttribute('data-highlighted', 'true')
    await wait(50)
    expect(FakeObserver.watching(block(container))).toBe(false)
  })
})
