import type { RequestHandler } from 'msw'
import type { MockDaemon } from '../model'
import { messageHandlers } from './messages'
import { mockControlHandlers } from './mock-control'
import { runHandlers } from './runs'
import { sessionHandlers } from './sessions'

/** Every handler of the mock daemon, bound to one daemon; the browser, node tests and the HTTP server share them. */
export function handlersFor(daemon: MockDaemon): RequestHandler[] {
  return [...sessionHandlers(daemon), ...messageHandlers(daemon), ...runHandlers(daemon), ...mockControlHandlers(daemon)]
}
