import { useCallback, useEffect, useId } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { startSession } from '../../send/start-session'
import { useQueryClient } from '@tanstack/react-query'
import { chatKeys } from '../../thread/history'
import { ComposerPanel, type ComposerOutcome } from '../composer/composer-panel'
import { prefetchReplyParts } from '../reply/steps/lazy-reply-parts'
import { useChatRuntime } from '../runtime'

/** The first screen's draft: a session of its own until the first Enter makes a real one. */
const START_DRAFT = ':new'

/**
 * The first screen: ready to type. The message box has the focus; the first Enter creates a
 * session and sends into it as one step (see src/send/start-session.ts), then opens it. While the
 * operator types, the reply's steps chunk is fetched at idle: the first reply's reasoning and
 * tools then show as they stream, not once the chunk has arrived.
 */
export function StartView({ onStarted }: { onStarted: (sessionId: string) => void }) {
  const { t } = useTranslation()
  useEffect(prefetchReplyParts, [])
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const headingId = useId()
  const send = useCallback(
    async (content: string): Promise<ComposerOutcome> => {
      try {
        const session = await startSession(runtime, content)
        void queryClient.invalidateQueries({ queryKey: chatKeys.sessions })
        onStarted(session.id)
        return { kind: 'accepted' }
      } catch (error) {
        return { kind: 'refused', error }
      }
    },
    [onStarted, queryClient, runtime],
  )
  return (
    <section className="chat start" aria-labelledby={headingId}>
      <div className="start__intro">
        <h2 id={headingId}>{t('start.heading')}</h2>
        <p className="muted">{t('start.hint')}</p>
      </div>
      <ComposerPanel sessionId={START_DRAFT} send={send} refusalTemplate="start.failed" autoFocus />
    </section>
  )
}
