import { useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { useStickToBottom } from 'use-stick-to-bottom'

export type TranscriptProps = {
  /** Loading the history: the log is busy and says so. */
  loading: boolean
  /** Nothing to show yet (and not loading). */
  empty: boolean
  /** How many rows there are: a new one while scrolled up offers "Jump to latest". */
  rowCount: number
  /** A reply is still being written below. */
  active: boolean
  children: ReactNode
}

/**
 * The scrolling log. It stays pinned to the bottom while anything at the bottom grows (text, a
 * failure notice, the retry box, highlighting): use-stick-to-bottom watches the content's size,
 * so there is no layout read per commit. Scrolling up releases it; "Jump to latest" brings the
 * operator back when something new arrives below.
 */
export function Transcript({ loading, empty, rowCount, active, children }: TranscriptProps) {
  const { t } = useTranslation()
  const { scrollRef, contentRef, isAtBottom, scrollToBottom } = useStickToBottom({ initial: 'instant', resize: 'instant' })
  // Rows there were when the operator last saw the bottom: more than that is news below.
  const [seenRows, setSeenRows] = useState(rowCount)
  if (isAtBottom && seenRows !== rowCount) setSeenRows(rowCount)
  const newBelow = !isAtBottom && (rowCount > seenRows || active)
  return (
    <div className="transcript-frame">
      <div ref={scrollRef} className="transcript" role="log" aria-label={t('transcript.label')} aria-live="off" aria-busy={loading}>
        <div ref={contentRef} className="transcript__content">
          {loading ? <p className="muted">{t('app.loading')}</p> : null}
          {empty ? <p className="muted">{t('transcript.empty')}</p> : null}
          {children}
        </div>
      </div>
      {newBelow ? (
        <button type="button" className="button jump-to-latest" onClick={() => void scrollToBottom()}>
          {t('chat.jumpToLatest')}
        </button>
      ) : null}
    </div>
  )
}
