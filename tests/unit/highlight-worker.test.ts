import { describe, expect, it, vi } from 'vitest'
import { createWorkerHighlighter, type HighlightWorkerLike } from '../../src/markdown/highlight-client'
import { serveHighlights, type HighlightAnswer, type HighlightPort, type HighlightRequest } from '../../src/markdown/highlight-protocol'
import { createCodeHighlighter, type CodeHighlighter } from '../../src/markdown/highlighter'
import { GRAMMAR_LOADERS, type GrammarModule, type LanguageId } from '../../src/markdown/languages'

type Listener = (event: { data: unknown }) => void

/**
 * A worker and its global scope joined as a real worker joins them: each side's messages reach
 * the other in a later task, as structured clones. `fail()` raises the worker's error event.
 */
function fakeWorker(serve?: (port: HighlightPort) => void) {
  const onPage = new Map<string, ((event: MessageEvent<HighlightAnswer>) => void)[]>()
  const inWorker: Listener[] = []
  const posted: HighlightRequest[] = []
  const port: HighlightPort = {
    postMessage: (message: HighlightAnswer) => setTimeout(() => onPage.get('message')?.forEach((listener) => listener(new MessageEvent('message', { data: structuredClone(message) })))),
    addEventListener: (_type, listener) => inWorker.push(listener as Listener),
  }
  serve?.(port)
  const worker = {
    postMessage: (message) => {
      posted.push(message)
      setTimeout(() => inWorker.forEach((listener) => listener({ data: structuredClone(message) })))
    },
    addEventListener: (type: string, listener: (event: MessageEvent<HighlightAnswer>) => void) => void onPage.set(type, [...(onPage.get(type) ?? []), listener]),
    terminate: vi.fn(),
  } satisfies HighlightWorkerLike
  const fail = () => onPage.get('error')?.forEach((listener) => listener(new MessageEvent('error')))
  return { worker, posted, fail }
}

const joined = (lines: { content: string }[][]) => lines.map((line) => line.map((token) => token.content).join('')).join('\n')

describe('the highlight worker', () => {
  it('answers each block with the lines the page highlighter gives it', async () => {
    const { worker, posted } = fakeWorker((port) => serveHighlights(port, createCodeHighlighter(undefined, { sliceMs: Infinity })))
    const spawn = vi.fn(() => worker)
    const fallback = vi.fn(() => Promise.resolve(createCodeHighlighter()))
    const highlighter = createWorkerHighlighter(spawn, fallback)
    const ts = 'const answer: number = 42\nexport function f() {\n  return "s"\n}'
    const json = '{"query": "retry", "limit": 3}'

    const [tsLines, jsonLines] = await Promise.all([highlighter.highlight(ts, 'typescript'), highlighter.highlight(json, 'json')])

    expect(joined(tsLines)).toBe(ts)
    expect(joined(jsonLines)).toBe(json)
    // The same tokens and colours as on the page.
    expect(tsLines).toEqual(await createCodeHighlighter().highlight(ts, 'typescript'))
    expect(posted.map((request) => request.language)).toEqual(['typescript', 'json'])
    expect(new Set(posted.map((request) => request.id)).size).toBe(2)
    // One worker for every block; the page's own highlighter never started.
    expect(spawn).toHaveBeenCalledTimes(1)
    expect(fallback).not.toHaveBeenCalled()
  })

  it('gives each block its own answer when the answers come back in another order', async () => {
    // A worker that answers the second block first.
    const { worker } = fakeWorker((port) => {
      const asked: HighlightRequest[] = []
      port.addEventListener('message', ({ data }) => {
        asked.push(data)
        if (asked.length === 2) for (const { id, code } of asked.reverse()) port.postMessage({ id, lines: [[{ content: code }]] })
      })
    })
    const highlighter = createWorkerHighlighter(() => worker, () => Promise.reject(new Error('not on the page')))

    const [first, second] = await Promise.all([highlighter.highlight('first()', 'typescript'), highlighter.highlight('second()', 'python')])

    expect(joined(first)).toBe('first()')
    expect(joined(second)).toBe('second()')
  })

  it('rejects a block the worker could not highlight, which leaves that code plain', async () => {
    const failing = { ...GRAMMAR_LOADERS, python: () => Promise.reject<GrammarModule>(new Error('chunk failed')) } as Record<LanguageId, () => Promise<GrammarModule>>
    const { worker, posted } = fakeWorker((port) => serveHighlights(port, createCodeHighlighter(failing, { sliceMs: Infinity })))
    const fallback = vi.fn(() => Promise.resolve(createCodeHighlighter()))
    const highlighter = createWorkerHighlighter(() => worker, fallback)

    await expect(highlighter.highlight('print("hi")', 'python')).rejects.toThrow('could not be highlighted')
    // The worker goes on answering the next block: nothing went to the page.
    expect(joined(await highlighter.highlight('[1, 2]', 'json'))).toBe('[1, 2]')
    expect(posted.map((request) => request.language)).toEqual(['python', 'json'])
    expect(fallback).not.toHaveBeenCalled()
    expect(worker.terminate).not.toHaveBeenCalled()
  })

  it('hands what it was asked, and everything after, to the page when the worker fails', async () => {
    // A worker that never answers: it fails with the block still asked.
    const { worker, posted, fail } = fakeWorker()
    const page: CodeHighlighter = { highlight: vi.fn((code: string) => Promise.resolve([[{ content: code }]])) }
    const fallback = vi.fn(() => Promise.resolve(page))
    const spawn = vi.fn(() => worker)
    const highlighter = createWorkerHighlighter(spawn, fallback)

    const asked = highlighter.highlight('let a = 1', 'typescript')
    await new Promise((resolve) => setTimeout(resolve))
    expect(posted).toHaveLength(1)
    fail()

    expect(joined(await asked)).toBe('let a = 1')
    expect(joined(await highlighter.highlight('let b = 2', 'typescript'))).toBe('let b = 2')
    expect(worker.terminate).toHaveBeenCalledTimes(1)
    // No second worker, and the page's highlighter made once.
    expect(spawn).toHaveBeenCalledTimes(1)
    expect(fallback).toHaveBeenCalledTimes(1)
    expect(posted).toHaveLength(1)
  })

  it('makes the page highlighter once for every block when no worker can start, and again after it failed to load', async () => {
    const page: CodeHighlighter = { highlight: vi.fn((code: string) => Promise.resolve([[{ content: code }]])) }
    const fallback = vi.fn<() => Promise<CodeHighlighter>>().mockRejectedValueOnce(new Error('chunk failed')).mockResolvedValue(page)
    const highlighter = createWorkerHighlighter(() => {
      throw new Error('no dedicated workers here')
    }, fallback)

    await expect(highlighter.highlight('a = 1', 'python')).rejects.toThrow('chunk failed')
    expect(joined(await highlighter.highlight('b = 2', 'python'))).toBe('b = 2')
    expect(joined(await highlighter.highlight('c = 3', 'python'))).toBe('c = 3')
    // Tried again after the failure, then kept: one highlighter for both later blocks.
    expect(fallback).toHaveBeenCalledTimes(2)
    expect(page.highlight).toHaveBeenCalledTimes(2)
  })

  it('highlights on the page when no worker can start', async () => {
    const page: CodeHighlighter = { highlight: vi.fn((code: string) => Promise.resolve([[{ content: code }]])) }
    const highlighter = createWorkerHighlighter(
      () => {
        throw new Error('workers are not allowed here')
      },
      () => Promise.resolve(page),
    )
    expect(joined(await highlighter.highlight('x = 1', 'python'))).toBe('x = 1')
    expect(page.highlight).toHaveBeenCalledWith('x = 1', 'python')
  })
})
