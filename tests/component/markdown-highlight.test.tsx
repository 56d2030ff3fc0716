import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { GRAMMAR_LOADERS, LANGUAGE_IDS, type LanguageId } from '../../src/markdown/languages'
import { ReplyMarkdown } from '../../src/markdown/reply-markdown'
import { renderInLanguage } from './markdown-helpers'

// The real grammar loaders, each behind a spy: the highlighter imports them through this module.
vi.mock('../../src/markdown/languages', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/markdown/languages')>()
  const loaders = Object.fromEntries(Object.entries(original.GRAMMAR_LOADERS).map(([id, load]) => [id, vi.fn(load)]))
  return { ...original, GRAMMAR_LOADERS: loaders }
})

const imported = () => LANGUAGE_IDS.filter((id: LanguageId) => vi.mocked(GRAMMAR_LOADERS[id]).mock.calls.length > 0)

/** The `<pre>` of the reply's only code block. */
const pre = (container: HTMLElement) => container.querySelector<HTMLElement>('.md-code pre')!

describe('code highlighting', () => {
  // One file, one page: the tests run in order and share the highlighter, as replies on a page do.
  it('imports no grammar for a reply without code, for an unknown language, or for a block still streaming', async () => {
    renderInLanguage(<ReplyMarkdown source="Just **words**." />)
    const { container } = renderInLanguage(<ReplyMarkdown source={'```brainfuck\n++>\n```'} />)
    renderInLanguage(<ReplyMarkdown source={'```python\nprint("still typing'} streaming />)
    // Give a highlighter time to start, were one going to.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(imported()).toEqual([])
    expect(pre(container)).toHaveAttribute('data-highlighted', 'false')
    expect(pre(container).querySelector('span')).toBeNull()
  })

  it('highlights a finished TypeScript block with both themes as React elements, importing only that grammar', async () => {
    const code = 'const answer: number = 42\nexport function ask() {\n  return answer\n}'
    const { container } = renderInLanguage(<ReplyMarkdown source={`Here:\n\n\`\`\`ts\n${code}\n\`\`\``} />)
    await waitFor(() => expect(pre(container)).toHaveAttribute('data-highlighted', 'true'), { timeout: 10_000 })
    const keyword = [...pre(container).querySelectorAll<HTMLElement>('span[style]')].find((span) => span.textContent === 'const')!
    expect(keyword.style.getPropertyValue('--shiki-light')).toMatch(/^#[0-9a-f]{6}$/i)
    expect(keyword.style.getPropertyValue('--shiki-dark')).toMatch(/^#[0-9a-f]{6}$/i)
    // The highlighted code reads exactly as the code, and copies as it.
    expect(pre(container).textContent).toBe(code)
    expect(imported()).toEqual(['typescript'])
  })

  it('highlights the block a stream was writing once the stream ends, importing its grammar then', async () => {
    const source = 'Script:\n\n```py\nprint("done")\n```'
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source={source} streaming />)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(pre(container)).toHaveAttribute('data-highlighted', 'false')
    expect(imported()).toEqual(['typescript'])

    rerender(<ReplyMarkdown source={source} streaming={false} />)
    await waitFor(() => expect(pre(container)).toHaveAttribute('data-highlighted', 'true'), { timeout: 10_000 })
    expect(imported()).toEqual(['typescript', 'python'])
  })

  it('highlights a block as soon as a later block starts, while the reply still streams', async () => {
    const { container, rerender } = renderInLanguage(<ReplyMarkdown source={'```json\n{"ok": true}\n```\n'} streaming />)
    expect(pre(container)).toHaveAttribute('data-highlighted', 'false')
    rerender(<ReplyMarkdown source={'```json\n{"ok": true}\n```\n\nAnd then'} streaming />)
    await waitFor(() => expect(pre(container)).toHaveAttribute('data-highlighted', 'true'), { timeout: 10_000 })
    expect(screen.getByText('JSON')).toBeInTheDocument()
  })

  it('shows a block highlighted before at once when it is mounted again, without importing again', () => {
    const code = 'const answer: number = 42\nexport function ask() {\n  return answer\n}'
    const { container } = renderInLanguage(<ReplyMarkdown source={`Again:\n\n\`\`\`typescript\n${code}\n\`\`\``} />)
    expect(pre(container)).toHaveAttribute('data-highlighted', 'true')
    expect(vi.mocked(GRAMMAR_LOADERS.typescript)).toHaveBeenCalledTimes(1)
  })
})
