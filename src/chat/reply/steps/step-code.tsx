import { useRef } from 'react'
import { CodeLines } from '../../../markdown/code-lines'
import { isProse, resolveLanguage } from '../../../markdown/languages'
import { isHighlighted, useHighlight } from '../../../markdown/use-highlight'
import { useSeen } from '../../../markdown/use-seen'

export type StepCodeProps = {
  code: string
  /** What the code is written in (`json`, `ts`, …); undefined: plain text. */
  tag: string | undefined
  /**
   * False while the text is still being written: it stays plain, so a growing input costs one text
   * node per delta, and wraps with its end in view (the newest characters, not the first of a line
   * thousands of characters long).
   */
  complete: boolean
  /** False holds off highlighting complete code (plain meanwhile): a tool that has just started running. */
  highlight?: boolean
}

/**
 * A tool's input or output: plain text in a scrolling `<pre>`, highlighted with the reply
 * renderer's highlighter (Shiki tokens as React elements, never HTML) once complete and seen. Code
 * past the highlighter's own limit stays plain. Prose wraps at the box's edge (a note's paragraph is
 * one long line); code keeps its lines and scrolls sideways.
 */
export function StepCode({ code, tag, complete, highlight = true }: StepCodeProps) {
  const language = resolveLanguage(tag)
  const ref = useRef<HTMLPreElement>(null)
  const seen = useSeen(ref, complete && highlight && language !== undefined && !isHighlighted(code, language))
  const lines = useHighlight(code, language, complete && highlight, seen)
  return (
    // Focusable, so the keyboard can scroll a long input or output.
    <pre ref={ref} className="step-code" tabIndex={0} data-language={language ?? 'text'} data-highlighted={lines !== undefined} data-writing={complete ? undefined : ''} data-prose={isProse(tag) ? '' : undefined}>
      <code>
        <CodeLines code={code} lines={lines} />
      </code>
    </pre>
  )
}
