import { forwardRef, useState } from 'react'
import { Composer } from './composer'
import { RefusedNotice, type RefusalTemplate } from '../reply/refused-notice'
import { useDraft } from '../use-core'

/** How a send ended, as the box needs to know it: refused keeps the text in the box. */
export type ComposerOutcome = { kind: 'refused'; error: unknown } | { kind: 'accepted' | 'not_sent' }

export type ComposerPanelProps = {
  /** Whose draft the box shows (the first screen has a draft of its own). */
  sessionId: string
  send: (content: string) => Promise<ComposerOutcome | undefined>
  /** How a refusal is worded; "Not sent: …" by default. */
  refusalTemplate?: RefusalTemplate
  autoFocus?: boolean
}

/**
 * The message box bound to the session's draft and to sending. Its state (whether a send is on
 * the wire, the last refusal) is its own, and the box holds the text: typing re-renders neither
 * this panel nor the transcript.
 */
export const ComposerPanel = forwardRef<HTMLTextAreaElement, ComposerPanelProps>(function ComposerPanel({ sessionId, send, refusalTemplate = 'composer.refused', autoFocus = false }, ref) {
  const draft = useDraft(sessionId)
  const [sending, setSending] = useState(false)
  const [refusal, setRefusal] = useState<unknown>()

  const onSubmit = async (content: string) => {
    setSending(true)
    setRefusal(undefined)
    try {
      const outcome = await send(content)
      if (!outcome) return
      // Refused: the draft stays in the box, and the refusal says why.
      if (outcome.kind === 'refused') setRefusal(outcome.error)
      // Accepted, or parked as "not sent" with its own Send again: either way the text is safe.
      else draft.write('')
    } finally {
      setSending(false)
    }
  }

  return (
    <Composer
      ref={ref}
      draft={draft}
      onSubmit={(content) => void onSubmit(content)}
      sending={sending}
      autoFocus={autoFocus}
      error={refusal === undefined ? undefined : <RefusedNotice error={refusal} template={refusalTemplate} />}
    />
  )
})
