import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { LazyReplyMarkdown } from '../../src/markdown/lazy-reply-markdown'
import { renderInLanguage } from './markdown-helpers'

describe('LazyReplyMarkdown', () => {
  it('shows the plain source with its line breaks until the renderer has loaded, then the Markdown', async () => {
    const source = '# Report\n\nFirst line\nsecond line <b>as typed</b>'
    const { container } = renderInLanguage(<LazyReplyMarkdown source={source} streaming />)
    // Before the chunk arrives: every character, as text, line breaks kept.
    const plain = container.querySelector<HTMLElement>('.md-reply--plain')!
    expect(plain.textContent).toBe(source)
    expect(plain.style.whiteSpace).toBe('pre-wrap')
    expect(container.querySelector('b, h3')).toBeNull()

    expect(await screen.findByRole('heading', { name: 'Report' })).toBeInTheDocument()
    expect(container.querySelector('.md-reply--plain')).toBeNull()
    expect(container).toHaveTextContent('second line <b>as typed</b>')
  })

  it('passes later deltas through once loaded', async () => {
    const { rerender } = renderInLanguage(<LazyReplyMarkdown source="Hello **wor" streaming />)
    expect((await screen.findByText('wor')).tagName).toBe('STRONG')
    rerender(<LazyReplyMarkdown source="Hello **world**, done." streaming={false} />)
    expect(screen.getByText('world').tagName).toBe('STRONG')
  })
})
