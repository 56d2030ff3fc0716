import { expect, it } from 'vitest'
import { createChatRuntime } from '../../src/thread/runtime'
import { createDaemonClient } from '../../src/wire/http'
import { memoryBackend } from './memory-backend'

it('makes client message ids that are version 4 UUIDs, a new one each time', () => {
  const runtime = createChatRuntime(createDaemonClient({ baseUrl: 'http://daemon.test' }), memoryBackend())
  const ids = Array.from({ length: 200 }, () => runtime.newId())
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  expect(new Set(ids).size).toBe(ids.length)
  runtime.retry.dispose()
})
