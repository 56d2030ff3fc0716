/**
 * In a page, another tab's writes to the keyed store are heard from the browser's `storage`
 * event (it fires once the new value is readable here), never from a channel message that could
 * overtake the write: drafts, the outbox and the retry board re-read on it.
 */
import { expect, it, vi } from 'vitest'
import { createChatRuntime } from '../../src/thread/runtime'
import { storageKey } from '../../src/storage/keyed-store'
import { createDaemonClient } from '../../src/wire/http'
import { DAEMON_ORIGIN } from './harness'

/** What another tab does: writes localStorage, and this window gets the storage event. */
function otherTabWrites(key: string, value: string) {
  localStorage.setItem(key, value)
  window.dispatchEvent(new StorageEvent('storage', { key, newValue: value, storageArea: localStorage }))
}

it("re-reads a draft and the outbox another tab wrote, on the storage event", () => {
  const runtime = createChatRuntime(createDaemonClient({ baseUrl: DAEMON_ORIGIN }))
  const drafts = vi.fn()
  const outbox = vi.fn()
  runtime.drafts.subscribe(drafts)
  runtime.outbox.subscribe(outbox)
  otherTabWrites(storageKey('draft', 's1'), JSON.stringify('from the other tab'))
  expect(drafts).toHaveBeenCalled()
  expect(runtime.drafts.read('s1')).toBe('from the other tab')
  const entry = { clientMessageId: 'c1', sessionId: 's1', content: 'parked', state: 'not_sent', createdAt: 1 }
  otherTabWrites(storageKey('outbox', 'v1'), JSON.stringify([entry]))
  expect(outbox).toHaveBeenCalledTimes(1)
  expect(runtime.outbox.entries()).toEqual([entry])
  // Keys of other apps on the origin are not ours.
  otherTabWrites('someone-else.draft.s1', '"x"')
  expect(drafts).toHaveBeenCalledTimes(1)
})
