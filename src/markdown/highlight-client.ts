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

/** The part of a worker (or a MessagePort) the page talks through. */
export type HighlightWorkerLike = {
  postMessage(message: HighlightRequest): void
  addEventListener(type: 'message', listener: (event: MessageEvent<HighlightAnswer>) => void): void
  addEventListener(type: 'error' | 'messageerror', listener: () => void): void
  terminate(): void
}

/**
 * A highlighter that asks a worker, started on the first request. If the worker cannot start or
 * fails (its script could not load, a message could not be read), what it was asked and anything
 * asked later go to `fallback`, the highlighter on the page.
 */
export function createWorkerHighlighter(spawn: () => HighlightWorkerLike, fallback: () => Promise<CodeHighlighter>): CodeHighlighter {
  let worker: HighlightWorkerLike | undefined
  let broken = false
  let nextId = 1
  const pending = new Map<number, { code: string; language: LanguageId; resolve: (lines: HighlightedLine[]) => void; reject: (reason: unknown) => void }>()
  // The page's highlighter, made once; one that failed to load (a network blip) is tried again by the next block.
  let onPage: Promise<CodeHighlighter> | undefined
  const page = (code: string, language: LanguageId) =>
    (onPage ??= fallback().catch((reason: unknown) => {
      onPage = undefined
      throw reason
    })).then((highlighter) => highlighter.highlight(code, language))

  const breakDown = () => {
    if (broken) return
    broken = true
    worker?.terminate()
    worker = undefined
    for (const [id, entry] of pending) {
      pending.delete(id)
      page(entry.code, entry.language).then(entry.resolve, entry.reject)
    }
  }

  const start = (): HighlightWorkerLike | undefined => {
    if (worker || broken) return worker
    try {
      worker = spawn()
    } catch {
      broken = true
      return undefined
    }
    worker.addEventListener('message', ({ data }: MessageEvent<HighlightAnswer>) => {
      const entry = pending.get(data.id)
      if (!entry) return
      pending.delete(data.id)
      if ('lines' in data) entry.resolve(data.lines)
      else entry.reject(new Error('the code could not be highlighted'))
    })
    worker.addEventListener('error', breakDown)
    worker.addEventListener('messageerror', breakDown)
    return worker
  }

  return {
    highlight(code, language) {
      const target = start()
      if (!target) return page(code, language)
      const id = nextId++
      return new Promise<HighlightedLine[]>((resolve, reject) => {
        pending.set(id, { code, language, resolve, reject })
        try {
          target.postMessage({ id, code, language })
        } catch (reason) {
          pending.delete(id)
          reject(reason)
        }
      })
    },
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
