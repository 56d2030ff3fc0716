import { useCallback, useSyncExternalStore } from 'react'

const PATTERN = /^\/sessions\/([^/]+)\/?$/

function subscribe(listener: () => void) {
  window.addEventListener('popstate', listener)
  return () => window.removeEventListener('popstate', listener)
}

/** The session id the address carries (`/sessions/:id`), so reloads and links land on the same session. */
export function sessionIdFromPath(pathname: string): string | undefined {
  const match = PATTERN.exec(pathname)
  if (!match?.[1]) return undefined
  try {
    return decodeURIComponent(match[1])
  } catch {
    return undefined
  }
}

export function useSessionRoute(): [string | undefined, (id: string | undefined) => void] {
  const sessionId = useSyncExternalStore(
    subscribe,
    () => sessionIdFromPath(window.location.pathname),
    () => undefined,
  )
  const navigate = useCallback((id: string | undefined) => {
    const path = id ? `/sessions/${encodeURIComponent(id)}` : '/'
    if (window.location.pathname !== path) {
      window.history.pushState(null, '', `${path}${window.location.search}`)
      window.dispatchEvent(new PopStateEvent('popstate'))
    }
  }, [])
  return [sessionId, navigate]
}
