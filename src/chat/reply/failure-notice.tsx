import { useTranslation } from '../../i18n/use-translation'
import { describeFailure, describeRetryClass, failureFromError, failureOfWireError, isVerbatimFailure } from '../../i18n/describe-failure'
import type { WireError } from '../../wire/types'

export type FailureNoticeProps = {
  /** A failed message's error, as history or the stream gave it. */
  error?: WireError
  /** Or any thrown failure: a refusal, a transport error, a malformed payload. */
  thrown?: unknown
  /** The daemon's retry class, when saying it helps (see `explainedClass`). */
  retryClass?: string | undefined
  className?: string
}

/** The worded failure, with its code in small print for support. Daemon text is rendered as text. */
export function FailureNotice({ error, thrown, retryClass, className = 'failure' }: FailureNoticeProps) {
  const { t, i18n } = useTranslation()
  const failure = thrown !== undefined ? failureFromError(thrown) : failureOfWireError(error)
  const { text, code } = describeFailure(t, failure)
  // The daemon's own words, shown because no table knows the code: marked as such outside English.
  const verbatim = isVerbatimFailure(failure) && !i18n.language.startsWith('en')
  const classText = describeRetryClass(t, retryClass)
  return (
    <div className={className}>
      <p className="failure__text" lang={verbatim ? 'en' : undefined}>
        {text}
      </p>
      {verbatim ? <p className="failure__note">{t('failure.raw')}</p> : null}
      {classText ? <p className="failure__class">{classText}</p> : null}
      {code ? <p className="failure__code">{t('transcript.supportCode', { code })}</p> : null}
    </div>
  )
}
