/**
 * Where an approval's focus goes, for this tab: the id of each Approve button (the shortcut moves
 * there), what the page's focus is when an approval shows up (read off the DOM for the pure rule
 * in thread/approvals.ts), and which approvals have already had their chance to take focus, so a
 * row mounted again (scrolled back into view, history read again) does not take it a second time.
 */
import type { FocusContext } from '../thread/approvals'
import type { ChatRuntime } from '../thread/runtime'

/** The id of the Approve button of the tool `key` (see decisionKey). */
export const approveButtonId = (key: string) => `approve-${key}`

/** Marks an approval's controls, so a second one showing up leaves the focus on the first. */
export const APPROVAL_ATTRIBUTE = 'data-approval'

/** The page's focus as the rule needs it. */
export function focusContext(): FocusContext {
  const active = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null
  return {
    modalOpen: document.querySelector('dialog[open], [aria-modal="true"]') !== null,
    inTextField: active?.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') != null,
    inApproval: active?.closest(`[${APPROVAL_ATTRIBUTE}]`) != null,
  }
}

const offeredByRuntime = new WeakMap<ChatRuntime, Set<string>>()

/** True the first time it is asked for `key` in this tab: an approval takes focus once, when it first shows up. */
export function firstShowing(runtime: ChatRuntime, key: string): boolean {
  let offered = offeredByRuntime.get(runtime)
  if (!offered) offeredByRuntime.set(runtime, (offered = new Set()))
  if (offered.has(key)) return false
  offered.add(key)
  return true
}

/** Moves focus to the Approve button of `tool` (the shortcut); false when there is none on the page. */
export function focusApproval(tool: { key: string } | undefined): boolean {
  const button = tool ? document.getElementById(approveButtonId(tool.key)) : null
  if (!button) return false
  button.scrollIntoView?.({ block: 'nearest' })
  button.focus()
  return true
}
