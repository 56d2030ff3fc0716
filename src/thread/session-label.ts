import type { TFunction } from 'i18next'
import type { Session } from '../wire/types'

/** The session's title as shown: the daemon's, or the untitled label in the current language. */
export function sessionLabel(t: TFunction, session: Pick<Session, 'title'>): string {
  return session.title.trim() || t('sessions.untitled')
}
