import { useEffect, useRef } from 'react'
import { isApple, keyPressOf, shortcutFor, type ShortcutId } from './shortcuts'

/**
 * Listens for the keyboard shortcuts on the whole page; `handle` returns true for one it acted
 * on, and the browser's default for that key is then prevented.
 */
export function useShortcuts(handle: (id: ShortcutId) => boolean): void {
  const latest = useRef(handle)
  useEffect(() => {
    latest.current = handle
  }, [handle])
  useEffect(() => {
    const apple = isApple(navigator.platform || navigator.userAgent)
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return
      const id = shortcutFor(keyPressOf(event), apple)
      // A modal dialog has the page to itself: nothing behind it acts on a key. Asked only of a
      // shortcut: a typed letter does not search the whole page.
      if (!id || document.querySelector('dialog[open], [aria-modal="true"]')) return
      if (latest.current(id)) event.preventDefault()
    }
    document.addEventListener('keydown', onKeyDown)
    return () => document.removeEventListener('keydown', onKeyDown)
  }, [])
}
