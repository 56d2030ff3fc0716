import { describe, expect, it } from 'vitest'
import { ReplyMarkdown } from '../../src/chat/markdown/reply-markdown'
import { renderInLanguage } from './markdown-helpers'

/** A reply of `count` paragraphs, each naming its number. */
const paragraphs = (count: number) => Array.from({ length: count }, (_, i) => `Paragraph number ${i + 1} of the reply.`).join('\n\n')

const runs = (container: HTMLElement) => [...container.querySelectorAll<HTMLElement>('.md-reply > .md-run')]

describe('a long reply in runs the browser may skip off screen', () => {
  it('renders a short reply as one plain run', () => {
    const { container } = renderInLanguage(<ReplyMarkdown source={paragraphs(12)} />)
    expect(runs(container)).toHaveLength(1)
    expect(container.querySelector('.md-run--skippable')).toBeNull()
    expect(container.querySelectorAll('p')).toHaveLength(12)
  })

  it('makes every finished run but the last skippable, with a size to hold until it is laid out', () => {
    const { container } = renderInLanguage(<ReplyMarkdown source={paragraphs(120)} />)
    const all = runs(container)
    expect(all).toHaveLength(3)
    expect(all.map((run) => run.classList.contains('md-run--skippable'))).toEqual([true, true, false])
    expect(all[0]!.style.containIntrinsicSize).toMatch(/^auto \d+px$/)
    expect(all[2]!.style.containIntrinsicSize).toBe('')
    // Skipping is the browser's: every paragraph is in the DOM, in order.
    const texts = [...container.querySelectorAll('p')].map((p) => p.textContent)
    expect(texts).toHaveLength(120)
    expect(texts[0]).toBe('Paragraph number 1 of the reply.')
    expect(texts[119]).toBe('Paragraph number 120 of the reply.')
  })

  it('never makes the run still streaming skippable, and does once a later run has begun', () => {
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source={paragraphs(60)} streaming />)
    expect(runs(container).map((run) => run.classList.contains('md-run--skippable'))).toEqual([true, false])
    rerender(<ReplyMarkdown source={`${paragraphs(60)}\n\nAnd more`} streaming />)
    expect(runs(container).map((run) => run.classList.contains('md-run--skippable'))).toEqual([true, false])
    // The first run's blocks were not rendered again: the same elements are still there.
    const first = container.querySelector('p')
    rerender(<ReplyMarkdown source={`${paragraphs(60)}\n\nAnd more text`} streaming />)
    expect(container.querySelector('p')).toBe(first)
  })
})
