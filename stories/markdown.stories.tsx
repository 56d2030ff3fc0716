import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, userEvent, waitFor, within } from 'storybook/test'
import { ReplyMarkdown } from '../src/markdown/reply-markdown'

/**
 * Agent replies rendered as Markdown, inside a reply's frame. Sample text follows the toolbar
 * language (text edited in Controls is shown as typed). Code blocks finish highlighting before a
 * play function returns, so a story reads the same however fast Shiki loads.
 */

/** A sample reply in each interface language. */
type Sample = { en: string; zh: string }

const lines = (...parts: string[]) => parts.join('\n')

const SAMPLES = {
  headings: {
    en: lines('# Deploy report', '', 'The deploy finished at 02:14.', '', '## Health checks', '', 'Two checks failed once.', '', '### api-2', '', 'Passed on the second try.'),
    zh: lines('# 部署报告', '', '部署于 02:14 完成。', '', '## 健康检查', '', '有两项检查失败过一次。', '', '### api-2', '', '第二次检查通过。'),
  },
  lists: {
    en: lines('Steps, in order:', '', '1. Build on runner 3', '2. Run the migration', '   - 12 statements', '   - none rolled back', '3. Mark the deploy complete', '', 'What to watch:', '', '- cache warm-up', '- *health check* timeouts'),
    zh: lines('按顺序的步骤：', '', '1. 在 3 号执行器上构建', '2. 执行数据库迁移', '   - 共 12 条语句', '   - 没有回滚', '3. 标记部署完成', '', '需要关注：', '', '- 缓存预热', '- *健康检查* 超时'),
  },
  tasks: {
    en: lines('Before the next deploy:', '', '- [x] Back up the database', '- [x] Warm the cache', '- [ ] Raise the health check timeout to 45 s'),
    zh: lines('下次部署之前：', '', '- [x] 备份数据库', '- [x] 预热缓存', '- [ ] 把健康检查超时提高到 45 秒'),
  },
  table: {
    en: lines(
      '| check | node | first try | second try | took |',
      '|---|---|---|---|--:|',
      '| health | api-2 | timed out after 30 s | passed | 31.2 s |',
      '| health | worker-1 | timed out after 30 s | passed | 30.8 s |',
      '| migration | db-primary | 12 statements, none rolled back | not needed | 72.0 s |',
      '| release-2026-11-30T02:14:00Z-4f9c2a7e1b3d5f60718293a4b5c6d7e8 | all | tagged | kept for rollback | 0.4 s |',
    ),
    zh: lines(
      '| 检查 | 节点 | 第一次 | 第二次 | 耗时 |',
      '|---|---|---|---|--:|',
      '| 健康检查 | api-2 | 30 秒后超时 | 通过 | 31.2 秒 |',
      '| 健康检查 | worker-1 | 30 秒后超时 | 通过 | 30.8 秒 |',
      '| 迁移 | db-primary | 12 条语句，没有回滚 | 不需要 | 72.0 秒 |',
      '| release-2026-11-30T02:14:00Z-4f9c2a7e1b3d5f60718293a4b5c6d7e8 | 全部 | 已打标签 | 保留以便回滚 | 0.4 秒 |',
    ),
  },
  code: {
    en: lines(
      'Raise the timeout in the health check:',
      '',
      '```ts',
      'export const healthCheck = {',
      "  path: '/healthz',",
      '  timeoutMs: 45_000, // was 30 s: the first request after a migration loads the new schema',
      '  retries: 1,',
      '}',
      '```',
      '',
      'Then redeploy with `npm run deploy -- --env prod`.',
    ),
    zh: lines(
      '在健康检查里调高超时：',
      '',
      '```ts',
      'export const healthCheck = {',
      "  path: '/healthz',",
      '  timeoutMs: 45_000, // 原为 30 秒：迁移后的第一个请求要加载新的表结构',
      '  retries: 1,',
      '}',
      '```',
      '',
      '然后用 `npm run deploy -- --env prod` 重新部署。',
    ),
  },
  inline: {
    en: 'Run `npm ci` before `npm test`; the flag `--env=prod` selects the production profile.',
    zh: '先运行 `npm ci`，再运行 `npm test`；`--env=prod` 选择生产环境配置。',
  },
  quote: {
    en: lines('The provider said:', '', '> Rate limit reached for requests.', '> Try again in 20 s.', '', 'The retry scheduler waited and tried again.'),
    zh: lines('服务商的回复是：', '', '> 请求已达到速率上限。', '> 请在 20 秒后重试。', '', '重试调度器等待后再次尝试。'),
  },
  links: {
    en: 'See [the deploy log](https://example.com/deploys/4.2), <https://status.example.com>, www.example.org, or write to <ops@example.com>.',
    zh: '参见[部署日志](https://example.com/deploys/4.2)、<https://status.example.com>、www.example.org，或写信给 <ops@example.com>。',
  },
  strikethrough: {
    en: 'The deploy ~~failed~~ finished at 02:14, ~~two~~ no checks failed for good.',
    zh: '部署~~失败了~~于 02:14 完成，~~两项~~没有检查真正失败。',
  },
  streamingFence: {
    en: lines('Here is the script:', '', '```sh', '#!/bin/sh', 'set -eu', 'npm ci', 'npm run deploy -- --env pr'),
    zh: lines('脚本如下：', '', '```sh', '#!/bin/sh', 'set -eu', 'npm ci', 'npm run deploy -- --env pr'),
  },
  streamingMarkers: {
    en: 'The deploy **finished** at 02:14. **Note: the steps are in [the runbook](https://example.com/run',
    zh: '部署于 02:14 **完成**。**注意：步骤见[运维手册](https://example.com/run',
  },
  hostileLinks: {
    en: lines(
      'Only the first of these is a link:',
      '',
      '- [the status page](https://status.example.com)',
      '- [click me](javascript:alert(1))',
      '- [or me](JaVaScRiPt:alert(document.cookie))',
      '- [and me](&#106;avascript:alert(1))',
      '- [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '- [vb](VBScript:msgbox(1))',
      '- <javascript:alert(1)>',
      '- ![tracking pixel](https://tracker.example/p.gif?conversation=secret)',
    ),
    zh: lines(
      '下面只有第一项是链接：',
      '',
      '- [状态页](https://status.example.com)',
      '- [点我](javascript:alert(1))',
      '- [还有我](JaVaScRiPt:alert(document.cookie))',
      '- [以及我](&#106;avascript:alert(1))',
      '- [数据](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '- [vb](VBScript:msgbox(1))',
      '- <javascript:alert(1)>',
      '- ![跟踪像素](https://tracker.example/p.gif?conversation=secret)',
    ),
  },
  rawHtml: {
    en: lines(
      'The page had <script>alert("x")</script> and <img src=x onerror=alert(1)> in it, and <a href="javascript:alert(1)">a link</a>.',
      '',
      '<div onclick="alert(1)">',
      '',
      'A block of HTML, shown as written.',
      '',
      '</div>',
    ),
    zh: lines(
      '页面里有 <script>alert("x")</script> 和 <img src=x onerror=alert(1)>，还有 <a href="javascript:alert(1)">一个链接</a>。',
      '',
      '<div onclick="alert(1)">',
      '',
      '一段 HTML，按原样显示。',
      '',
      '</div>',
    ),
  },
} satisfies Record<string, Sample>

/** A Chinese reply, in either interface language: emphasis next to Chinese punctuation. */
const CHINESE_REPLY = lines(
  '**注意：**请在部署前备份数据库。',
  '',
  '1. **第一步（必做）**运行 `npm ci`。',
  '2. 检查结果是否为**“成功”**。',
  '3. ~~不要~~直接重试 API 调用。',
)

/** The sample in the story's locale when `text` is one of the English samples; any other text as given. */
function localized(text: string, locale: unknown): string {
  if (locale !== 'zh') return text
  return Object.values(SAMPLES).find((sample) => sample.en === text)?.zh ?? text
}

const meta = {
  title: 'Chat/Reply Markdown',
  component: ReplyMarkdown,
  args: { source: SAMPLES.headings.en, streaming: false },
  render: (args, { globals, parameters }) => (
    // The reply's frame from the app's styles, so widths and scrolling are the real ones.
    <div className="message message--agent" lang={parameters.replyLang as string | undefined}>
      <ReplyMarkdown {...args} source={localized(args.source, globals.locale)} />
    </div>
  ),
} satisfies Meta<typeof ReplyMarkdown>

export default meta
type Story = StoryObj<typeof meta>

/** Waits until every code block of the story is highlighted. */
async function highlighted(canvasElement: HTMLElement): Promise<void> {
  await waitFor(
    () => {
      for (const pre of canvasElement.querySelectorAll('.md-code pre')) expect(pre).toHaveAttribute('data-highlighted', 'true')
    },
    { timeout: 10_000 },
  )
}

/** Headings nest under the app's own: `#` is an h3, `##` an h4. */
export const Headings: Story = {
  play: async ({ canvas }) => {
    await expect(canvas.getAllByRole('heading', { level: 3 })).toHaveLength(1)
    await expect(canvas.getAllByRole('heading', { level: 4 })).toHaveLength(1)
    await expect(canvas.getAllByRole('heading', { level: 5 })).toHaveLength(1)
  },
}

/** Ordered, bulleted and nested lists. */
export const Lists: Story = {
  args: { source: SAMPLES.lists.en },
  play: async ({ canvasElement }) => {
    await expect(canvasElement.querySelectorAll('ol > li')).toHaveLength(3)
    await expect(canvasElement.querySelectorAll('ol li ul > li')).toHaveLength(2)
  },
}

/** A GFM task list: the boxes show the state and cannot be changed. */
export const TaskList: Story = {
  args: { source: SAMPLES.tasks.en },
  play: async ({ canvas }) => {
    const boxes = canvas.getAllByRole('checkbox')
    await expect(boxes.map((box) => box.getAttribute('aria-checked'))).toEqual(['true', 'true', 'false'])
    for (const box of boxes) await expect(box).toHaveAttribute('aria-disabled', 'true')
  },
}

/** A table wider than the reply scrolls sideways inside it; a right-aligned column stays right. */
export const Table: Story = {
  args: { source: SAMPLES.table.en },
  play: async ({ canvas, canvasElement }) => {
    await expect(canvas.getAllByRole('row')).toHaveLength(5)
    await expect(canvasElement.querySelector('.md-table')).toContainElement(canvas.getByRole('table'))
  },
}

/** A fenced block with its language, highlighted, with a Copy button; a long line scrolls sideways. */
export const CodeWithLanguage: Story = {
  name: 'Code with language',
  args: { source: SAMPLES.code.en },
  play: async ({ canvas, canvasElement }) => {
    await expect(canvas.getByText('TypeScript')).toBeInTheDocument()
    await expect(canvas.getByRole('button')).toBeInTheDocument()
    await highlighted(canvasElement)
    await expect(canvasElement.querySelector('.md-code pre span[style]')).not.toBeNull()
  },
}

/** Inline code among the text. */
export const InlineCode: Story = {
  args: { source: SAMPLES.inline.en },
  play: async ({ canvasElement }) => {
    await expect([...canvasElement.querySelectorAll('p code')].map((code) => code.textContent)).toEqual(['npm ci', 'npm test', '--env=prod'])
  },
}

/** A quoted provider message. */
export const Blockquote: Story = {
  args: { source: SAMPLES.quote.en },
  play: async ({ canvasElement }) => {
    await expect(canvasElement.querySelector('blockquote')).not.toBeNull()
  },
}

/** Links, autolinks, a bare www address and an email address: each opens in a new tab, without an opener. */
export const Links: Story = {
  args: { source: SAMPLES.links.en },
  play: async ({ canvas }) => {
    const links = canvas.getAllByRole('link')
    await expect(links).toHaveLength(4)
    for (const link of links) {
      await expect(link).toHaveAttribute('target', '_blank')
      await expect(link).toHaveAttribute('rel', 'noopener noreferrer')
    }
    await expect(links.at(-1)).toHaveAttribute('href', 'mailto:ops@example.com')
  },
}

/** Struck-through words. */
export const Strikethrough: Story = {
  args: { source: SAMPLES.strikethrough.en },
  play: async ({ canvasElement }) => {
    await expect(canvasElement.querySelectorAll('del')).toHaveLength(2)
  },
}

/** Mid-stream, inside an open code fence: already a code block, plain until the fence closes. */
export const StreamingMidFence: Story = {
  name: 'Streaming, mid-fence',
  args: { source: SAMPLES.streamingFence.en, streaming: true },
  play: async ({ canvas, canvasElement }) => {
    const pre = canvasElement.querySelector('.md-code pre')
    await expect(pre).toHaveTextContent('npm run deploy -- --env pr')
    await expect(pre).toHaveAttribute('data-highlighted', 'false')
    await expect(canvas.getByText('Shell')).toBeInTheDocument()
    await expect(canvasElement.textContent).not.toContain('```')
  },
}

/** Mid-stream, with bold and a link still open: bold already, the link as its words, no raw markers. */
export const StreamingOpenMarkers: Story = {
  name: 'Streaming, open bold and link',
  args: { source: SAMPLES.streamingMarkers.en, streaming: true },
  play: async ({ canvas, canvasElement }) => {
    await expect(canvasElement.querySelectorAll('strong')).toHaveLength(2)
    await expect(canvas.queryByRole('link')).toBeNull()
    await expect(canvasElement.textContent).not.toMatch(/\*\*|\]\(/)
  },
}

/** Links a model can be talked into writing: only http(s) and mailto are live; an image never loads. */
export const HostileLinks: Story = {
  args: { source: SAMPLES.hostileLinks.en },
  play: async ({ canvas, canvasElement }) => {
    const links = canvas.getAllByRole('link')
    // The status page, and the image as a link to open on purpose.
    await expect(links.map((link) => link.getAttribute('href'))).toEqual(['https://status.example.com/', 'https://tracker.example/p.gif?conversation=secret'])
    await expect(canvasElement.querySelector('img, [src]')).toBeNull()
    await expect(canvasElement.textContent).toContain('javascript:alert(1)')
  },
}

/** HTML in a reply is text: shown as its characters, never markup, never dropped. */
export const RawHtml: Story = {
  name: 'Raw HTML',
  args: { source: SAMPLES.rawHtml.en },
  play: async ({ canvasElement }) => {
    await expect(canvasElement.querySelector('.md-reply script, .md-reply img, .md-reply a, [onclick], [onerror]')).toBeNull()
    await expect(canvasElement.textContent).toContain('<script>alert("x")</script>')
    await expect(canvasElement.textContent).toContain('<img src=x onerror=alert(1)>')
    await expect(canvasElement.textContent).toContain('<div onclick="alert(1)">')
  },
}

/** A Chinese reply (in either interface language): bold next to Chinese punctuation is bold. */
export const ChineseEmphasis: Story = {
  name: 'Chinese reply, emphasis',
  args: { source: CHINESE_REPLY },
  parameters: { replyLang: 'zh-Hans' },
  play: async ({ canvas }) => {
    for (const bold of ['注意：', '第一步（必做）', '“成功”']) await expect(canvas.getByText(bold).tagName).toBe('STRONG')
  },
}

/** Copy on a code block, confirmed: "Copied" on the button and to screen readers. */
export const CodeCopied: Story = {
  name: 'Code copied',
  args: { source: SAMPLES.code.en },
  beforeEach: () => {
    const descriptor = Object.getOwnPropertyDescriptor(window.navigator, 'clipboard')
    Object.defineProperty(window.navigator, 'clipboard', { configurable: true, value: { writeText: () => Promise.resolve() } })
    return () => {
      if (descriptor) Object.defineProperty(window.navigator, 'clipboard', descriptor)
      else Reflect.deleteProperty(window.navigator, 'clipboard')
    }
  },
  play: async ({ canvas, canvasElement }) => {
    await highlighted(canvasElement)
    const button = canvas.getByRole('button')
    const before = button.textContent
    await userEvent.click(button)
    await waitFor(() => expect(button.textContent).not.toBe(before))
    await expect(within(canvasElement).getByRole('status')).toHaveTextContent(button.textContent ?? '')
  },
}

/** Copy refused by the browser: the failure is worded next to the button. */
export const CodeCopyRefused: Story = {
  name: 'Code copy refused',
  args: { source: SAMPLES.code.en },
  beforeEach: () => {
    const descriptor = Object.getOwnPropertyDescriptor(window.navigator, 'clipboard')
    Object.defineProperty(window.navigator, 'clipboard', {
      configurable: true,
      value: { writeText: () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError')) },
    })
    return () => {
      if (descriptor) Object.defineProperty(window.navigator, 'clipboard', descriptor)
      else Reflect.deleteProperty(window.navigator, 'clipboard')
    }
  },
  play: async ({ canvas, canvasElement }) => {
    await highlighted(canvasElement)
    await userEvent.click(canvas.getByRole('button'))
    await waitFor(() => expect(canvasElement.querySelector('.md-copy__failure')).not.toBeNull())
    await expect(canvas.getByRole('status')).toHaveTextContent(/\S/)
  },
}
