import { forwardRef, useState } from 'react'
import type { SendApi } from './api/use-send'
import { Composer } from './composer'
import { RefusedNotice } from './refused-notice'
import { useDraft } from './use-core'

export type ComposerPanelProps = {
  sessionId: string
  send: SendApi['send']
}

/**
 * The message box bound to the session's draft and to sending. Its state (the draft, whether a
 * send is on the wire, the last refusal) is its own, so typing re-renders the box, not the
 * transcript.
 */
export const ComposerPanel = forwardRef<HTMLTextAreaElement, ComposerPanelProps>(function ComposerPanel({ sessionId, send }, ref) {
  const [draft, setDraft] = useDraft(sessionId)
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
      else setDraft('')
    } finally {
      setSending(false)
    }
  }

  return (
    <Composer
      ref={ref}
      value={draft}
      onChange={setDraft}
      onSubmit={(content) => void onSubmit(content)}
      sending={sending}
      error={refusal === undefined ? undefined : <RefusedNotice error={refusal} template="composer.refused" />}
    />
  )
})
