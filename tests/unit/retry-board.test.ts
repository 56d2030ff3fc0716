import { describe, expect, it } from 'vitest'
import { BOARD_LIMIT, createRetryBoard, type BoardRecord } from '../../src/retry/board'
import { createKeyedStore } from '../../src/storage/keyed-store'
import { memoryBackend } from './memory-backend'

const record = (phase: BoardRecord['phase'], failureId = 'f'): BoardRecord => ({ failureId, failureCreatedAt: 1, attempt: 1, deadline: 2, paused: false, phase })

describe('the tier 2 board keeps a bounded number of records', () => {
  it('lets the oldest episodes at rest go, and never one still in play', () => {
    const backend = memoryBackend()
    const board = createRetryBoard(createKeyedStore(backend))
    board.write('s', 'armed-first', record('armed'))
    board.write('s', 'watching-second', record('watching'))
    for (let i = 0; i < BOARD_LIMIT * 2; i++) board.write('s', `a${i}`, record(i % 3 === 0 ? 'cancelled' : i % 3 === 1 ? 'settled' : 'dismissed'))

    // The two in play stay, however old.
    expect(board.read('s', 'armed-first')?.phase).toBe('armed')
    expect(board.read('s', 'watching-second')?.phase).toBe('watching')
    // The newest at rest stay; the oldest are gone.
    expect(board.read('s', `a${BOARD_LIMIT * 2 - 1}`)).toBeDefined()
    expect(board.read('s', 'a0')).toBeUndefined()
    const kept = [...backend.items.keys()].filter((key) => key.startsWith('rebound.retry-board.'))
    expect(kept).toHaveLength(BOARD_LIMIT)
  })

  it('does not count a record again when it is updated', () => {
    const backend = memoryBackend()
    const board = createRetryBoard(createKeyedStore(backend))
    board.write('s', 'x', record('armed'))
    for (let attempt = 2; attempt < BOARD_LIMIT + 10; attempt++) board.write('s', 'x', { ...record('armed'), attempt })
    board.update('s', 'x', 'f', { phase: 'settled' })
    expect(board.read('s', 'x')?.phase).toBe('settled')
    expect(JSON.parse(backend.items.get('rebound.retry-board-index.v1') ?? '[]')).toEqual(['s.x'])
  })
})

describe('the hold on the board', () => {
  it('round-trips the held tools, and reads an old record written without them as not held', () => {
    const backend = memoryBackend()
    const board = createRetryBoard(createKeyedStore(backend))
    board.write('s', 'held', { ...record('armed'), held: ['write_file', 'edit_file'] })
    expect(board.read('s', 'held')).toEqual({ ...record('armed'), held: ['write_file', 'edit_file'] })

    // A record as an earlier version stored it, straight in storage: it still reads, with no hold.
    board.write('s', 'old', record('armed'))
    const [key] = [...backend.items.keys()].filter((k) => k.startsWith('rebound.retry-board.') && k.includes('old'))
    const stored = JSON.parse(backend.items.get(key!)!)
    expect(JSON.stringify(stored)).not.toContain('held')
    const reread = createRetryBoard(createKeyedStore(backend)).read('s', 'old')
    expect(reread).toEqual(record('armed'))
    expect(reread?.held).toBeUndefined()
  })

  it('keeps the hold when a tab patches the attempt (a held attempt lost is held again)', () => {
    const board = createRetryBoard(createKeyedStore(memoryBackend()))
    board.write('s', 'x', { ...record('dispatching'), held: ['write_file'] })
    board.update('s', 'x', 'f', { phase: 'armed', attempt: 2, deadline: 9, paused: false })
    expect(board.read('s', 'x')).toMatchObject({ phase: 'armed', attempt: 2, held: ['write_file'] })
  })
})
