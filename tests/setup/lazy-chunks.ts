import { beforeAll } from 'vitest'
import { loadRetryScheduler } from '../../src/retry/lazy-scheduler'
import { loadPageReader } from '../../src/wire/follow-on-page'

// The app's lazy chunks that a test drives without looking (the tier 2 scheduler, the page's stream
// reader, the dialogs) are loaded before any test, so every runtime a test makes has the scheduler
// itself from the start, reads a run's stream at once and opens a dialog at once, as in the app
// once they have arrived, whatever the machine's speed.
// Their stand-ins are tested on their own (retry-lazy-scheduler, dialogs-lazy).
beforeAll(async () => {
  await loadRetryScheduler()
  await loadPageReader()
  // A file that tests the dialogs' chunk failing to load mocks it to throw: its stand-in then opens.
  if (typeof document !== 'undefined') await (await import('../../src/chat/dialogs/lazy-dialogs')).loadDialogs().catch(() => undefined)
})
