import { expect, it, vi } from 'vitest'
import { LazyReplyMarkdown, loadReplyMarkdown } from '../../src/markdown/lazy-reply-markdown'
import { renderInLanguage } from './markdown-helpers'

// The renderer's chunk cannot be fetched (offline, or a deploy replaced it).
vi.mock('../../src/markdown/reply-markdown', () => {
  throw new Error('Failed to fetch dynamically imported module')
})

it('keeps showing the reply as plain text when the renderer cannot be loaded', async () => {
  const source = 'Still **readable**\nline two'
  const { container } = renderInLanguage(<LazyReplyMarkdown source={source} />)
  // The fetch has failed and nothing is left waiting for it.
  await loadReplyMarkdown()
  const plain = container.querySelector<HTMLElement>('.md-reply--plain')!
  expect(plain.textContent).toBe(source)
  expect(plain.style.whiteSpace).toBe('pre-wrap')
  expect(container.querySelector('strong')).toBeNull()
  // A reply drawn after the failure is plain too, and asks for nothing more.
  const later = renderInLanguage(<LazyReplyMarkdown source="# Later" />)
  expect(later.container.querySelector('.md-reply--plain')?.textContent).toBe('# Later')
})
