import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { MAX_TITLE_LENGTH, type Session } from '../../wire/types'
import { sessionLabel } from '../../thread/session-label'

export type RenameFieldProps = { session: Session; error?: ReactNode; onSave: (title: string) => void; onCancel: () => void }

/** The title in place, editable: Enter saves, Escape keeps the old one. */
export function RenameField({ session, error, onSave, onCancel }: RenameFieldProps) {
  const { t } = useTranslation()
  const [value, setValue] = useState(session.title)
  const errorId = useId()
  const inputRef = useRef<HTMLInputElement>(null)
  useEffect(() => {
    inputRef.current?.focus()
    inputRef.current?.select()
  }, [])
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing || event.keyCode === 229) return
    if (event.key === 'Enter') {
      event.preventDefault()
      // Unchanged is not a rename: nothing to send.
      if (value === session.title) onCancel()
      else onSave(value)
    } else if (event.key === 'Escape') {
      // Escape belongs to this field: the sessions panel around it stays open.
      event.preventDefault()
      event.stopPropagation()
      onCancel()
    }
  }
  return (
    <div className="sessions__rename">
      <input
        ref={inputRef}
        className="sessions__rename-input"
        value={value}
        maxLength={MAX_TITLE_LENGTH * 2}
        aria-label={t('sessionMenu.renameLabel', { title: sessionLabel(t, session) })}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {error ? (
        <p id={errorId} className="failure__text sessions__rename-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  )
}
