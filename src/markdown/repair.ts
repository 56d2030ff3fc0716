/**
 * Mid-stream repair of the block that is still being written: closes what the model has opened
 * but not finished yet, so the operator reads `**bold` as bold and a half-typed link as its
 * text instead of a flash of raw markers. Only the live block is repaired, only while the reply
 * streams; the finished reply is rendered exactly as written.
 */
import remend, { isWithinCodeBlock, type RemendHandler } from 'remend'

/**
 * An emphasis or strikethrough marker typed at the very end with nothing after it yet (`Note **`,
 * `**bold **`) would show as literal asterisks until its first letter arrives; hold it back.
 */
const pendingMarker: RemendHandler = {
  name: 'pendingMarker',
  // After remend's link repair (20), before its bold and italic repair (30 and up).
  priority: 25,
  handle(text) {
    const match = /(^|\s)[*_~]{1,3}$/.exec(text)
    if (match === null || isWithinCodeBlock(text, text.length - 1)) return text
    // An odd number of backticks on the last line: the marker is inside an inline code span.
    const lastLine = text.slice(text.lastIndexOf('\n') + 1)
    if ((lastLine.match(/`/g)?.length ?? 0) % 2 === 1) return text
    // The space before it goes too, or the closing `**` remend adds would not close anything.
    return text.slice(0, match.index).trimEnd()
  },
}

/**
 * `block` with its unfinished syntax completed or held back (remend, plus the pending-marker rule
 * above). An open code fence needs nothing: CommonMark already runs it to the end of the block.
 */
export function repairStreamingBlock(block: string): string {
  return remend(block, {
    // Raw HTML is shown as text in a reply; remend would drop a half-typed `<tag` instead.
    htmlTags: false,
    // No math rendering here: `$$` must stay the characters it is.
    katex: false,
    inlineKatex: false,
    // A half-typed link reads as its text until its URL is complete.
    linkMode: 'text-only',
    handlers: [pendingMarker],
  })
}
