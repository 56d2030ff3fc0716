import { useEffect, useRef } from 'react'
import { useTranslation } from '../../i18n/use-translation'

export type SessionMenuListProps = {
  id: string
  label: string
  onRename: () => void
  onExportMarkdown: () => void
  onExportJson: () => void
  onDelete: () => void
  /** Closes the menu (the items close it themselves before they act). */
  onClose: () => void
}

/** A session's actions, open under its menu button (see SessionMenu): the first takes the focus. */
export function SessionMenuList({ id, label, onRename, onExportMarkdown, onExportJson, onDelete }: SessionMenuListProps) {
  const { t } = useTranslation()
  const firstRef = useRef<HTMLButtonElement>(null)
  useEffect(() => firstRef.current?.focus(), [])
  return (
    <div id={id} className="session-menu__list" role="group" aria-label={label}>
      <button ref={firstRef} type="button" className="button button--link" onClick={onRename}>
        {t('sessionMenu.rename')}
      </button>
      <button type="button" className="button button--link" onClick={onExportMarkdown}>
        {t('sessionMenu.exportMarkdown')}
      </button>
      <button type="button" className="button button--link" onClick={onExportJson}>
        {t('sessionMenu.exportJson')}
      </button>
      <button type="button" className="button button--link session-menu__danger" onClick={onDelete}>
        {t('sessionMenu.delete')}
      </button>
    </div>
  )
}
