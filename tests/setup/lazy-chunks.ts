import { beforeAll } from 'vitest'
import { loadRetryScheduler } from '../../src/retry/lazy-scheduler'

// The app's lazy chunks that a test drives without looking (the tier 2 scheduler, the dialogs) are
// loaded before any test, so every runtime a test makes has the scheduler itself from the start
// and a dialog opens at once, as in the app once they have arrived, whatever the machine's speed.
// Their stand-ins are tested on their own (retry-lazy-scheduler, dialogs-lazy).
beforeAll(async () => {
  await loadRetryScheduler()
  // A file that tests the dialogs' chunk failing to load mocks it to throw: its stand-in then opens.
  if (typeof document !== 'undefined') await (await import('../../src/chat/dialogs/lazy-dialogs')).loadDialogs().catch(() => undefined)
})
