import { useTranslation } from '../../i18n/use-translation'
import { ConfirmDialog } from './confirm-dialog'

export type ConfirmRegenerateProps = {
  /** Messages the regenerate would replace. */
  count: number
  onConfirm: () => void
  onCancel: () => void
  /** Where focus goes after Replace, or when the opener cannot take it back (see ConfirmDialog). */
  fallbackFocus?: () => HTMLElement | null | undefined
}

/** Asks before a regenerate that would also replace later operator messages. Escape keeps them. */
export function ConfirmRegenerate({ count, ...props }: ConfirmRegenerateProps) {
  const { t } = useTranslation()
  return (
    <ConfirmDialog
      title={t('regenerate.confirmTitle')}
      body={t('regenerate.confirmBody', { count })}
      confirmLabel={t('actions.confirm')}
      cancelLabel={t('actions.cancel')}
      {...props}
    />
  )
}
