/**
 * Keyboard shortcuts: which key does what, pure so it is tested without a DOM. On macOS the
 * modifier is ⌘, elsewhere Ctrl. None fights the browser's own (no Ctrl+W, Ctrl+T, Ctrl+F, Ctrl+R,
 * Ctrl+Shift+I/J/K), and single keys apply only outside text fields.
 */

export type ShortcutId = 'newSession' | 'focusComposer' | 'stopOrCancel' | 'retryOrRegenerate' | 'focusApproval' | 'previousSession' | 'nextSession' | 'find' | 'help'

/** What a keydown says, read off the event (so tests can build one by hand). */
export type KeyPress = {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  shiftKey: boolean
  altKey: boolean
  /** An IME is composing: the key belongs to the input method. */
  isComposing: boolean
  /** Focus is in a field that takes text (input, textarea, contenteditable). */
  inTextField: boolean
  /** That field holds text (arrow keys there move the caret). */
  fieldHasText: boolean
}

/** True on Apple platforms, where the shortcut modifier is ⌘. */
export function isApple(platform: string): boolean {
  return /mac|iphone|ipad|ipod/i.test(platform)
}

/** The shortcut a key press means, if any. */
export function shortcutFor(press: KeyPress, apple: boolean): ShortcutId | undefined {
  if (press.isComposing) return undefined
  const mod = apple ? press.metaKey && !press.ctrlKey : press.ctrlKey && !press.metaKey
  const key = press.key.length === 1 ? press.key.toLowerCase() : press.key
  if (mod && press.shiftKey && !press.altKey) {
    if (key === 'o') return 'newSession'
    if (key === 'Backspace') return 'stopOrCancel'
    if (key === 'Enter') return 'retryOrRegenerate'
    // Not Ctrl+Shift+A (the browser's tab search). It moves focus to the approval, never decides:
    // Approve and Deny are then a deliberate Enter or Space away.
    if (key === 'y') return 'focusApproval'
    // Not Ctrl+F: the browser's own find stays the browser's.
    if (key === 'f') return 'find'
    return undefined
  }
  const plain = !press.ctrlKey && !press.metaKey && !press.altKey
  if (key === 'Escape' && press.shiftKey && plain) return 'focusComposer'
  if (press.altKey && !press.ctrlKey && !press.metaKey && !press.shiftKey && !(press.inTextField && press.fieldHasText)) {
    if (key === 'ArrowUp') return 'previousSession'
    if (key === 'ArrowDown') return 'nextSession'
  }
  if (plain && !press.inTextField) {
    if (press.key === '/') return 'focusComposer'
    if (press.key === '?') return 'help'
  }
  return undefined
}

/** The keys of each shortcut as the help dialog prints them, one or more ways per shortcut. */
export function shortcutKeys(id: ShortcutId, apple: boolean): string[][] {
  const mod = apple ? '⌘' : 'Ctrl'
  const shift = apple ? '⇧' : 'Shift'
  const alt = apple ? '⌥' : 'Alt'
  switch (id) {
    case 'newSession':
      return [[mod, shift, 'O']]
    case 'focusComposer':
      return [[shift, 'Esc'], ['/']]
    case 'stopOrCancel':
      return [[mod, shift, apple ? '⌫' : 'Backspace']]
    case 'retryOrRegenerate':
      return [[mod, shift, 'Enter']]
    case 'focusApproval':
      return [[mod, shift, 'Y']]
    case 'previousSession':
      return [[alt, '↑']]
    case 'nextSession':
      return [[alt, '↓']]
    case 'find':
      return [[mod, shift, 'F']]
    case 'help':
      return [['?']]
  }
}

export const SHORTCUT_IDS: readonly ShortcutId[] = ['newSession', 'focusComposer', 'stopOrCancel', 'retryOrRegenerate', 'focusApproval', 'previousSession', 'nextSession', 'find', 'help']

/** Reads a keydown into a KeyPress. */
export function keyPressOf(event: KeyboardEvent): KeyPress {
  const target = event.target instanceof HTMLElement ? event.target : null
  const field = target?.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') ?? null
  const value = field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement ? field.value : (field?.textContent ?? '')
  return {
    key: event.key,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    shiftKey: event.shiftKey,
    altKey: event.altKey,
    isComposing: event.isComposing || event.keyCode === 229,
    inTextField: field !== null,
    fieldHasText: value !== '',
  }
}
