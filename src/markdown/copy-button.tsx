import { useEffect, useState } from 'react'
import { useTranslation } from '../i18n/use-translation'
import './copy-button.css'

export type CopyButtonProps = {
  /** What is copied, exactly as given (a reply's Markdown source, a code block's code). */
  text: string
  /** The button's words; "Copy" in the interface language when not given. */
  label?: string
  /** Extra classes for the button, to match the actions it sits among (e.g. `button`). */
  className?: string
}

type CopyState = 'idle' | 'copied' | 'failed'

/** How long "Copied" stays before the button reads as before. */
export const COPIED_MS = 2_000
/** How long a refusal stays worded under the button. */
export const COPY_FAILED_MS = 8_000

/**
 * A button that copies `text` to the clipboard and says so: the button reads "Copied" for a
 * couple of seconds and a polite live region tells screen readers the same; when the browser
 * refuses (no clipboard API outside a secure context, permission denied) the reason is worded
 * next to the button and announced too.
 */
export function CopyButton({ text, label, className }: CopyButtonProps) {
  const { t } = useTranslation()
  const [state, setState] = useState<CopyState>('idle')

  useEffect(() => {
    if (state === 'idle') return
    const timer = setTimeout(() => setState('idle'), state === 'copied' ? COPIED_MS : COPY_FAILED_MS)
    return () => clearTimeout(timer)
  }, [state])

  const copy = () => {
    // `navigator.clipboard` is missing outside secure contexts; typed as always there, it is not.
    const clipboard = (navigator as Partial<Navigator>).clipboard
    if (clipboard === undefined) {
      setState('failed')
      return
    }
    clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    )
  }

  const announcement = state === 'copied' ? t('markdown.copied') : state === 'failed' ? t('markdown.copyFailed') : ''
  return (
    <span className="md-copy">
      <button type="button" className={className ? `md-copy__button ${className}` : 'md-copy__button'} onClick={copy} data-state={state}>
        {state === 'copied' ? t('markdown.copied') : (label ?? t('markdown.copy'))}
      </button>
      {/* Always in the page, so the change of its text is what gets announced. */}
      <span role="status" className={state === 'failed' ? 'md-copy__failure' : 'md-copy__status'}>
        {announcement}
      </span>
    </span>
  )
}
