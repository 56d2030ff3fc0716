/**
 * Whether the operator can see this tab: visible (not a background tab, not minimised) and focused
 * (the window they are typing in). Injectable, so node tests play two tabs, one looked at.
 */
export type PageSource = {
  visible(): boolean
  focused(): boolean
  /** Calls `listener` when either may have changed (shown, hidden, focused, blurred, back from the cache). */
  subscribe(listener: () => void): () => void
  /** Brings this tab forward (allowed from a notification's click). */
  focus(): void
}

/** The page's own: `document.visibilityState`, `document.hasFocus()` and their events. A page outside a browser is never looked at. */
export function browserPage(): PageSource {
  if (typeof window === 'undefined' || typeof document === 'undefined') return { visible: () => false, focused: () => false, subscribe: () => () => {}, focus() {} }
  return {
    visible: () => document.visibilityState === 'visible',
    focused: () => document.hasFocus(),
    subscribe(listener) {
      const events = ['focus', 'blur', 'pageshow', 'pagehide'] as const
      for (const name of events) window.addEventListener(name, listener)
      document.addEventListener('visibilitychange', listener)
      return () => {
        for (const name of events) window.removeEventListener(name, listener)
        document.removeEventListener('visibilitychange', listener)
      }
    },
    focus: () => window.focus(),
  }
}
