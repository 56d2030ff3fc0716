/**
 * The entry point for rendering a reply as Markdown. The renderer (react-markdown, remark, the
 * block splitter, its CSS) is a chunk of its own, fetched with the first reply shown; until it
 * arrives, and if it cannot be fetched, the reply is shown as its plain text with its line breaks,
 * so nothing ever flashes empty.
 */
import { Component, lazy, Suspense, type CSSProperties, type ReactNode } from 'react'
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
 * A streaming reply's text renders in the same pass as the rest of its row, once per flush of
 * the live-run store. Its Markdown is parsed in the stream worker (markdown/stream-trees.ts), so
 * what is left here is making elements of a block or two: rendering it at a lower priority
 * (`useDeferredValue`, as before that) cost a second render and commit of the row at every flush,
 * for work too short to be worth interrupting.
 */
export function LazyReplyMarkdown({ source, streaming, followed }: ReplyMarkdownProps) {
  return (
    <PlainOnError source={source}>
      <Suspense fallback={<PlainReply source={source} />}>
        <ReplyMarkdown source={source} streaming={streaming} followed={followed} />
      </Suspense>
    </PlainOnError>
  )
}
