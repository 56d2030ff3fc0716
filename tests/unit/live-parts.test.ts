/**
 * The parts builder on scripted step frames (daemon-wire.md "Agent steps"): text and reasoning
 * grouped into the last part of their kind, a tool part from `tool_call` to `tool_result`, tools in
 * parallel by id, nonsense frames skipped and reported, pieces joined only at flush with untouched
 * parts keeping their objects, and a reattach cut (`marks`, `cutToMarks`) that lets the frames after
 * a saved point rebuild exactly what an uninterrupted stream built.
 */
import { describe, expect, it } from 'vitest'
import { answerText, createPartsBuilder, cutToMarks, historyParts, type LivePart, type StepFrame } from '../../src/live/parts'
import type { Part } from '../../src/wire/types'

const T0 = Date.UTC(2026, 6, 1, 12)

type Step = DistributiveOmit<StepFrame, 'id'>
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** A builder fed frames with increasing ids, each at T0 + 10 ms × its id. */
function feeder(base: readonly LivePart[] = [], firstId = 1) {
  const builder = createPartsBuilder(base)
  let id = firstId - 1
  return {
    builder,
    /** Applies frames; returns how many made sense. */
    feed(...steps: Step[]) {
      let readable = 0
      for (const step of steps) {
        id += 1
        if (builder.apply({ ...step, id } as StepFrame, T0 + id * 10)) readable += 1
      }
      return readable
    },
  }
}

const call = (tool_call_id: string, name = 'read_file', effect: 'read' | 'write' = 'read'): Step => ({ type: 'tool_call', tool_call_id, name, effect })
const input = (tool_call_id: string, delta: string): Step => ({ type: 'tool_input', tool_call_id, delta })

describe('createPartsBuilder: text and reasoning', () => {
  it('appends a delta to the last part when it is text and a reasoning piece to the last reasoning part', () => {
    const f = feeder()
    f.feed({ type: 'reasoning', text: 'Let me ' }, { type: 'reasoning', text: 'think.' }, { type: 'delta', text: 'Hel' }, { type: 'delta', text: 'lo' })
    expect(f.builder.flush()).toEqual([
      { type: 'reasoning', text: 'Let me think.' },
      { type: 'text', text: 'Hello' },
    ])
  })

  it('starts a new text part for text after a tool, and a new reasoning part for reasoning after text', () => {
    const f = feeder()
    f.feed({ type: 'delta', text: 'Looking. ' }, call('t1'), input('t1', '{}'), { type: 'delta', text: 'Found it.' })
    f.feed({ type: 'reasoning', text: 'Hmm.' }, { type: 'delta', text: ' Done.' })
    const parts = f.builder.flush()
    expect(parts.map((p) => p.type)).toEqual(['text', 'tool', 'text', 'reasoning', 'text'])
    expect(answerText(parts)).toBe('Looking. Found it. Done.')
  })

  it('continues the last text part of a base list instead of starting one', () => {
    const base: LivePart[] = [{ type: 'text', text: 'Hello, ' }]
    const f = feeder(base)
    f.feed({ type: 'delta', text: 'world' })
    expect(f.builder.flush()).toEqual([{ type: 'text', text: 'Hello, world' }])
    // The base list and its objects are never written.
    expect(base).toEqual([{ type: 'text', text: 'Hello, ' }])
  })
})

describe('createPartsBuilder: tools', () => {
  it('follows a tool from its call to its result, on the clock it is given', () => {
    const f = feeder()
    f.feed(call('t1', 'write_file', 'write'))
    expect(f.builder.flush()).toEqual([{ type: 'tool', tool_call_id: 't1', name: 'write_file', effect: 'write', input: '', status: 'input', started_at: T0 + 10 }])

    f.feed(input('t1', '{"path":'), input('t1', '"a.txt"}'))
    expect(f.builder.flush()[0]).toMatchObject({ input: '{"path":"a.txt"}', status: 'input' })

    f.feed({ type: 'tool_approval', tool_call_id: 't1', reason: 'Writes a file.' })
    expect(f.builder.flush()[0]).toMatchObject({ status: 'awaiting_approval', reason: 'Writes a file.' })

    f.feed({ type: 'tool_running', tool_call_id: 't1' })
    expect(f.builder.flush()[0]).toMatchObject({ status: 'running', reason: 'Writes a file.' })

    f.feed({ type: 'tool_result', tool_call_id: 't1', status: 'done', output: 'wrote 3 bytes', output_bytes: 13, output_truncated: false })
    expect(f.builder.flush()).toEqual([
      {
        type: 'tool',
        tool_call_id: 't1',
        name: 'write_file',
        effect: 'write',
        input: '{"path":"a.txt"}',
        status: 'done',
        reason: 'Writes a file.',
        output: 'wrote 3 bytes',
        output_bytes: 13,
        output_truncated: false,
        started_at: T0 + 10,
        ended_at: T0 + 60,
      },
    ])
  })

  it('ends a failing tool failed with its error, and leaves out what the result did not carry', () => {
    const f = feeder()
    f.feed(call('t1'), { type: 'tool_running', tool_call_id: 't1' }, { type: 'tool_result', tool_call_id: 't1', status: 'failed', error: { code: 'tool_timeout', message: 'Too slow.' } })
    const [tool] = f.builder.flush()
    expect(tool).toMatchObject({ status: 'failed', error: { code: 'tool_timeout', message: 'Too slow.' }, ended_at: T0 + 30 })
    expect(tool).not.toHaveProperty('output')
    expect(tool).not.toHaveProperty('output_bytes')
    expect(tool).not.toHaveProperty('reason')
  })

  it('keeps parallel tools apart by id, in the order of their calls', () => {
    const f = feeder()
    f.feed(call('a', 'search_docs'), call('b', 'read_file'), input('b', '{"path"'), input('a', '{"q"'), input('a', ':"x"}'), input('b', ':"y"}'))
    f.feed({ type: 'tool_running', tool_call_id: 'b' }, { type: 'tool_result', tool_call_id: 'b', status: 'done', output: 'Y', output_bytes: 1, output_truncated: false })
    f.feed({ type: 'tool_running', tool_call_id: 'a' })
    const parts = f.builder.flush()
    expect(parts).toMatchObject([
      { tool_call_id: 'a', name: 'search_docs', input: '{"q":"x"}', status: 'running' },
      { tool_call_id: 'b', name: 'read_file', input: '{"path":"y"}', status: 'done', output: 'Y' },
    ])
    f.feed({ type: 'tool_result', tool_call_id: 'a', status: 'denied', output_bytes: 0, output_truncated: false })
    expect(f.builder.flush()[0]).toMatchObject({ tool_call_id: 'a', status: 'denied' })
  })

  it('skips and reports frames that make no sense: an unknown id, a second call, events after the end', () => {
    const f = feeder()
    expect(f.feed(input('ghost', '{}'), { type: 'tool_approval', tool_call_id: 'ghost' }, { type: 'tool_running', tool_call_id: 'ghost' })).toBe(0)
    expect(f.feed({ type: 'tool_result', tool_call_id: 'ghost', status: 'done', output_bytes: 0, output_truncated: false })).toBe(0)
    expect(f.builder.flush()).toEqual([])

    f.feed(call('t1'), { type: 'tool_result', tool_call_id: 't1', status: 'cancelled', output_bytes: 0, output_truncated: false })
    const ended = f.builder.flush()
    expect(f.feed(call('t1', 'other'), input('t1', 'late'), { type: 'tool_running', tool_call_id: 't1' })).toBe(0)
    expect(f.feed({ type: 'tool_result', tool_call_id: 't1', status: 'done', output_bytes: 0, output_truncated: false })).toBe(0)
    // Nothing changed: the very same list comes back.
    expect(f.builder.flush()).toBe(ended)
    expect(ended).toEqual([expect.objectContaining({ tool_call_id: 't1', name: 'read_file', input: '', status: 'cancelled' })])
  })
})

describe('createPartsBuilder: flushes', () => {
  it('copies only the parts frames touched: the others keep their objects, and an empty flush its list', () => {
    const f = feeder()
    f.feed({ type: 'reasoning', text: 'Plan.' }, call('a'), call('b'), input('a', '{'), input('b', '{'))
    const first = f.builder.flush()
    expect(f.builder.flush()).toBe(first)

    f.feed(input('b', '}'))
    const second = f.builder.flush()
    expect(second).not.toBe(first)
    expect(second[0]).toBe(first[0])
    expect(second[1]).toBe(first[1])
    expect(second[2]).not.toBe(first[2])
    expect(second[2]).toMatchObject({ input: '{}' })

    f.feed({ type: 'delta', text: 'Answer' })
    const third = f.builder.flush()
    expect(third.slice(0, 3).every((part, i) => part === second[i])).toBe(true)
    expect(third[3]).toEqual({ type: 'text', text: 'Answer' })
  })

  it('never changes a list it handed out', () => {
    const f = feeder()
    f.feed({ type: 'delta', text: 'a' }, call('t'), input('t', 'x'))
    const first = f.builder.flush()
    const copy = structuredClone(first)
    f.feed(input('t', 'y'), { type: 'tool_running', tool_call_id: 't' }, { type: 'delta', text: 'b' })
    f.builder.flush()
    expect(first).toEqual(copy)
  })

  it('builds 20,000 deltas and 2 MiB of input over 30 tools with flushes in between, touching only what changed', () => {
    const f = feeder()
    const chunk = 'x'.repeat(1024)
    let flushes = 0
    let kept = 0
    let previous: readonly LivePart[] = []
    const flush = () => {
      const next = f.builder.flush()
      // Every part but the last few (the ones being written) is the object of the flush before.
      for (let i = 0; i < previous.length - 2; i++) if (next[i] === previous[i]) kept += 1
      previous = next
      flushes += 1
    }
    const started = performance.now()
    for (let tool = 0; tool < 30; tool++) {
      for (let d = 0; d < 667; d++) {
        f.feed({ type: 'delta', text: 'w ' })
        if (d % 100 === 99) flush()
      }
      const id = `t${tool}`
      f.feed(call(id))
      for (let k = 0; k < 70; k++) {
        f.feed(input(id, chunk))
        if (k % 10 === 9) flush()
      }
      f.feed({ type: 'tool_running', tool_call_id: id }, { type: 'tool_result', tool_call_id: id, status: 'done', output: 'ok', output_bytes: 2, output_truncated: false })
    }
    flush()
    const elapsed = performance.now() - started
    const parts = f.builder.flush()
    expect(parts).toHaveLength(60)
    expect(answerText(parts)).toHaveLength(30 * 667 * 2)
    expect(parts.filter((p) => p.type === 'tool').every((p) => p.type === 'tool' && p.input.length === 70 * 1024 && p.status === 'done')).toBe(true)
    // A generous bound (it takes about 30 ms on two shared cores): a slip into work per frame that grows with the reply shows here.
    expect(elapsed).toBeLessThan(1500)
    expect(flushes).toBeGreaterThan(300)
    expect(kept).toBeGreaterThan(flushes * 10)
  })
})

/** A run with every kind of step, two tools in parallel, one asking approval. */
const SCRIPT: Step[] = [
  { type: 'reasoning', text: 'The user wants ' },
  { type: 'reasoning', text: 'two files.' },
  { type: 'delta', text: 'Reading ' },
  { type: 'delta', text: 'both.' },
  call('a', 'read_file'),
  call('b', 'write_file', 'write'),
  input('a', '{"path":'),
  input('b', '{"path":"out"'),
  input('a', '"in"}'),
  { type: 'tool_running', tool_call_id: 'a' },
  input('b', ',"text":"hi"}'),
  { type: 'tool_approval', tool_call_id: 'b', reason: 'Writes out.' },
  { type: 'tool_result', tool_call_id: 'a', status: 'done', output: 'IN', output_bytes: 2, output_truncated: false },
  { type: 'tool_running', tool_call_id: 'b' },
  { type: 'delta', text: 'Waiting ' },
  { type: 'tool_result', tool_call_id: 'b', status: 'failed', error: { code: 'tool_failed', message: 'Disk full.' } },
  { type: 'delta', text: 'on it. ' },
  { type: 'delta', text: 'It failed.' },
]

/** The parts after the first `n` frames of SCRIPT, as a stream (or the daemon persisting them) has them. */
function partsAfter(n: number): readonly LivePart[] {
  const f = feeder()
  f.feed(...SCRIPT.slice(0, n))
  return f.builder.flush()
}

describe('marks and cutToMarks: picking up after a reload', () => {
  it('marks the shape with what is still pending, never the text', () => {
    const f = feeder()
    f.feed(...SCRIPT.slice(0, 12))
    const marks = f.builder.marks()
    expect(marks).toEqual([
      { type: 'reasoning', length: 'The user wants two files.'.length },
      { type: 'text', length: 'Reading both.'.length },
      { type: 'tool', id: 'a', length: '{"path":"in"}'.length, status: 'running', started_at: T0 + 50 },
      { type: 'tool', id: 'b', length: '{"path":"out","text":"hi"}'.length, status: 'awaiting_approval', reason: 'Writes out.', started_at: T0 + 60 },
    ])
    expect(JSON.stringify(marks)).not.toContain('files')
    // A flush changes nothing of the shape.
    f.builder.flush()
    expect(f.builder.marks()).toEqual(marks)
  })

  it('for every saved point and every later history, the frames after the point rebuild the uninterrupted parts', () => {
    const whole = partsAfter(SCRIPT.length)
    for (let saved = 0; saved <= SCRIPT.length; saved++) {
      const before = feeder()
      before.feed(...SCRIPT.slice(0, saved))
      const marks = before.builder.marks()
      for (let read = saved; read <= SCRIPT.length; read++) {
        const base = cutToMarks(partsAfter(read) as Part[], marks)
        expect(base, `saved ${saved}, history ${read}`).toEqual(partsAfter(saved))
        const after = feeder(base, saved + 1)
        after.feed(...SCRIPT.slice(saved))
        expect(after.builder.flush(), `saved ${saved}, history ${read}`).toEqual(whole)
      }
    }
  })

  it('refuses a history that has not reached the saved point', () => {
    const marksAt = (n: number) => {
      const f = feeder()
      f.feed(...SCRIPT.slice(0, n))
      return f.builder.marks()
    }
    for (let saved = 1; saved <= SCRIPT.length; saved++) {
      // One frame short: a part, a piece of text or input, or a tool's end is missing.
      const behind = partsAfter(saved - 1) as Part[]
      const marks = marksAt(saved)
      const cut = cutToMarks(behind, marks)
      // Frames that change no length nor ending (running, approval) leave history as good as the point.
      const step = SCRIPT[saved - 1]!
      if (step.type === 'tool_running' || step.type === 'tool_approval') expect(cut).toBeDefined()
      else expect(cut, `saved ${saved}`).toBeUndefined()
    }
    // Another tool in the saved tool's place.
    expect(cutToMarks([{ type: 'tool', tool_call_id: 'z', name: 'n', effect: 'read', input: '', status: 'input', started_at: T0 }], [{ type: 'tool', id: 'a', length: 0, status: 'input', started_at: T0 }])).toBeUndefined()
    expect(cutToMarks([{ type: 'reasoning', text: 'abc' }], [{ type: 'text', length: 2 }])).toBeUndefined()
  })

  it('takes a tool that history has further on back to its status then, without the output it did not have yet', () => {
    const history: Part[] = [
      { type: 'tool', tool_call_id: 'a', name: 'read_file', effect: 'read', input: '{"p":1}', status: 'done', output: 'X', output_bytes: 1, output_truncated: false, started_at: 5, ended_at: 9 },
    ]
    const [tool] = cutToMarks(history, [{ type: 'tool', id: 'a', length: 3, status: 'input', started_at: 7 }])!
    expect(tool).toEqual({ type: 'tool', tool_call_id: 'a', name: 'read_file', effect: 'read', input: '{"p', status: 'input', started_at: 7 })
  })
})

describe('historyParts and answerText', () => {
  it('reads a reply without parts as one text part of its content', () => {
    expect(historyParts('Hello', undefined)).toEqual([{ type: 'text', text: 'Hello' }])
    expect(historyParts('', undefined)).toEqual([])
    const parts: Part[] = [{ type: 'reasoning', text: 'r' }]
    expect(historyParts('ignored', parts)).toBe(parts)
  })

  it('joins the text parts only', () => {
    expect(answerText(partsAfter(SCRIPT.length))).toBe('Reading both.Waiting on it. It failed.')
  })
})
