import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { ReplyMarkdown } from '../../src/markdown/reply-markdown'
import { renderInLanguage } from './markdown-helpers'

const renderReply = (source: string, lng: 'en' | 'zh' = 'en') => renderInLanguage(<ReplyMarkdown source={source} />, lng)

describe('ReplyMarkdown elements', () => {
  it('renders headings under the app’s own (# is an h3), lists, quotes, rules, emphasis and strikethrough', () => {
    const { container } = renderReply(
      ['# Deploy', '## Steps', '### Detail', '', '1. build', '2. **migrate**', '', '- *one*', '- ~~two~~', '', '> quoted', '', '---', '', 'end'].join('\n'),
    )
    expect(screen.getByRole('heading', { level: 3, name: 'Deploy' })).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 4, name: 'Steps' })).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 5, name: 'Detail' })).toBeInTheDocument()
    const [ordered, bulleted] = screen.getAllByRole('list')
    expect(ordered!.tagName).toBe('OL')
    expect(within(ordered!).getAllByRole('listitem')).toHaveLength(2)
    expect(within(ordered!).getByText('migrate').tagName).toBe('STRONG')
    expect(within(bulleted!).getByText('one').tagName).toBe('EM')
    expect(within(bulleted!).getByText('two').tagName).toBe('DEL')
    expect(container.querySelector('blockquote')).toHaveTextContent('quoted')
    expect(container.querySelector('hr')).not.toBeNull()
  })

  it('renders a task list with named, read-only boxes', () => {
    renderReply('- [x] backed up\n- [ ] restored')
    const boxes = screen.getAllByRole('checkbox', { name: 'Task' })
    expect(boxes.map((box) => box.getAttribute('aria-checked'))).toEqual(['true', 'false'])
    expect(boxes.every((box) => box.getAttribute('aria-disabled') === 'true')).toBe(true)
    expect(screen.getByRole('list')).toHaveTextContent('backed up restored')
  })

  it('renders a table inside a wrapper that scrolls sideways and can be focused', () => {
    const { container } = renderReply('| check | result |\n|---|--:|\n| api-2 | ok |')
    const table = screen.getByRole('table')
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['check', 'result'])
    expect(within(table).getByRole('cell', { name: 'ok' })).toHaveStyle({ textAlign: 'right' })
    const wrapper = container.querySelector('.md-table')
    expect(wrapper).toContainElement(table)
    expect(wrapper).toHaveAttribute('tabindex', '0')
  })

  it('renders inline code and a fenced block with its language in a header and a Copy button', () => {
    const { container } = renderReply('Run `npm ci` first.\n\n```ts\nconst a = 1\n```')
    expect(screen.getByText('npm ci').tagName).toBe('CODE')
    const block = container.querySelector('.md-code')!
    expect(within(block as HTMLElement).getByText('TypeScript')).toBeInTheDocument()
    expect(within(block as HTMLElement).getByRole('button', { name: 'Copy code' })).toBeInTheDocument()
    expect(block.querySelector('pre code')).toHaveTextContent('const a = 1')
    expect(block.querySelector('pre')).toHaveAttribute('tabindex', '0')
  })

  it('names a fence without a language "Text", and one outside the curated set as written', () => {
    const { container } = renderReply('```\nplain\n```\n\n```brainfuck\n++>\n```')
    expect([...container.querySelectorAll('.md-code__language')].map((el) => el.textContent)).toEqual(['Text', 'brainfuck'])
  })

  it('words the code block in Chinese in the Chinese interface', () => {
    renderReply('```\nx\n```', 'zh')
    expect(screen.getByRole('button', { name: '复制代码' })).toBeInTheDocument()
    expect(screen.getByText('文本')).toBeInTheDocument()
  })

  it('renders a safe link opening in a new tab without an opener', () => {
    renderReply('See [the log](https://example.com/log?id=1), <https://example.org> and www.example.net.')
    for (const link of screen.getAllByRole('link')) {
      expect(link).toHaveAttribute('target', '_blank')
      expect(link).toHaveAttribute('rel', 'noopener noreferrer')
    }
    expect(screen.getByRole('link', { name: 'the log' })).toHaveAttribute('href', 'https://example.com/log?id=1')
    expect(screen.getByRole('link', { name: 'https://example.org' })).toHaveAttribute('href', 'https://example.org/')
    expect(screen.getByRole('link', { name: 'www.example.net' })).toHaveAttribute('href', 'http://www.example.net/')
  })

  it('resolves a reference link whose definition is in another block', () => {
    renderReply('Read [the guide][guide] first.\n\n## Later\n\nAgain: [the guide][guide].\n\n[guide]: https://example.com/guide')
    const links = screen.getAllByRole('link', { name: 'the guide' })
    expect(links).toHaveLength(2)
    for (const link of links) expect(link).toHaveAttribute('href', 'https://example.com/guide')
  })

  it('keeps footnotes as the text that was written', () => {
    const { container } = renderReply('A claim.[^1]\n\n[^1]: The source.')
    expect(container).toHaveTextContent('A claim.[^1]')
    expect(container).toHaveTextContent('[^1]: The source.')
    expect(container.querySelector('section, sup, [id]')).toBeNull()
  })
})

describe('ReplyMarkdown with Chinese text', () => {
  it.each([
    ['**注意：**请重试。', '注意：'],
    ['请**务必**在部署前备份。', '务必'],
    ['结果是**“成功”**。', '“成功”'],
    ['**（可选）**步骤三', '（可选）'],
  ])('renders %s with the emphasis bold', (source, bold) => {
    renderReply(source, 'zh')
    expect(screen.getByText(bold).tagName).toBe('STRONG')
  })
})

describe('ReplyMarkdown safety', () => {
  const hostileSchemes = [
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'DaTa:text/html,hi',
    'vbscript:msgbox(1)',
    'VbScRiPt:msgbox(1)',
    '&#106;avascript:alert(1)',
    '&#x6A;avascript:alert(1)',
    'java&#x09;script:alert(1)',
    '&#32;javascript:alert(1)',
    'javascript&#58;alert(1)',
    '<javascript:alert(1)>',
    '< javascript:alert(1)>',
    '<java\tscript:alert(1)>',
    '/relative/in/this/app',
  ]
  it.each(hostileSchemes)('renders [click](%s) as plain text, not a link', (url) => {
    const { container } = renderReply(`Please [click](${url}) now.`)
    expect(screen.queryByRole('link')).toBeNull()
    expect(container.querySelector('a, [href]')).toBeNull()
    expect(container).toHaveTextContent('click')
  })

  it.each(['<javascript:alert(1)>', '<JavaScript:alert(1)>', '<data:text/html,hi>', '<vbscript:msgbox(1)>'])('renders the autolink %s as its text', (autolink) => {
    const { container } = renderReply(`Try ${autolink} now.`)
    expect(container.querySelector('a, [href]')).toBeNull()
    expect(container).toHaveTextContent(autolink.slice(1, -1))
  })

  it('renders a reference link to javascript: as text', () => {
    const { container } = renderReply('[click][x]\n\n[x]: javascript:alert(1)')
    expect(container.querySelector('a, [href]')).toBeNull()
    expect(container).toHaveTextContent('click')
  })

  it.each([
    ['<script>alert(1)</script>'],
    ['<img src=x onerror=alert(1)>'],
    ['<a href="javascript:alert(1)">click</a>'],
    ['<iframe src="https://example.com"></iframe>'],
    ['<div onclick="alert(1)">block HTML</div>'],
    ['<style>body{display:none}</style>'],
    ['<!-- a comment -->'],
  ])('shows the raw HTML %s as its characters, inline and as a block', (html) => {
    for (const source of [`Inline: ${html} end.`, `${html}\n\nafter`]) {
      const { container, unmount } = renderReply(source)
      expect(container.querySelector('script, img, iframe, style, a, [onclick], [onerror], [href], [src]')).toBeNull()
      expect(container.textContent).toContain(html)
      unmount()
    }
  })

  it('never loads an image: it is worded with its alt text and links to the image', () => {
    const { container } = renderReply('![deploy chart](https://tracker.example/pixel.png?conversation=secret)')
    expect(container.querySelector('img, [src]')).toBeNull()
    const link = screen.getByRole('link', { name: 'Image: deploy chart' })
    expect(link).toHaveAttribute('href', 'https://tracker.example/pixel.png?conversation=secret')
    expect(link).toHaveAttribute('rel', 'noopener noreferrer')
  })

  it('words an image with a hostile or no URL, and one inside a link, as text only', () => {
    const { container } = renderReply('![x](javascript:alert(1)) and ![](data:image/png;base64,AAAA) and [![badge](https://img.example/b.svg)](https://example.com)')
    expect(container.querySelector('img, [src]')).toBeNull()
    expect(screen.getAllByRole('link')).toHaveLength(1)
    expect(screen.getByRole('link')).toHaveTextContent('Image: badge')
    expect(container).toHaveTextContent('Image: x and Image and Image: badge')
  })

  it('words an image in Chinese in the Chinese interface', () => {
    renderReply('![部署图](https://example.com/a.png)', 'zh')
    expect(screen.getByRole('link', { name: '图片：部署图' })).toBeInTheDocument()
  })
})
