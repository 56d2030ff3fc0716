/**
 * The entry point for rendering a reply as Markdown. The renderer (the parser, the block splitter,
 * its CSS) is a chunk of its own: `loadReplyMarkdown` fetches it, which boot does at once beside
 * the first reads (main.tsx), so a session opened or reloaded draws its replies as Markdown from
 * their first paint instead of as plain text that changes height a moment later. A reply drawn
 * before the chunk is here, or when it cannot be fetched, shows its plain text with its line
 * breaks, so nothing ever flashes empty.
 */
import { Component, useSyncExternalStore, type CSSProperties, type ReactNode } from 'react'
import type { ReplyMarkdownProps } from './reply-markdown'

export type { ReplyMarkdownProps } from './reply-markdown'

type Renderer = typeof import('./reply-markdown')

let renderer: Renderer | undefined
let loading: Promise<void> | undefined
const waiting = new Set<() => void>()

/**
 * Fetches the renderer's chunk, once; replies drawn after it has arrived render Markdown at once.
 * Resolves when the attempt has ended: a chunk that cannot be fetched leaves every reply plain.
 */
export function loadReplyMarkdown(): Promise<void> {
  return (loading ??= import('./reply-markdown').then(
    (module) => {
      renderer = module
      for (const redraw of waiting) redraw()
    },
    () => undefined,
  ))
}

function subscribe(redraw: () => void): () => void {
  waiting.add(redraw)
  return () => waiting.delete(redraw)
}

const loadedRenderer = () => renderer

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

/** If the renderer fails on a reply, the text still shows. */
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
 * ReplyMarkdown once its chunk is here, the plain text until then; the same props.
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
  const loaded = useSyncExternalStore(subscribe, loadedRenderer, loadedRenderer)
  // Drawn before boot asked for it (a story, a test): this asks now.
  if (!loaded) void loadReplyMarkdown()
  return (
    <PlainOnError source={source}>
      {loaded ? <loaded.ReplyMarkdown source={source} streaming={streaming} followed={followed} /> : <PlainReply source={source} />}
    </PlainOnError>
  )
}
