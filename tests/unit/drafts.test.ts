/**
 * The drafts: a keystroke changes the draft for this page at once and reaches storage (and so the
 * other tabs) once the frame after it has run, several keys in one write; a page going away
 * writes what it holds first; a send's clearing writes at once.
 */
import { describe, expect, it } from 'vitest'
import { createDrafts, DRAFT_NAMESPACE } from '../../src/send/drafts'
import { createKeyedStore, storageKey } from '../../src/storage/keyed-store'
import { memoryBackend } from './memory-backend'

function setup() {
  const memory = memoryBackend()
  let writes = 0
  const backend = {
    ...memory,
    setItem: (key: string, value: string) => {
      writes += 1
      memory.setItem(key, value)
    },
  }
  const store = createKeyedStore(backend)
  const soon: Array<() => void> = []
  let leave: (() => void) | undefined
  const drafts = createDrafts(store, {
    writeSoon: (write) => void soon.push(write),
    pageLeave: (write) => {
      leave = write
    },
  })
  const stored = (sessionId: string) => backend.getItem(storageKey(DRAFT_NAMESPACE, sessionId))
  const runSoon = () => {
    for (const write of soon.splice(0)) write()
  }
  return { backend, drafts, stored, runSoon, writes: () => writes, leave: () => leave?.() }
}

describe('drafts', () => {
  it('a keystroke is the draft at once for this page, and in storage after the frame, several keys in one write', () => {
    const { drafts, stored, runSoon, writes } = setup()
    let told = 0
    drafts.subscribe(() => void told++)
    drafts.type('s1', 'h')
    drafts.type('s1', 'he')
    drafts.type('s1', 'hey')
    expect(drafts.read('s1')).toBe('hey')
    expect(told).toBe(3)
    expect(stored('s1')).toBeNull()
    runSoon()
    expect(stored('s1')).toBe(JSON.stringify('hey'))
    expect(writes()).toBe(1)
    expect(drafts.read('s1')).toBe('hey')
  })

  it('a page going away writes what was typed and not yet stored', () => {
    const { drafts, stored, leave } = setup()
    drafts.type('s1', 'half a thought')
    drafts.type('s2', 'another')
    leave()
    expect(stored('s1')).toBe(JSON.stringify('half a thought'))
    expect(stored('s2')).toBe(JSON.stringify('another'))
  })

  it('write stores at once and wins over keys not yet stored; an empty draft is removed', () => {
    const { drafts, stored, runSoon } = setup()
    drafts.type('s1', 'sent text')
    drafts.write('s1', '')
    expect(drafts.read('s1')).toBe('')
    runSoon()
    expect(stored('s1')).toBeNull()
    expect(drafts.read('s1')).toBe('')
    drafts.write('s1', 'a quote')
    expect(stored('s1')).toBe(JSON.stringify('a quote'))
  })

  it('a draft another tab wrote reads through, unless this page holds newer keys', () => {
    const { drafts, backend, stored, runSoon } = setup()
    backend.setItem(storageKey(DRAFT_NAMESPACE, 's1'), JSON.stringify('from the other tab'))
    expect(drafts.read('s1')).toBe('from the other tab')
    drafts.type('s1', 'mine')
    expect(drafts.read('s1')).toBe('mine')
    runSoon()
    expect(stored('s1')).toBe(JSON.stringify('mine'))
  })
})
