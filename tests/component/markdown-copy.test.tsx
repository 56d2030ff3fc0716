import { act, fireEvent, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { COPIED_MS, COPY_FAILED_MS, CopyButton } from '../../src/markdown/copy-button'
import { ReplyMarkdown } from '../../src/markdown/reply-markdown'
import { renderInLanguage } from './markdown-helpers'

/** Puts a clipboard on the navigator (or takes it away, with `undefined`), as a browser would have it. */
function setClipboard(clipboard: { writeText: (text: string) => Promise<void> } | undefined) {
  Object.defineProperty(window.navigator, 'clipboard', { configurable: true, value: clipboard })
}

afterEach(() => {
  setClipboard(undefined)
  vi.useRealTimers()
})

/** Clicks and lets the clipboard's promise settle. */
async function click(button: HTMLElement) {
  await act(async () => {
    fireEvent.click(button)
  })
}

describe('CopyButton', () => {
  it('copies the text, says "Copied" on the button and to screen readers, then reads as before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const writeText = vi.fn(() => Promise.resolve())
    setClipboard({ writeText })
    renderInLanguage(<CopyButton text={'# Reply\n\nwith **Markdown**'} label="Copy reply" />)

    const button = screen.getByRole('button', { name: 'Copy reply' })
    expect(screen.getByRole('status')).toHaveTextContent(/^$/)
    await click(button)
    expect(writeText).toHaveBeenCalledWith('# Reply\n\nwith **Markdown**')
    expect(button).toHaveTextContent('Copied')
    expect(screen.getByRole('status')).toHaveTextContent('Copied')
    expect(screen.getByRole('status')).toHaveAttribute('role', 'status')

    await act(() => vi.advanceTimersByTimeAsync(COPIED_MS - 1))
    expect(button).toHaveTextContent('Copied')
    await act(() => vi.advanceTimersByTimeAsync(1))
    expect(button).toHaveTextContent('Copy reply')
    expect(screen.getByRole('status')).toHaveTextContent(/^$/)
  })

  it('reads "Copy" by default, and says so in Chinese in the Chinese interface', async () => {
    setClipboard({ writeText: () => Promise.resolve() })
    renderInLanguage(<CopyButton text="x" />, 'zh')
    await click(screen.getByRole('button', { name: '复制' }))
    expect(screen.getByRole('button')).toHaveTextContent('已复制')
    expect(screen.getByRole('status')).toHaveTextContent('已复制')
  })

  it('words a refusal next to the button and announces it, then clears it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    setClipboard({ writeText: () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError')) })
    renderInLanguage(<CopyButton text="x" />)
    await click(screen.getByRole('button', { name: 'Copy' }))
    const status = screen.getByRole('status')
    expect(status).toHaveTextContent('Could not copy: the browser did not allow access to the clipboard.')
    expect(status).toHaveClass('md-copy__failure')
    // The button keeps its words: nothing was copied.
    expect(screen.getByRole('button')).toHaveTextContent('Copy')
    await act(() => vi.advanceTimersByTimeAsync(COPY_FAILED_MS))
    expect(status).toHaveTextContent(/^$/)
  })

  it('words the failure when the page has no clipboard at all (not a secure context)', async () => {
    setClipboard(undefined)
    renderInLanguage(<CopyButton text="x" />, 'zh')
    await click(screen.getByRole('button', { name: '复制' }))
    expect(screen.getByRole('status')).toHaveTextContent('无法复制：浏览器不允许访问剪贴板。')
  })

  it('is reached with Tab and pressed with Enter or Space', async () => {
    const user = userEvent.setup()
    // After user-event's set-up, which installs a clipboard of its own.
    const writeText = vi.fn(() => Promise.resolve())
    setClipboard({ writeText })
    renderInLanguage(<CopyButton text="by keyboard" />)
    await user.tab()
    expect(screen.getByRole('button', { name: 'Copy' })).toHaveFocus()
    await user.keyboard('{Enter}')
    await user.keyboard(' ')
    expect(writeText).toHaveBeenCalledTimes(2)
    expect(await screen.findByRole('button', { name: 'Copied' })).toHaveFocus()
  })
})

describe('the code block’s Copy button', () => {
  it('copies the code exactly, without the fence or a trailing newline', async () => {
    const writeText = vi.fn(() => Promise.resolve())
    setClipboard({ writeText })
    renderInLanguage(<ReplyMarkdown source={'Try:\n\n```sh\nnpm ci\nnpm test\n```\n\nDone.'} />)
    await click(screen.getByRole('button', { name: 'Copy code' }))
    expect(writeText).toHaveBeenCalledWith('npm ci\nnpm test')
    expect(screen.getByRole('status')).toHaveTextContent('Copied')
  })
})
