/**
 * The browser's side of the tier 2 scheduler: when the page may have slept, and whether it is
 * online. Each does nothing outside a page, so the registry runs in node (tests, the benchmark).
 */
import type { NetworkProbe } from './machine'

/** Calls `check` whenever the page may have slept (visible again, focused, back online). */
export type WakeSource = (check: () => void) => () => void

/** `visibilitychange` to visible, `focus` and `online`: a throttled or sleeping tab's timers are late. */
export const browserWake: WakeSource = (check) => {
  if (typeof window === 'undefined' || typeof document === 'undefined') return () => {}
  const onVisible = () => {
    if (document.visibilityState === 'visible') check()
  }
  document.addEventListener('visibilitychange', onVisible)
  window.addEventListener('focus', check)
  window.addEventListener('online', check)
  return () => {
    document.removeEventListener('visibilitychange', onVisible)
    window.removeEventListener('focus', check)
    window.removeEventListener('online', check)
  }
}

/** Whether the browser is online, and word when that changes. */
export type NetworkSource = NetworkProbe & { subscribe(listener: (online: boolean) => void): () => void }

/** `navigator.onLine` and the window's `online`/`offline` events; always online without a DOM. */
export const browserNetwork: NetworkSource = {
  online: () => (typeof navigator === 'undefined' || typeof navigator.onLine !== 'boolean' ? true : navigator.onLine),
  subscribe(listener) {
    if (typeof window === 'undefined') return () => {}
    const on = () => listener(true)
    const off = () => listener(false)
    window.addEventListener('online', on)
    window.addEventListener('offline', off)
    return () => {
      window.removeEventListener('online', on)
      window.removeEventListener('offline', off)
    }
  },
}
