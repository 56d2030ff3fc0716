import type { HighlightedLine } from './highlighter'

/**
 * A code block's text inside its <code>: as it is until it is highlighted, then one span per line
 * and token. `lineClassName` marks each line for a block that styles them.
 */
export function CodeLines({ code, lines, lineClassName }: { code: string; lines: HighlightedLine[] | undefined; lineClassName?: string }) {
  if (lines === undefined) return code
  return lines.map((line, i) => (
    // Lines and tokens are positional; the code never reorders.
    <span key={i} className={lineClassName}>
      {line.map((token, j) => (
        <span key={j} style={token.style}>
          {token.content}
        </span>
      ))}
      {i < lines.length - 1 ? '\n' : null}
    </span>
  ))
}
