import { memo } from 'react'
import { LazyReplyMarkdown } from '../../../markdown/lazy-reply-markdown'
import type { TextPart } from '../../../wire/types'
import { StreamingCaret } from '../streaming-caret'

/**
 * A piece of the answer, rendered as Markdown like a reply without steps. Only the piece being
 * written is `streaming` (deferred rendering, the caret); the others are finished text, and one
 * with a step after it (`followed`) may be skipped off screen like a long reply's earlier blocks:
 * a reply of many steps then lays out and paints what is near the view, not all its pieces.
 * Memoized on the part: the live store keeps a part that did not change the same object, so a
 * delta re-renders the piece that grew and no other.
 */
export const TextStep = memo(function TextStep({ part, streaming, followed }: { part: TextPart; streaming: boolean; followed: boolean }) {
  if (!part.text && !streaming) return null
  return (
    <div className="message__body message__body--markdown" aria-busy={streaming}>
      <LazyReplyMarkdown source={part.text} streaming={streaming} followed={followed} />
      {streaming ? <StreamingCaret length={part.text.length} /> : null}
    </div>
  )
})
