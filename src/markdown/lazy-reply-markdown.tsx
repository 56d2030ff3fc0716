/**
 * The entry point for rendering a reply as Markdown. The renderer (react-markdown, remark, the
 * block splitter, its CSS) is a chunk of its own, fetched with the first reply shown; until it
 * arrives, and if it cannot be fetched, the reply is shown as its plain text with its line breaks,
 * so nothing ever flashes empty.
 */
import { Component, lazy, Suspense, useDeferredValue, type CSSProperties, type ReactNode } from 'react'
import type { ReplyMarkdownProps } from './reply-markdown'

export type { ReplyMarkdownProps } from './reply-markdown'

const ReplyMarkdown = lazy(() => import('./reply-markdown').then((module) => ({ default: module.ReplyMarkdown })))

// Inline: markdown.css comes with the renderer's chunk, which is exactly what is not here yet.
const PLAIN: CSSProperties = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }

/** The reply as text, exactly as written (React escapes it: never markup). */
function PlainReply({ source }: { source: string }) {
  return (
    <div className="md-reply md-reply--plain" style={PLAIN}>
      {source}
    </div>
  )
}

type BoundaryProps = { source: string; children: ReactNode }

/** If the renderer's chunk cannot be loaded (offline, a deploy replaced it), the text still shows. */
class PlainOnError extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true }
  }

  override render() {
    return this.state.failed ? <PlainReply source={this.props.source} /> : this.props.children
  }
}

/**
 * ReplyMarkdown, loaded on first use; the same props.
 *
 * While a reply streams, its text is rendered at a lower priority than the operator's input and
 * the page's frames (`useDeferredValue`): parsing the Markdown of a commit (the growing block, a
 * block that just finished) is work React can interrupt, and the browser paints and answers keys
 * between its pieces instead of waiting behind one long task. A newer text arriving meanwhile
 * replaces the one being rendered. The reply's end is rendered at once, at full priority.
 */
export function LazyReplyMarkdown({ source: latest, streaming, followed }: ReplyMarkdownProps) {
  const deferred = useDeferredValue(latest)
  const source = streaming ? deferred : latest
  return (
    <PlainOnError source={source}>
      <Suspense fallback={<PlainReply source={source} />}>
        <ReplyMarkdown source={source} streaming={streaming} followed={followed} />
      </Suspense>
    </PlainOnError>
  )
}
