/**
 * The page's one highlighter. Tokenizing runs in a dedicated worker (highlight.worker.ts): a
 * tool's 16 KiB output or a long file never takes the main thread from typing, scrolling or a
 * streaming reply, and Shiki, its grammars and the code the engine compiles for them live in the
 * worker's heap. Where no worker can start, or the worker fails, the same highlighter runs on the
 * page in short slices (highlighter.ts), and nothing the operator sees changes but where it ran.
 */
import type { HighlightAnswer, HighlightRequest } from './highlight-protocol'
import type { CodeHighlighter, HighlightedLine } from './highlighter'
import type { LanguageId } from './languages'
import { createWorkerSlot, type WorkerLike } from '../workers/worker-slot'

/** The part of a worker the page talks through. */
export type HighlightWorkerLike = WorkerLike<HighlightRequest, HighlightAnswer>

/** A block asked of the worker, and where its lines go. */
type Asked = { code: string; language: LanguageId; resolve: (lines: HighlightedLine[]) => void; reject: (reason: unknown) => void }

/**
 * A highlighter that asks a worker, started on the first request. If the worker cannot start or
 * fails (its script could not load, a message could not be read), what it was asked and anything
 * asked later go to `fallback`, the highlighter on the page.
 */
export function createWorkerHighlighter(spawn: () => HighlightWorkerLike, fallback: () => Promise<CodeHighlighter>): CodeHighlighter {
  // The page's highlighter, made once; one that failed to load (a network blip) is tried again by the next block.
  let onPage: Promise<CodeHighlighter> | undefined
  const page = (code: string, language: LanguageId) =>
    (onPage ??= fallback().catch((reason: unknown) => {
      onPage = undefined
      throw reason
    })).then((highlighter) => highlighter.highlight(code, language))

  const slot = createWorkerSlot<HighlightRequest, HighlightAnswer, Asked>({
    spawn,
    onMessage(answer) {
      const asked = slot.take(answer.id)
      if (!asked) return
      if ('lines' in answer) asked.resolve(answer.lines)
      else asked.reject(new Error('the code could not be highlighted'))
    },
    handOver: ({ code, language, resolve, reject }) => void page(code, language).then(resolve, reject),
  })

  return {
    highlight: (code, language) =>
      new Promise<HighlightedLine[]>((resolve, reject) => {
        // A postMessage that throws rejects this block and keeps nothing.
        if (!slot.send({ code, language, resolve, reject }, (id) => ({ id, code, language }))) page(code, language).then(resolve, reject)
      }),
  }
}

let shared: CodeHighlighter | undefined

const onThePage = () => import('./highlighter').then(({ createCodeHighlighter }) => createCodeHighlighter())

function spawnHighlightWorker(): HighlightWorkerLike {
  if (typeof Worker !== 'function') throw new Error('no dedicated workers here')
  return new Worker(new URL('./highlight.worker.ts', import.meta.url), { type: 'module', name: 'rebound-highlight' })
}

/** Highlights with the page's one highlighter: in the worker where one can start, else on the page. */
export function highlight(code: string, language: LanguageId): Promise<HighlightedLine[]> {
  shared ??= createWorkerHighlighter(spawnHighlightWorker, onThePage)
  return shared.highlight(code, language)
}
