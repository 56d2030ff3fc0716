/** Focus inside a modal dialog: Tab kept inside it, and focus handed back only where it can land. */

const TABBABLE = 'button, [href], input, select, textarea, summary, [tabindex]:not([tabindex="-1"])'

/** Tab from the last control goes to the first, Shift+Tab from the first to the last. */
export function trapTab(event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'preventDefault'>, container: HTMLElement): void {
  const controls = [...container.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => !el.matches(':disabled'))
  const first = controls[0]
  const last = controls.at(-1)
  if (!first || !last) {
    event.preventDefault()
    return
  }
  const active = document.activeElement
  const outside = !(active instanceof Node) || !container.contains(active) || active === container
  if (event.shiftKey && (active === first || outside)) {
    event.preventDefault()
    last.focus()
  } else if (!event.shiftKey && (active === last || outside)) {
    event.preventDefault()
    first.focus()
  }
}

/** Focuses `element` if it can hold focus now (`options` as `focus()` takes them); true when focus landed on it. */
export function focusIfAble(element: HTMLElement | null | undefined, options?: FocusOptions): boolean {
  if (!element || !element.isConnected || element.matches(':disabled') || element.closest('[inert], [hidden]')) return false
  // Where layout is known (not in jsdom), a display:none or visibility:hidden control cannot take focus.
  if (typeof element.checkVisibility === 'function' && !element.checkVisibility({ visibilityProperty: true })) return false
  element.focus(options)
  return document.activeElement === element
}
