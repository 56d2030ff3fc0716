/**
 * What the app opens on request, one chunk (see lazy-dialogs.tsx): the dialogs, a session's menu
 * and its rename field. None is on the first screen.
 */
export { ConfirmDialog } from './confirm-dialog'
export { ConfirmRegenerate } from './confirm-regenerate'
export { ShortcutsDialog } from './shortcuts-dialog'
export { RenameField } from '../sessions/rename-field'
export { SessionMenuList } from '../sessions/session-menu-list'
