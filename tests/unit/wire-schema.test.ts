import { describe, expect, it } from 'vitest'
import { readMessageList } from '../../src/wire/types'
import { readList } from './read-history'

const failed = (retry: unknown) => ({
  messages: [
    { id: 'o', session_id: 's', role: 'operator', content: 'hi', created_at: 1, superseded: false, client_message_id: 'c' },
    { id: 'a', session_id: 's', role: 'agent', content: '', created_at: 2, superseded: false, reply_to: 'o', run_id: 'r', status: 'failed', error: { code: 'model_rate_limited', message: 'rate limited' }, retry },
  ],
})

describe('a failed message with a classification that cannot be trusted', () => {
  it.each([null, 'soon', '1e400', { not: 'a number' }])('keeps the conversation and drops retry_after_until %j', async (until) => {
    const parsed = await readList(failed({ retryable: true, retry_class: 'rate_limited', retry_after_until: until }))
    expect(parsed.messages[1]?.retry).toEqual({ retryable: true, retry_class: 'rate_limited' })
  })

  it('reads a number JSON turns into Infinity as no provider time', async () => {
    const parsed = await readList(JSON.parse(JSON.stringify(failed({ retryable: true, retry_class: 'overloaded' })).replace('"overloaded"}', '"overloaded","retry_after_until":1e400}')))
    expect(parsed.messages[1]?.retry?.retry_after_until).toBeUndefined()
  })

  it('drops a classification whose shape is wrong, so the reply loads and can never arm', async () => {
    const parsed = await readList(failed({ retryable: 'yes', retry_class: 7 }))
    expect(parsed.messages[1]?.retry).toBeUndefined()
    expect(parsed.messages[1]?.status).toBe('failed')
  })

  it('skips a message that is not a message, and counts it, keeping the rest', async () => {
    const parsed = await readList({ messages: [{ id: 1 }, ...failed(undefined).messages] })
    expect(parsed.skipped).toBe(1)
    expect(parsed.messages.map((m) => m.id)).toEqual(['o', 'a'])
  })

  it('still refuses a list that is not a list', async () => {
    expect((await readMessageList({ messages: 'no' }, async () => {})).ok).toBe(false)
    expect((await readMessageList({}, async () => {})).ok).toBe(false)
  })
})
