import { describe, expect, it } from 'vitest'
import {
  INPUT_HEAD_CHARS,
  INPUT_TAIL_CHARS,
  highlightsInput,
  HIGHLIGHT_RUNNING_AFTER_MS,
  inputHighlightIn,
  livePartIndex,
  nextSecondIn,
  reasoningDurationMs,
  reasoningOpenByDefault,
  reasoningSpanMs,
  shownToolInput,
  MAX_TEXT_FIELDS,
  shownToolOutput,
  toolDurationMs,
  toolOpenByDefault,
  utf8Length,
} from '../../src/thread/steps'
import { TOOL_STATUSES, type Part, type ToolPart } from '../../src/wire/types'

const tool = (overrides: Partial<ToolPart> = {}): ToolPart => ({
  type: 'tool',
  tool_call_id: 'tc_1',
  name: 'search_docs',
  effect: 'read',
  input: '{"query":"x"}',
  status: 'done',
  started_at: 1_000,
  ...overrides,
})

describe('livePartIndex', () => {
  const parts: Part[] = [{ type: 'reasoning', text: 'a' }, tool(), { type: 'text', text: 'b' }]
  it('is the last part while the reply streams, and none once it ended', () => {
    expect(livePartIndex(parts, true)).toBe(2)
    expect(livePartIndex(parts, false)).toBe(-1)
    expect(livePartIndex([], true)).toBe(-1)
  })
})

describe('which steps show open', () => {
  it('opens a tool while it is written, waits, runs or failed, and folds it when done, denied or cancelled', () => {
    const open = TOOL_STATUSES.filter((status) => toolOpenByDefault(status, false))
    expect(open).toEqual(['input', 'awaiting_approval', 'running', 'failed'])
  })

  it('folds every tool of an earlier version, even a failed one', () => {
    expect(TOOL_STATUSES.filter((status) => toolOpenByDefault(status, true))).toEqual([])
  })

  it('opens reasoning only while it is written in the current reply', () => {
    expect(reasoningOpenByDefault(true, false)).toBe(true)
    expect(reasoningOpenByDefault(false, false)).toBe(false)
    expect(reasoningOpenByDefault(true, true)).toBe(false)
  })
})

describe('when a tool’s input is highlighted', () => {
  it('highlights at once unless the tool is running', () => {
    expect(TOOL_STATUSES.filter((status) => !highlightsInput(status, 0))).toEqual(['running'])
  })

  it('highlights a running tool’s input once it has run a second, and says when that is', () => {
    expect(HIGHLIGHT_RUNNING_AFTER_MS).toBe(1_000)
    expect(highlightsInput('running', 999)).toBe(false)
    expect(highlightsInput('running', 1_000)).toBe(true)
    expect(inputHighlightIn(200)).toBe(800)
    expect(inputHighlightIn(999)).toBe(1)
    expect(inputHighlightIn(1_000)).toBeNull()
    expect(inputHighlightIn(60_000)).toBeNull()
  })
})

describe('shownToolInput', () => {
  it('pretty-prints a complete JSON input and marks it as JSON', () => {
    expect(shownToolInput('{"path":"a.ts","lines":[1,2]}', 'running')).toEqual({
      text: '{\n  "path": "a.ts",\n  "lines": [\n    1,\n    2\n  ]\n}',
      tag: 'json',
      omitted: 0,
    })
  })

  it('shows an input that is not JSON as it was written, unhighlighted', () => {
    expect(shownToolInput('not json {', 'done')).toEqual({ text: 'not json {', tag: undefined, omitted: 0 })
    expect(shownToolInput('42', 'done')).toEqual({ text: '42', tag: undefined, omitted: 0 })
  })

  it('shows a streaming input raw, never parsed, even when it happens to parse already', () => {
    expect(shownToolInput('{"a":1}', 'input')).toEqual({ text: '{"a":1}', tag: undefined, omitted: 0 })
  })

  it('shows only the tail of a huge streaming input, and says how much is left out', () => {
    const input = `{"content":"${'x'.repeat(200 * 1024)}`
    const shown = shownToolInput(input, 'input')
    expect(shown.text).toHaveLength(INPUT_TAIL_CHARS)
    expect(input.endsWith(shown.text)).toBe(true)
    expect(shown.omitted).toBe(input.length - INPUT_TAIL_CHARS)
  })

  it('never starts the tail inside a surrogate pair', () => {
    const input = `${'😀'.repeat(INPUT_TAIL_CHARS)}`
    const shown = shownToolInput(input, 'input')
    expect(shown.text.charCodeAt(0)).toBe('😀'.charCodeAt(0))
    expect(shown.text.length + shown.omitted).toBe(input.length)
  })
})

describe('an input’s text fields', () => {
  it('takes out the strings that hold lines, in their order, and leaves the rest as JSON', () => {
    const shown = shownToolInput(JSON.stringify({ path: 'a.py', old: 'x = 1\n', new: 'x = 2\ny = 3\n', flags: { dry: true, note: 'a\nb' }, n: 2 }), 'done')
    expect(shown.text).toBe('{\n  "path": "a.py",\n  "flags": {\n    "dry": true,\n    "note": "a\\nb"\n  },\n  "n": 2\n}')
    expect(shown.tag).toBe('json')
    expect(shown.fields).toEqual([
      { name: 'old', lines: 1, text: 'x = 1\n', tag: 'py', omitted: 0 },
      { name: 'new', lines: 2, text: 'x = 2\ny = 3\n', tag: 'py', omitted: 0 },
    ])
  })

  it('leaves no JSON when every field is text, and reads a script and a patch by their first line', () => {
    const shown = shownToolInput(JSON.stringify({ script: '#!/usr/bin/env python3\nprint(1)', patch: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b' }), 'awaiting_approval')
    expect(shown.text).toBe('')
    expect(shown.fields!.map((field) => [field.name, field.tag, field.lines])).toEqual([
      ['script', 'python', 2],
      ['patch', 'diff', 5],
    ])
  })

  it('keeps a field named __proto__ as a field', () => {
    const shown = shownToolInput('{"__proto__":{"x":1},"content":"a\\nb"}', 'done')
    expect(shown.text).toBe('{\n  "__proto__": {\n    "x": 1\n  }\n}')
    expect(shown.fields!.map((field) => field.text)).toEqual(['a\nb'])
  })

  it('takes out at most MAX_TEXT_FIELDS of them, and leaves the others in the JSON', () => {
    const input = Object.fromEntries(Array.from({ length: MAX_TEXT_FIELDS + 3 }, (_, i) => [`f${i}`, `line ${i}\nnext`]))
    const shown = shownToolInput(JSON.stringify(input), 'done')
    expect(shown.fields!.map((field) => field.name)).toEqual(Object.keys(input).slice(0, MAX_TEXT_FIELDS))
    expect(JSON.parse(shown.text)).toEqual(Object.fromEntries(Object.entries(input).slice(MAX_TEXT_FIELDS)))
  })

  it('splits only a complete input', () => {
    expect(shownToolInput('{"content":"a\\nb"}', 'input').fields).toBeUndefined()
    expect(shownToolInput('["a\\nb"]', 'done').fields).toBeUndefined()
  })
})

describe('a long complete input', () => {
  const content = 'const a = await b(1, \\"c\\")\\n'.repeat(12_000)
  const input = `{"path":"src/big.ts","content":"${content}"}`

  it('shows the head of its text field apart from the rest, and says how much is left out', () => {
    const shown = shownToolInput(input, 'running')
    const whole = shownToolInput(input, 'running', true)
    const text = JSON.parse(input).content as string
    expect(shown.text).toBe('{\n  "path": "src/big.ts"\n}')
    expect(shown.tag).toBe('json')
    expect(shown.fields).toHaveLength(1)
    expect(shown.fields![0]).toMatchObject({ name: 'content', lines: 12_000, tag: 'ts' })
    expect(shown.fields![0]!.text).toHaveLength(INPUT_HEAD_CHARS)
    expect(whole.fields![0]!.text).toBe(text)
    expect(shown.omitted).toBe(text.length - INPUT_HEAD_CHARS)
    expect(whole.omitted).toBe(0)
  })

  it('shows the head of its formatted JSON when no field holds lines', () => {
    const flat = `{"path":"src/big.ts","content":"${'x'.repeat(20_000)}"}`
    const shown = shownToolInput(flat, 'running')
    const whole = shownToolInput(flat, 'running', true)
    expect(shown.fields).toBeUndefined()
    expect(shown.text).toHaveLength(INPUT_HEAD_CHARS)
    expect(whole.text.startsWith(shown.text)).toBe(true)
    expect(whole.text.startsWith('{\n  "path": "src/big.ts",\n  "content": ')).toBe(true)
    expect(shown.omitted).toBe(whole.text.length - INPUT_HEAD_CHARS)
  })

  it('shows an input that is not JSON as written, its head only', () => {
    const text = 'x'.repeat(INPUT_HEAD_CHARS + 10)
    expect(shownToolInput(text, 'done')).toEqual({ text: 'x'.repeat(INPUT_HEAD_CHARS), tag: undefined, omitted: 10 })
  })

  it('never ends the head inside a surrogate pair', () => {
    const text = `x${'😀'.repeat(INPUT_HEAD_CHARS)}`
    const shown = shownToolInput(text, 'done')
    expect(shown.text.charCodeAt(shown.text.length - 1)).toBe('😀'.charCodeAt(1))
    expect(shown.text.length + shown.omitted).toBe(text.length)
  })

  it('reads the same however often it is shown', () => {
    expect(shownToolInput(input, 'done')).toEqual(shownToolInput(input, 'running'))
  })
})

describe('shownToolOutput', () => {
  it('pretty-prints JSON output', () => {
    expect(shownToolOutput('[{"id":1}]', false, '{}')).toEqual({ text: '[\n  {\n    "id": 1\n  }\n]', tag: 'json', omitted: 0 })
  })

  it('highlights a cut output that opens like JSON as JSON, unchanged (it cannot parse)', () => {
    expect(shownToolOutput('{"hits": [{"id": 1}, {"id"', true, '{}')).toEqual({ text: '{"hits": [{"id": 1}, {"id"', tag: 'json', omitted: 0 })
  })

  it('takes the language of a read file from the extension its input names', () => {
    expect(shownToolOutput('export const a = 1', false, '{"path":"src/app/Main.TS"}').tag).toBe('ts')
    expect(shownToolOutput('fn main() {}', false, '{"file_path":"C:\\\\src\\\\main.rs"}').tag).toBe('rs')
    expect(shownToolOutput('plain words', false, '{"path":"README"}').tag).toBeUndefined()
    expect(shownToolOutput('plain words', false, '{"query":"a.ts"}').tag).toBeUndefined()
  })

  it('recognises scripts and diffs by their first lines', () => {
    expect(shownToolOutput('#!/bin/sh\nset -eu', false, '{}').tag).toBe('sh')
    expect(shownToolOutput('#!/usr/bin/env python3\nprint(1)', false, '{}').tag).toBe('python')
    expect(shownToolOutput('diff --git a/x b/x\n', false, '{}').tag).toBe('diff')
    expect(shownToolOutput('--- a/x\n+++ b/x\n@@ -1 +1 @@', false, '{}').tag).toBe('diff')
  })

  it('leaves plain text plain and unchanged', () => {
    expect(shownToolOutput('3 results for "deploy"', false, '{"query":"deploy"}')).toEqual({ text: '3 results for "deploy"', tag: undefined, omitted: 0 })
  })
})

describe('durations', () => {
  it('times a tool by the daemon’s own clock once it ended', () => {
    expect(toolDurationMs(tool({ started_at: 1_000, ended_at: 3_500 }))).toBe(2_500)
    expect(toolDurationMs(tool({ status: 'running', ended_at: undefined }))).toBeUndefined()
  })

  it('spans reasoning between two tools from the first one’s end to the next one’s start', () => {
    const parts: Part[] = [tool({ ended_at: 2_000 }), { type: 'reasoning', text: 'r' }, tool({ tool_call_id: 'tc_2', started_at: 6_000 })]
    expect(reasoningSpanMs(parts, 1)).toBe(4_000)
  })

  it('has no span for reasoning with no tool on one side, or a tool that has not ended', () => {
    expect(reasoningSpanMs([{ type: 'reasoning', text: 'r' }, tool()], 0)).toBeUndefined()
    expect(reasoningSpanMs([tool({ ended_at: 2_000 }), { type: 'reasoning', text: 'r' }, { type: 'text', text: 't' }], 1)).toBeUndefined()
    expect(reasoningSpanMs([tool({ status: 'running' }), { type: 'reasoning', text: 'r' }, tool({ started_at: 6_000 })], 1)).toBeUndefined()
  })

  it('times the first reasoning by the stream when the tools do not tell, and no later one', () => {
    const thinking = { startedAt: 10_000, endedAt: 13_400 }
    const parts: Part[] = [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 't' }, { type: 'reasoning', text: 'again' }, { type: 'text', text: 'u' }]
    expect(reasoningDurationMs(parts, 0, thinking)).toBe(3_400)
    expect(reasoningDurationMs(parts, 2, thinking)).toBeUndefined()
    expect(reasoningDurationMs(parts, 0, { startedAt: 10_000, endedAt: undefined })).toBeUndefined()
    expect(reasoningDurationMs(parts, 0, { startedAt: undefined, endedAt: undefined })).toBeUndefined()
  })

  it('prefers the daemon’s times around reasoning to the stream’s', () => {
    const parts: Part[] = [tool({ ended_at: 2_000 }), { type: 'reasoning', text: 'r' }, tool({ tool_call_id: 'tc_2', started_at: 6_000 })]
    expect(reasoningDurationMs(parts, 1, { startedAt: 0, endedAt: 9_000 })).toBe(4_000)
  })

  it('ticks at the next whole second of elapsed time', () => {
    expect(nextSecondIn(0)).toBe(1000)
    expect(nextSecondIn(2_300)).toBe(700)
    expect(nextSecondIn(-5)).toBe(1000)
    expect(nextSecondIn(Number.NaN)).toBe(1000)
  })
})

describe('utf8Length', () => {
  it('counts bytes as UTF-8 does', () => {
    for (const text of ['', 'abc', 'é', '部署', '😀', 'a😀b部', '\ud800x']) {
      expect(utf8Length(text), text).toBe(new TextEncoder().encode(text).length)
    }
  })
})
