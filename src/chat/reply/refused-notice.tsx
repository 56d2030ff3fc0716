import { useTranslation } from '../../i18n/use-translation'
import { describeFailure, failureFromError } from '../../i18n/describe-failure'

/** The templates a refusal is worded into: "Not sent: …", "Could not regenerate: …". */
export type RefusalTemplate = 'composer.refused' | 'regenerate.refused' | 'start.failed' | 'sessionMenu.renameFailed' | 'sessionMenu.deleteFailed' | 'sessionMenu.exportFailed'

/**
 * A refused request, worded at render from the error value it came with, so a language switch
 * rewords it. Text only: the daemon's words are never markup.
 */
export function RefusedNotice({ error, template }: { error: unknown; template: RefusalTemplate }) {
  const { t } = useTranslation()
  return <>{t(template, { reason: describeFailure(t, failureFromError(error)).text })}</>
}
