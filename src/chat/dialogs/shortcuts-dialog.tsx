import { useRef } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { ModalDialog } from './modal-dialog'
import { isApple, SHORTCUT_IDS, shortcutKeys } from '../shortcuts'

/** The list of keyboard shortcuts, as a modal dialog; `?` (outside a text field) opens it. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation()
  const closeRef = useRef<HTMLButtonElement>(null)
  const apple = isApple(navigator.platform || navigator.userAgent)
  return (
    <ModalDialog title={t('shortcuts.title')} className="confirm shortcuts" initialFocus={closeRef} onDismiss={onClose}>
      <table className="shortcuts__table">
        <tbody>
          {SHORTCUT_IDS.map((id) => (
            <tr key={id}>
              <th scope="row">{t(`shortcuts.${id}`)}</th>
              <td>
                {shortcutKeys(id, apple).map((keys, index) => (
                  <span key={keys.join('+')} className="shortcuts__keys">
                    {index > 0 ? ' / ' : null}
                    {keys.map((key, k) => (
                      <span key={key}>
                        {k > 0 ? '+' : null}
                        <kbd>{key}</kbd>
                      </span>
                    ))}
                    {keys.length === 1 && (keys[0] === '/' || keys[0] === '?') ? <span className="muted"> ({t('shortcuts.notInField')})</span> : null}
                  </span>
                ))}
              </td>
            </tr>
          ))}
          {(
            [
              ['sessionStart', 'Home'],
              ['latest', 'End'],
            ] as const
          ).map(([id, key]) => (
            <tr key={id}>
              <th scope="row">{t(`shortcuts.${id}`)}</th>
              <td>
                <kbd>{key}</kbd>
                <span className="muted"> ({t('shortcuts.inConversation')})</span>
              </td>
            </tr>
          ))}
          <tr>
            <th scope="row">{t('shortcuts.send')}</th>
            <td>
              <kbd>Enter</kbd>
            </td>
          </tr>
          <tr>
            <th scope="row">{t('shortcuts.newLine')}</th>
            <td>
              <kbd>{apple ? '⇧' : 'Shift'}</kbd>+<kbd>Enter</kbd>
            </td>
          </tr>
        </tbody>
      </table>
      <div className="message__actions">
        <button ref={closeRef} type="button" className="button" onClick={onClose}>
          {t('shortcuts.close')}
        </button>
      </div>
    </ModalDialog>
  )
}
