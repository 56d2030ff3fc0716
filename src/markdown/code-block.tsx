import { useRef } from 'react'
import { useTranslation } from '../i18n/use-translation'
import { CodeLines } from './code-lines'
import { CopyButton } from './copy-button'
import { LANGUAGE_NAMES, resolveLanguage } from './languages'
import { isHighlighted, useHighlight } from './use-highlight'
import { useSeen } from './use-seen'

export type CodeBlockProps = {
  /** The code, exactly as in the fence (no trailing newline). */
  code: string
  /** The fence's language tag as written (`ts`, `python`, …), if any. */
  tag?: string
  /** False while the block is still streaming in: it stays plain until it is finished. */
  complete: boolean
}

/**
 * A fenced code block: a header with the language and a Copy button, then the code, highlighted
 * once the block is finished, has been in view a moment (see use-seen.ts) and its grammar has
 * loaded (plain until then, and for languages outside the curated set). A block highlighted
 * before shows its colours at once. Long lines scroll sideways inside the block.
 */
export function CodeBlock({ code, tag, complete }: CodeBlockProps) {
  const { t } = useTranslation()
  const language = resolveLanguage(tag)
  const ref = useRef<HTMLDivElement>(null)
  // Watched only while its highlighting is still to be made: one highlighted before shows at once.
  const seen = useSeen(ref, complete && language !== undefined && !isHighlighted(code, language))
  const lines = useHighlight(code, language, complete, seen)
  // A tag outside the curated set is still named as the model wrote it.
  const name = language !== undefined ? LANGUAGE_NAMES[language] : tag || t('markdown.plainText')

  return (
    <div ref={ref} className="md-code" data-language={language ?? 'text'}>
      <div className="md-code__header">
        <span className="md-code__language">{name}</span>
        <CopyButton text={code} label={t('markdown.copyCode')} />
      </div>
      {/* Focusable, so the keyboard can scroll a long line into view. */}
      <pre className="md-code__pre" tabIndex={0} data-highlighted={lines !== undefined}>
        <code>
          <CodeLines code={code} lines={lines} lineClassName="md-code__line" />
        </code>
      </pre>
    </div>
  )
}
