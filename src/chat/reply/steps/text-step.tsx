import { memo } from 'react'
import { LazyReplyMarkdown } from '../../../markdown/lazy-reply-markdown'
import type { TextPart } from '../../../wire/types'
import { StreamingCaret } from '../streaming-caret'

/**
 * A piece of the answer, rendered as Markdown like a reply without steps. Only the piece being
 * written is `streaming` (deferred rendering, the caret); the others are finished text.
 * Memoized on the part: the live store keeps a part that did not change the same object, so a
 * delta re-renders the piece that grew and no other.
 */
export const TextStep = memo(function TextStep({ part, streaming }: { part: TextPart; streaming: boolean }) {
  if (!part.text && !streaming) return null
  return (
    <div className="message__body message__body--markdown" aria-busy={streaming}>
      <LazyReplyMarkdown source={part.text} streaming={streaming} />
      {streaming ? <StreamingCaret length={part.text.length} /> : null}
    </div>
  )
})
