/**
 * The entry point for a reply's steps. Their components (reasoning, tool calls with their input
 * and output, the rules of thread/steps) are a chunk of their own, not needed to paint the first
 * screen: it is fetched when the page is idle or with the first reply that has steps, whichever
 * comes first. Until it has arrived, and if it cannot be fetched, the reply shows its answer (the
 * text parts) as a reply without steps would, so nothing flashes empty.
 */
import { Component, lazy, Suspense, useState, type ComponentProps, type ReactNode } from 'react'
import { LazyReplyMarkdown } from '../../../markdown/lazy-reply-markdown'
import { answerText } from '../../../live/parts'
import { warmNumberFormats } from '../../../i18n/number-format'
import { whenIdle } from '../../../workers/idle'
import type { ReplyPartsProps } from './reply-parts'

type StepsModule = Pick<typeof import('./reply-parts'), 'ReplyParts' | 'ToolApproval'>

/** The chunk once it has arrived: every reply with steps after that renders at once, never through the stand-in. */
let loaded: StepsModule | undefined
let loading: Promise<StepsModule> | undefined

/**
 * Fetches the steps' chunk, once; a fetch that failed (a network blip, a deploy that replaced the
 * chunk) is tried again by the next call. Tests and stories wait for it before their first render.
 */
export function loadReplyParts(): Promise<StepsModule> {
  if (!loading) {
    const attempt = import('./reply-parts').then(({ ReplyParts, ToolApproval }) => (loaded = { ReplyParts, ToolApproval }))
    attempt.catch(() => {
      if (loading !== attempt) return
      loading = undefined
      // React keeps a lazy component's failure for good: the next reply gets a fresh one.
      LazySteps = lazySteps()
    })
    loading = attempt
  }
  return loading
}

let prefetched = false

/** Once the page has nothing else to do, within 2 s (in a second where there is no idle callback). */
const IDLE = { timeout: 2_000, fallback: 1_000 }

const warmedLanguages = new Set<string>()

/**
 * Makes the number formats of a reply's steps (tokens, sizes, costs, durations) in `language` once
 * the page is idle, so the first reply with steps does not pay for the language's number data in
 * its first commit. Once per language. The formats' module is part of the page's first script
 * (a reply's usage line uses it), so only the formats themselves wait for idle.
 */
export function warmStepNumbers(language: string): void {
  if (warmedLanguages.has(language) || typeof window === 'undefined') return
  warmedLanguages.add(language)
  whenIdle(() => warmNumberFormats(language), IDLE)
}

/**
 * Starts fetching the chunk once the page has nothing else to do, so the first reply with steps
 * rarely waits for it. Called by every reply shown; does something the first time only.
 */
export function prefetchReplyParts(): void {
  if (prefetched || loaded || typeof window === 'undefined') return
  prefetched = true
  whenIdle(() => void loadReplyParts().catch(() => undefined), IDLE)
}

const lazySteps = () => lazy(() => loadReplyParts().then((module) => ({ default: module.ReplyParts })))
let LazySteps = lazySteps()

function Steps(props: ReplyPartsProps) {
  // Chosen once per mount: a reply mounted after the chunk arrived renders at once; one mounted
  // before keeps the lazy wrapper, since swapping it for the loaded component would mount the
  // steps afresh and lose what the operator opened.
  const [ready] = useState(loaded)
  return ready ? <ready.ReplyParts {...props} /> : <LazySteps {...props} />
}

/** What the steps say to an operator who cannot see them yet: the answer, as a reply without steps. */
function Answer({ parts, streaming }: Pick<ReplyPartsProps, 'parts' | 'streaming'>) {
  const answer = answerText(parts)
  if (!answer) return null
  return (
    <div className="message__body message__body--markdown" aria-busy={streaming}>
      <LazyReplyMarkdown source={answer} streaming={streaming} />
    </div>
  )
}

type BoundaryProps = { fallback: ReactNode; children: ReactNode }

/** If the chunk cannot be fetched, the answer still shows; the next reply rendered tries again. */
class AnswerOnError extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true }
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children
  }
}

/**
 * A tool's approval controls (the `approval` slot of its step). A step renders the slot, and steps
 * render only once their chunk, which carries the controls, has arrived.
 */
export function LazyToolApproval(props: ComponentProps<StepsModule['ToolApproval']>) {
  const Approval = loaded?.ToolApproval
  return Approval ? <Approval {...props} /> : null
}

/** ReplyParts, loaded on first use (or at idle); the same props. */
export function LazyReplyParts(props: ReplyPartsProps) {
  const answer = <Answer parts={props.parts} streaming={props.streaming} />
  // The same tree before and after the chunk arrives: the steps mount once, and keep what the
  // operator opened.
  return (
    <AnswerOnError fallback={answer}>
      <Suspense fallback={answer}>
        <Steps {...props} />
      </Suspense>
    </AnswerOnError>
  )
}
