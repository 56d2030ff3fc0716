import { screen } from '@testing-library/react'
import { expect, it, vi } from 'vitest'
import { renderInLanguage } from './markdown-helpers'

it('opens a dialog asked for before its chunk has arrived as soon as it has', async () => {
  // A fresh copy of the module: the set-up has loaded the chunk for every other test.
  vi.resetModules()
  const { LazyShortcutsDialog } = await import('../../src/chat/dialogs/lazy-dialogs')
  const onClose = vi.fn()
  renderInLanguage(<LazyShortcutsDialog onClose={onClose} />)
  expect(screen.queryByRole('dialog')).toBeNull()
  // The chunk is compiled on first import here, which on a busy machine takes a while.
  expect(await screen.findByRole('dialog', { name: 'Keyboard shortcuts' }, { timeout: 10_000 })).toBeInTheDocument()
  expect(onClose).not.toHaveBeenCalled()
})
