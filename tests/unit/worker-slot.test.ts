import { describe, expect, it, vi } from 'vitest'
import { createWorkerSlot, type WorkerLike } from '../../src/workers/worker-slot'

type In = { id: number; ask: string }
type Out = { id: number; answer: string }

/** A worker whose messages and failures the test raises by hand. */
function fakeWorker() {
  const listeners = new Map<string, ((event: MessageEvent<Out>) => void)[]>()
  const posted: In[] = []
  let throwOnPost = false
  const worker: WorkerLike<In, Out> = {
    postMessage: (message) => {
      if (throwOnPost) throw new DOMException('could not be cloned', 'DataCloneError')
      posted.push(message)
    },
    addEventListener: (type: string, listener: (event: MessageEvent<Out>) => void) => void listeners.set(type, [...(listeners.get(type) ?? []), listener]),
    terminate: vi.fn(),
  }
  const raise = (type: 'error' | 'messageerror') => listeners.get(type)?.forEach((listener) => listener(new MessageEvent(type)))
  const answer = (message: Out) => listeners.get('message')?.forEach((listener) => listener(new MessageEvent('message', { data: message })))
  return { worker, posted, raise, answer, throwNextPost: () => (throwOnPost = true) }
}

function slotOver(spawn: () => WorkerLike<In, Out>) {
  const answers: Out[] = []
  const handedOver: Array<[string, number]> = []
  const slot = createWorkerSlot<In, Out, string>({ spawn, onMessage: (message) => answers.push(message), handOver: (request, id) => handedOver.push([request, id]) })
  return { slot, answers, handedOver }
}

describe('a worker slot', () => {
  it('starts its worker on the first request, once, and gives each request an id of its own', () => {
    const fake = fakeWorker()
    const spawn = vi.fn(() => fake.worker)
    const { slot, answers } = slotOver(spawn)
    expect(spawn).not.toHaveBeenCalled()

    expect(slot.send('first', (id) => ({ id, ask: 'a' }))).toBe(true)
    expect(slot.send('second', (id) => ({ id, ask: 'b' }))).toBe(true)
    expect(slot.start()).toBe(true)

    expect(spawn).toHaveBeenCalledTimes(1)
    expect(fake.posted).toEqual([
      { id: 1, ask: 'a' },
      { id: 2, ask: 'b' },
    ])
    fake.answer({ id: 2, answer: 'B' })
    expect(answers).toEqual([{ id: 2, answer: 'B' }])
    expect(slot.get(1)).toBe('first')
    expect(slot.take(2)).toBe('second')
    expect(slot.take(2)).toBeUndefined()
  })

  it('leaves every request to the page when its worker cannot start, and never tries again', () => {
    const spawn = vi.fn((): WorkerLike<In, Out> => {
      throw new Error('Workers are refused here')
    })
    const { slot } = slotOver(spawn)
    expect(slot.send('first', (id) => ({ id, ask: 'a' }))).toBe(false)
    expect(slot.start()).toBe(false)
    expect(slot.send('second', (id) => ({ id, ask: 'b' }))).toBe(false)
    expect(spawn).toHaveBeenCalledTimes(1)
    expect(slot.get(1)).toBeUndefined()
  })

  it.each(['error', 'messageerror'] as const)('on %s, ends the worker and hands over what it had, once; later requests go to the page', (type) => {
    const fake = fakeWorker()
    const spawn = vi.fn(() => fake.worker)
    const { slot, handedOver } = slotOver(spawn)
    slot.send('answered', (id) => ({ id, ask: 'a' }))
    slot.send('in hand', (id) => ({ id, ask: 'b' }))
    slot.send('also in hand', (id) => ({ id, ask: 'c' }))
    slot.take(1)

    fake.raise(type)
    fake.raise('error')

    expect(fake.worker.terminate).toHaveBeenCalledTimes(1)
    expect(handedOver).toEqual([
      ['in hand', 2],
      ['also in hand', 3],
    ])
    expect(slot.get(2)).toBeUndefined()
    expect(slot.send('later', (id) => ({ id, ask: 'd' }))).toBe(false)
    expect(slot.start()).toBe(false)
    expect(spawn).toHaveBeenCalledTimes(1)
    expect(fake.posted).toHaveLength(3)
  })

  it('keeps nothing of a request whose postMessage throws, and throws', () => {
    const fake = fakeWorker()
    const { slot, handedOver } = slotOver(() => fake.worker)
    slot.send('sent', (id) => ({ id, ask: 'a' }))
    fake.throwNextPost()

    expect(() => slot.send('unsendable', (id) => ({ id, ask: 'b' }))).toThrow('could not be cloned')
    expect(slot.get(2)).toBeUndefined()
    // The worker breaking later hands over only what it was really given.
    fake.raise('error')
    expect(handedOver).toEqual([['sent', 1]])
  })

  it('posts a message as it is to a running worker, and to nothing before one starts', () => {
    const fake = fakeWorker()
    const { slot } = slotOver(() => fake.worker)
    slot.post({ id: 9, ask: 'before' })
    expect(fake.posted).toEqual([])
    slot.start()
    slot.post({ id: 9, ask: 'after' })
    expect(fake.posted).toEqual([{ id: 9, ask: 'after' }])
  })
})
