import { expect, it, vi } from 'vitest'
import { LazyReplyMarkdown } from '../../src/markdown/lazy-reply-markdown'
import { renderInLanguage } from './markdown-helpers'

// The renderer's chunk cannot be fetched (offline, or a deploy replaced it).
vi.mock('../../src/markdown/reply-markdown', () => {
  throw new Error('Failed to fetch dynamically imported module')
})

it('keeps showing the reply as plain text when the renderer cannot be loaded', async () => {
  // React reports the error it caught; that report is expected here, not a failure.
  const reported = vi.spyOn(console, 'error').mockImplementation(() => undefined)
  const source = 'Still **readable**\nline two'
  const { container } = renderInLanguage(<LazyReplyMarkdown source={source} />)
  await vi.waitFor(() => expect(reported).toHaveBeenCalled())
  // The boundary caught the failed import (not a fallback still waiting for it).
  expect(reported.mock.calls.flat().map(String).join(' ')).toMatch(/error boundary you provided, PlainOnError/)
  const plain = container.querySelector<HTMLElement>('.md-reply--plain')!
  expect(plain.textContent).toBe(source)
  expect(plain.style.whiteSpace).toBe('pre-wrap')
  expect(container.querySelector('strong')).toBeNull()
})
