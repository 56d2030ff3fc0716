/**
 * Shared by the session suites (rename, delete, export, the first screen, shortcuts): the whole
 * app rendered at an address, the words of each language from the same tables the app uses, and
 * the few screen and request helpers they share.
 */
import { fireEvent, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { TFunction } from 'i18next'
import { expect } from 'vitest'
import type { MockDaemon } from '../../mocks/model'
import type { Language } from '../../src/i18n/resources'
import { createI18n } from '../../src/i18n/bundled'
import { advance, renderApp } from './harness'

export const user = () => userEvent.setup({ delay: null })

/** The word function of a language, built from the app's own tables. */
export function wordsOf(lng: Language): TFunction {
  return createI18n({ lng }).t
}

/** Renders the whole app at `path` ("/" is the first screen) and lets the first reads land. */
export async function renderAppAt(path: string, lng: Language = 'en') {
  window.history.replaceState(null, '', path)
  const view = renderApp({ lng })
  await advance(50)
  return view
}

/** The address of a session, as the list links it. */
export const sessionPath = (sid: string) => `/sessions/${encodeURIComponent(sid)}`

/** The sessions navigation (named by its heading). */
export function sessionsNav(t: TFunction): HTMLElement {
  return screen.getByRole('navigation', { name: t('sessions.heading') })
}

/** A session's link in the list, by its shown title. */
export function sessionLink(t: TFunction, title: string): HTMLElement {
  return within(sessionsNav(t)).getByRole('link', { name: new RegExp(`^${escapeRegExp(title)}`) })
}

/** The titles the list shows, top to bottom. */
export function listedTitles(t: TFunction): string[] {
  return within(sessionsNav(t))
    .queryAllByRole('link')
    .map((a) => a.querySelector('.sessions__title')?.textContent ?? '')
}

/** Opens a session's "⋯" menu and returns the group of its actions. */
async function openSessionMenu(t: TFunction, title: string): Promise<HTMLElement> {
  await user().click(within(sessionsNav(t)).getByRole('button', { name: t('sessionMenu.actions', { title }) }))
  return within(sessionsNav(t)).getByRole('group', { name: t('sessionMenu.actions', { title }) })
}

/** Picks an item of a session's menu. */
export async function chooseFromMenu(t: TFunction, title: string, item: 'rename' | 'exportMarkdown' | 'exportJson' | 'delete'): Promise<void> {
  const menu = await openSessionMenu(t, title)
  await user().click(within(menu).getByRole('button', { name: t(`sessionMenu.${item}`) }))
}

/** The rename field of a session (by its title before the rename). */
export function renameField(t: TFunction, title: string): HTMLInputElement {
  return screen.getByRole('textbox', { name: t('sessionMenu.renameLabel', { title }) }) as HTMLInputElement
}

/** Requests of the client the daemon logged, as "METHOD /path". */
export function requestLines(daemon: MockDaemon, pattern?: RegExp): string[] {
  return daemon
    .state()
    .requests.map((r) => `${r.method} ${r.path}`)
    .filter((line) => !pattern || pattern.test(line))
}

/** Every request that would change a session (create, rename, delete). */
export const SESSION_WRITES = /^(POST \/api\/v1\/sessions|PATCH \/api\/v1\/sessions\/[^/]+|DELETE \/api\/v1\/sessions\/[^/]+)$/

/** A keydown as the browser sends it, on the focused element (it bubbles to the document). Returns whether the default went ahead. */
export function pressKey(init: { key: string; ctrlKey?: boolean; metaKey?: boolean; shiftKey?: boolean; altKey?: boolean }, target: Element = document.activeElement ?? document.body): boolean {
  return fireEvent.keyDown(target, { ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...init })
}

/** Expects focus on `element`, saying where it is instead when it is not. */
export function expectFocusOn(element: Element, what: string): void {
  const active = document.activeElement
  const where = active === document.body ? 'the body' : active ? `${active.tagName.toLowerCase()} "${active.textContent ?? ''}" ${active.getAttribute('aria-label') ?? ''}` : 'nothing'
  expect(active === element, `focus on ${what}, not on ${where}`).toBe(true)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
