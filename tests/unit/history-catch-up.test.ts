/**
 * The session list's `updated_at` moved: whether that is news to this tab (history.ts
 * `catchUpWithList`), and so whether its end is read again.
 */
import { QueryClient } from '@tanstack/query-core'
import { describe, expect, it } from 'vitest'
import { catchUpWithList, chatKeys } from '../../src/thread/history'

const SID = 'ses_1'
const WRITTEN_AT = 1_000_000

function clientWithHistory() {
  const queryClient = new QueryClient()
  queryClient.setQueryData(chatKeys.sessions, [])
  queryClient.setQueryData(chatKeys.messages(SID), { messages: [] }, { updatedAt: WRITTEN_AT })
  return queryClient
}

const sameClock = (ms: number) => ms
const sessionsStale = (queryClient: QueryClient) => queryClient.getQueryState(chatKeys.sessions)?.isInvalidated

describe('catchUpWithList', () => {
  it('reads the end again for a change made after the history was last written, beyond the clocks’ slack', () => {
    const queryClient = clientWithHistory()
    expect(catchUpWithList(queryClient, SID, WRITTEN_AT + 2001, { following: false, toLocal: sameClock })).toBe(true)
    // refreshSession ran: the list is read again with the messages.
    expect(sessionsStale(queryClient)).toBe(true)
  })

  it('leaves a change the tab knows: written before its history, or within 2 s of it', () => {
    const queryClient = clientWithHistory()
    expect(catchUpWithList(queryClient, SID, WRITTEN_AT - 5000, { following: false, toLocal: sameClock })).toBe(false)
    expect(catchUpWithList(queryClient, SID, WRITTEN_AT + 2000, { following: false, toLocal: sameClock })).toBe(false)
    expect(sessionsStale(queryClient)).toBe(false)
  })

  it('leaves every change while the tab follows a reply of its own', () => {
    const queryClient = clientWithHistory()
    expect(catchUpWithList(queryClient, SID, WRITTEN_AT + 60_000, { following: true, toLocal: sameClock })).toBe(false)
    expect(sessionsStale(queryClient)).toBe(false)
  })

  it('reads the daemon’s time on this clock: a daemon 10 s ahead is not news 5 s after the write', () => {
    const queryClient = clientWithHistory()
    const daemonAhead = (ms: number) => ms - 10_000
    expect(catchUpWithList(queryClient, SID, WRITTEN_AT + 5000, { following: false, toLocal: daemonAhead })).toBe(false)
    expect(catchUpWithList(queryClient, SID, WRITTEN_AT + 13_000, { following: false, toLocal: daemonAhead })).toBe(true)
  })

  it('takes any change for news when nothing has been read yet', () => {
    const queryClient = new QueryClient()
    expect(catchUpWithList(queryClient, SID, WRITTEN_AT, { following: false, toLocal: sameClock })).toBe(true)
  })
})
