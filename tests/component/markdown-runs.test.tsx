import { waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { ReplyMarkdown } from '../../src/markdown/reply-markdown'
import { renderInLanguage } from './markdown-helpers'

/** A reply of `count` paragraphs, each naming its number. */
const paragraphs = (count: number) => Array.from({ length: count }, (_, i) => `Paragraph number ${i + 1} of the reply.`).join('\n\n')

const runs = (container: HTMLElement) => [...container.querySelectorAll<HTMLElement>('.md-reply > .md-run')]
const skippable = (container: HTMLElement) => runs(container).map((run) => run.hasAttribute('data-skippable'))
const nextFrames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))))

describe('a long reply in runs the browser may skip off screen', () => {
  it('renders a short reply as one plain run', async () => {
    const { container } = renderInLanguage(<ReplyMarkdown source={paragraphs(12)} />)
    await nextFrames()
    expect(runs(container)).toHaveLength(1)
    expect(runs(container)[0]!.className).toBe('md-run')
    expect(container.querySelectorAll('p')).toHaveLength(12)
  })

  it('makes every finished run but the last skippable once it has been laid out, with a size to hold', async () => {
    const { container } = renderInLanguage(<ReplyMarkdown source={paragraphs(120)} />)
    // First rendered in full: a reply mounted again is measured at its true height.
    expect(skippable(container)).toEqual([false, false, false])
    await waitFor(() => expect(skippable(container)).toEqual([true, true, false]))
    const all = runs(container)
    expect(all[0]!.classList.contains('md-run--finished')).toBe(true)
    expect(all[0]!.style.containIntrinsicSize).toMatch(/^auto \d+px$/)
    expect(all[2]!.className).toBe('md-run')
    expect(all[2]!.style.containIntrinsicSize).toBe('')
    // Skipping is the browser's: every paragraph is in the DOM, in order.
    const texts = [...container.querySelectorAll('p')].map((p) => p.textContent)
    expect(texts).toHaveLength(120)
    expect(texts[0]).toBe('Paragraph number 1 of the reply.')
    expect(texts[119]).toBe('Paragraph number 120 of the reply.')
  })

  it('makes a streaming reply\'s first run skippable once the 51st block begins, and not before', async () => {
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source={paragraphs(50)} streaming />)
    await nextFrames()
    expect(skippable(container)).toEqual([false])
    rerender(<ReplyMarkdown source={`${paragraphs(50)}\n\nThe fifty-first`} streaming />)
    expect(runs(container)).toHaveLength(2)
    await waitFor(() => expect(skippable(container)).toEqual([true, false]))
    // The run that became skippable is the same element, its blocks left as they were.
    const first = container.querySelector('p')
    rerender(<ReplyMarkdown source={`${paragraphs(50)}\n\nThe fifty-first block`} streaming />)
    expect(container.querySelector('p')).toBe(first)
    expect(container.querySelector('p')?.textContent).toBe('Paragraph number 1 of the reply.')
  })

  it('makes the last run skippable too when more of the reply follows it (a step), once it stopped streaming', async () => {
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source={paragraphs(12)} streaming followed />)
    await nextFrames()
    expect(skippable(container)).toEqual([false])
    rerender(<ReplyMarkdown source={paragraphs(12)} followed />)
    await waitFor(() => expect(skippable(container)).toEqual([true]))
    expect(runs(container)[0]!.style.containIntrinsicSize).toMatch(/^auto \d+px$/)
  })
})
