import { useCallback, useState } from 'react'

const KEY_PREFIX = 'rebound.draft.'

function read(sessionId: string): string {
  try {
    return sessionStorage.getItem(KEY_PREFIX + sessionId) ?? ''
  } catch {
    return ''
  }
}

/** The composer's text for a session, kept in sessionStorage so a reload loses nothing typed. */
export function useDraft(sessionId: string): [string, (value: string) => void] {
  const [state, setState] = useState(() => ({ sessionId, value: read(sessionId) }))
  // Switching sessions shows that session's own draft.
  const current = state.sessionId === sessionId ? state : { sessionId, value: read(sessionId) }
  if (current !== state) setState(current)
  const set = useCallback(
    (value: string) => {
      setState({ sessionId, value })
      try {
        if (value) sessionStorage.setItem(KEY_PREFIX + sessionId, value)
        else sessionStorage.removeItem(KEY_PREFIX + sessionId)
      } catch {
        // Storage blocked: the draft still lives in memory for this page.
      }
    },
    [sessionId],
  )
  return [current.value, set]
}
