/**
 * System notifications: the browser's API behind a small port (tests and stories put a fake one in),
 * the operator's switch kept in the keyed store (every tab follows it), which session the operator
 * is looking at, as the tabs tell each other, and the rule of when an event is notified.
 */
import { z } from 'zod/mini'
import type { KeyedStore } from '../storage/keyed-store'
import type { LedgerEntry } from './ledger'

export type Permission = 'default' | 'granted' | 'denied'

/** The slice of the Notifications API the client uses. */
export type NotificationPort = {
  /** False where the browser has no notifications: the switch is not offered. */
  supported: boolean
  permission(): Permission
  /** Asks the browser; called only when the operator switches notifications on. */
  request(): Promise<Permission>
  /** Shows one notification; `tag` replaces an earlier one with the same tag instead of adding one. */
  show(title: string, options: { body: string; tag: string; lang?: string }, onClick: () => void): void
}

/** The browser's notifications, or a port that says they are unsupported. */
export function browserNotifications(): NotificationPort {
  const api = typeof Notification === 'function' ? Notification : undefined
  if (!api) return { supported: false, permission: () => 'denied', request: () => Promise.resolve('denied'), show() {} }
  return {
    supported: true,
    permission: () => api.permission,
    request: async () => {
      try {
        return await api.requestPermission()
      } catch {
        return api.permission
      }
    },
    show(title, { body, tag, lang }, onClick) {
      try {
        const notification = new api(title, { body, tag, ...(lang ? { lang } : {}) })
        notification.onclick = () => {
          onClick()
          notification.close()
        }
      } catch {
        // Some browsers (Chrome on Android) show notifications only from a service worker: the
        // title count still says it.
      }
    },
  }
}

const SETTINGS_NAMESPACE = 'attention-settings'
const settingsSchema = z.object({ notify: z.boolean() })

/** The operator's switch, shared by the tabs and kept across reloads. */
export function notifySetting(store: KeyedStore) {
  const slot = store.slot(SETTINGS_NAMESPACE, 'v1', settingsSchema)
  return {
    read: (): boolean => slot.read()?.notify ?? false,
    write: (notify: boolean) => slot.write({ notify }),
    subscribe: (listener: () => void) => store.subscribe(SETTINGS_NAMESPACE, () => listener()),
  }
}

const LOOKING_NAMESPACE = 'attention-looking'
const lookingSchema = z.object({ tab: z.string(), sessionId: z.string(), at: z.number() })
export type Looking = z.infer<typeof lookingSchema>

/** How often the tab the operator looks at says so again; a word older than LOOKING_FRESH_MS is stale (a tab that crashed). */
export const LOOKING_BEAT_MS = 20_000
export const LOOKING_FRESH_MS = 3 * LOOKING_BEAT_MS

/** Which session the operator is looking at (a visible, focused tab showing it), as that tab last said. */
export function lookingSlot(store: KeyedStore) {
  const slot = store.slot(LOOKING_NAMESPACE, 'v1', lookingSchema)
  return {
    read: (): Looking | undefined => slot.read(),
    /** This tab looks at `sessionId` now. */
    say: (tab: string, sessionId: string, at: number) => slot.write({ tab, sessionId, at }),
    /** This tab no longer looks: its word is taken back (another tab's stands). */
    unsay(tab: string) {
      if (slot.read()?.tab === tab) slot.write(undefined)
    },
  }
}

/** How old an event may be when the notifying tab first decides on it and still be notified. */
const NOTIFY_WITHIN_MS = 5 * 60_000

export type NotifyContext = {
  /** The operator's switch is on and the browser allows notifications. */
  enabled: boolean
  /** The session the operator is looking at, if any. */
  looking: string | undefined
  now: number
}

/**
 * Whether an event is notified: notifications are on, the operator has not seen it and is not
 * looking at its session, and it is recent (a tab that takes over notifying does not replay the
 * last hour; a laptop waking from sleep counts what happened as it learns it, so that is recent).
 */
export function shouldNotify(entry: LedgerEntry, { enabled, looking, now }: NotifyContext): boolean {
  return enabled && !entry.seen && entry.sessionId !== looking && now - entry.at <= NOTIFY_WITHIN_MS
}
