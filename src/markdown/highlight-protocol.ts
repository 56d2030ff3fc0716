/**
 * What the page and the highlight worker say to each other (highlight-client.ts is the page's
 * side, highlight.worker.ts the worker's), and the worker's side of it.
 */
import type { CodeHighlighter, HighlightedLine } from './highlighter'
import type { LanguageId } from './languages'

/** What the page asks the worker: one block of code. */
export type HighlightRequest = { id: number; code: string; language: LanguageId }
/** What the worker answers: the block's lines, or that it could not highlight it (the code stays plain). */
export type HighlightAnswer = { id: number; lines: HighlightedLine[] } | { id: number; failed: true }

/** The part of the worker's global scope it answers through. */
export type HighlightPort = {
  postMessage(message: HighlightAnswer): void
  addEventListener(type: 'message', listener: (event: MessageEvent<HighlightRequest>) => void): void
}

/** The worker's side: answers each request on `port` with `highlighter`, in the order they came. */
export function serveHighlights(port: HighlightPort, highlighter: CodeHighlighter): void {
  port.addEventListener('message', ({ data: { id, code, language } }) => {
    highlighter
      .highlight(code, language)
      .then(
        (lines) => port.postMessage({ id, lines }),
        () => port.postMessage({ id, failed: true }),
      )
      // Lines that could not be sent are an answer too: the page must not wait for them.
      .catch(() => port.postMessage({ id, failed: true }))
  })
}
