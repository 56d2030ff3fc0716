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
 * the live-run store, which pacing (live/pacing.ts) keeps out of the frame that paints a key.
 * Its Markdown is parsed in the stream worker (markdown/stream-trees.ts), so what is left here
 * is making elements of a block or two. Rendered at a lower priority instead (`useDeferredValue`),
 * every flush rendered the row twice, and the second render's commit came in a task of its own
 * after the flush's frame, where a key pressed then found it in its own frame: more keys of
 * 32 ms and more while typing on the text stream, and the final text a render later.
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
