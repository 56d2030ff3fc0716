/**
 * Boot fetches the Markdown renderer beside the first reads (main.tsx): a reply drawn once it is
 * here is Markdown from its first render. Its own file: the chunk, once loaded, is loaded for
 * every test in a file, and markdown-lazy.test.tsx draws one before it is.
 */
import { screen } from '@testing-library/react'
import { expect, it } from 'vitest'
import { LazyReplyMarkdown, loadReplyMarkdown } from '../../src/markdown/lazy-reply-markdown'
import { renderInLanguage } from './markdown-helpers'

it('draws a reply as Markdown in the render that first shows it once the chunk is here: no plain text first', async () => {
  await loadReplyMarkdown()
  const { container } = renderInLanguage(<LazyReplyMarkdown source={'# Opened\n\nA **reply** from history.'} />)
  // Synchronously after the first render: no fallback, no second pass.
  expect(screen.getByRole('heading', { name: 'Opened' })).toBeInTheDocument()
  expect(screen.getByText('reply').tagName).toBe('STRONG')
  expect(container.querySelector('.md-reply--plain')).toBeNull()
})
