import { useTranslation } from '../../i18n/use-translation'

/**
 * Messages not held, in the transcript's place for them: read as the view reaches them, or with
 * the button (keyboard users, or a reader who would rather not wait for the scroll). The session's
 * earlier messages say so at the bottom of their gap, next to the first row held.
 */
export function GapRow({ start, loading, onLoad }: { start: boolean; loading: boolean; onLoad: () => void }) {
  const { t } = useTranslation()
  return (
    <div className={`transcript-gap${start ? ' transcript-gap--start' : ''}`} aria-busy={loading}>
      <div className="transcript-gap__bar">
        {loading ? (
          <span className="muted">{t('transcript.loadingMessages')}</span>
        ) : (
          <button type="button" className="button" onClick={onLoad}>
            {start ? t('transcript.loadEarlier') : t('transcript.loadMore')}
          </button>
        )}
      </div>
    </div>
  )
}
