import { expect, it, vi } from 'vitest'
import { LazyConfirmDialog } from '../../src/chat/dialogs/lazy-dialogs'
import { renderInLanguage } from './markdown-helpers'

// The dialogs' chunk cannot be fetched (offline, or a deploy replaced it).
vi.mock('../../src/chat/dialogs/dialogs', () => {
  throw new Error('Failed to fetch dynamically imported module')
})

it('closes a dialog whose chunk cannot be fetched, as a dismissal does', async () => {
  // React reports the error it caught; that report is expected here, not a failure.
  const reported = vi.spyOn(console, 'error').mockImplementation(() => undefined)
  const onCancel = vi.fn()
  const onConfirm = vi.fn()
  const { container } = renderInLanguage(<LazyConfirmDialog title="Delete?" body="Gone for good." confirmLabel="Delete" cancelLabel="Keep" onConfirm={onConfirm} onCancel={onCancel} />)
  await vi.waitFor(() => expect(onCancel).toHaveBeenCalledTimes(1))
  expect(reported.mock.calls.flat().map(String).join(' ')).toMatch(/error boundary you provided, DismissOnError/)
  expect(onConfirm).not.toHaveBeenCalled()
  expect(container).toBeEmptyDOMElement()
})
