import { useId, useSyncExternalStore } from 'react'
import { useTranslation } from '../i18n/use-translation'
import type { Attention } from '../attention/attention'
import { useAttention } from './attention'

/**
 * "Notifications", in the header: a toggle the operator presses to be told of approvals, replies
 * and failures while they look elsewhere. Pressing it on asks the browser's permission (never at
 * load); a browser that refuses is said in words beside it. Not shown where the browser has no
 * notifications, or outside an AttentionProvider.
 */
export function NotificationsSwitch() {
  const attention = useAttention()
  return attention ? <Switch attention={attention} /> : null
}

function Switch({ attention }: { attention: Attention }) {
  const { t } = useTranslation()
  const noteId = useId()
  const state = useSyncExternalStore(attention.subscribeNotifications, attention.notifications, attention.notifications)
  if (!state.supported) return null
  const note = state.asking ? t('attention.asking') : state.blocked ? t('attention.blocked') : ''
  return (
    <div className="notifications-switch">
      <button
        type="button"
        className="button button--toggle"
        aria-pressed={state.on}
        aria-describedby={note ? noteId : undefined}
        onClick={() => void attention.setNotifications(!state.on)}
      >
        {t('attention.switch')}
      </button>
      <span id={noteId} className="notifications-switch__note" role="status">
        {note}
      </span>
    </div>
  )
}
