/**
 * A session's history as the fake daemon reads it: message `i` (0-based, `seq` i + 1), its JSON,
 * pages of it, the messages of one send, and search. Two kinds: a list made beforehand
 * (buildHistory's 20 and 10,000 messages, kept byte for byte as they were), and a session
 * generated per message on demand from its index and a seed, so 100,000 messages cost the daemon
 * the pages it is asked for rather than the session's gigabyte.
 */
import { agentText, BASE_TIME, code, HISTORY_MARKER, operatorText, ORIGIN_MARKER, paragraph, rng, SESSION_ID, type WireMessage, type WirePart } from './content'
import { historySteps, outputSeed, toolOutput } from './steps'

export type SearchHit = { message_id: string; seq: number; snippet: string }

export type HistorySource = {
  /** What it is, for the log. */
  label: string
  length: number
  message(i: number): WireMessage
  /** Messages [from, to) as JSON, comma-joined (no brackets); kept for the next ask unless `keep` is false. */
  slice(from: number, to: number, keep?: boolean): string
  /** Indices of the operator message sent with this id and of the replies to it. */
  sendOf(clientMessageId: string): number[]
  /** Up to `limit` + 1 hits from message `from` on, oldest first (one more than asked tells `has_more`). */
  search(needle: string, limit: number): SearchHit[]
  /** Builds what search needs ahead of the measured window (every message read once). */
  prepareSearch(): void
  /** The whole output of a tool call in this history, or undefined when no such call exists. */
  toolOutput(toolCallId: string): string | undefined
}

/** What search reads of a message: content, reasoning, tool names and inputs (daemon-wire.md). */
export function searchable(m: WireMessage): string {
  if (!m.parts) return m.content
  const texts = [m.content]
  for (const p of m.parts) {
    if (p.type === 'reasoning') texts.push(p.text)
    else if (p.type === 'tool') texts.push(p.name, p.input)
  }
  return texts.join('\n')
}

/** A hit's snippet: some 40 characters either side of the match. */
export function snippetOf(text: string, at: number, length: number): string {
  const from = Math.max(0, at - 40)
  const to = Math.min(text.length, at + length + 40)
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`
}

/** Messages per block of the search index. */
const BLOCK = 200
/** Page bodies kept, in characters: a repeated page (every run reads the same ones) is a lookup. */
const SLICE_CACHE_CHARS = 64 * 2 ** 20

function baseSource(label: string, length: number, message: (i: number) => WireMessage, json: (i: number) => string): Omit<HistorySource, 'sendOf'> {
  const cache = new Map<string, string>()
  let cached = 0
  // Per block, every lower-case word of what search reads, one a line: a block without a word
  // that holds the query's longest run of letters and digits cannot match, and is not read again.
  let blocks: string[] | undefined
  const words = (text: string, into: Set<string>) => {
    for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w) into.add(w)
  }
  const source = {
    label,
    length,
    message,
    slice(from: number, to: number, keep = true) {
      const key = `${from}-${to}`
      const hit = cache.get(key)
      if (hit !== undefined) {
        cache.delete(key)
        cache.set(key, hit)
        return hit
      }
      const parts: string[] = []
      for (let i = from; i < to; i++) parts.push(json(i))
      const body = parts.join(',')
      if (!keep) return body
      cache.set(key, body)
      cached += body.length
      for (const [k, v] of cache) {
        if (cached <= SLICE_CACHE_CHARS) break
        cache.delete(k)
        cached -= v.length
      }
      return body
    },
    prepareSearch() {
      if (blocks) return
      blocks = []
      for (let b = 0; b * BLOCK < length; b++) {
        const set = new Set<string>()
        for (let i = b * BLOCK; i < Math.min(length, (b + 1) * BLOCK); i++) words(searchable(message(i)), set)
        blocks.push(Array.from(set).join('\n'))
      }
    },
    search(needle: string, limit: number) {
      source.prepareSearch()
      const runs = needle.split(/[^a-z0-9]+/).filter(Boolean)
      const run = runs.sort((a, b) => b.length - a.length)[0]
      const hits: SearchHit[] = []
      for (let b = 0; b * BLOCK < length && hits.length <= limit; b++) {
        if (run !== undefined && !(blocks as string[])[b]?.includes(run)) continue
        for (let i = b * BLOCK; i < Math.min(length, (b + 1) * BLOCK) && hits.length <= limit; i++) {
          const m = message(i)
          const text = searchable(m)
          const at = text.toLowerCase().indexOf(needle)
          if (at >= 0) hits.push({ message_id: m.id, seq: i + 1, snippet: snippetOf(text, at, needle.length) })
        }
      }
      return hits
    },
    toolOutput(toolCallId: string) {
      const match = /^tc-(\d+)-(\d+)$/.exec(toolCallId)
      if (!match) return undefined
      const index = Number(match[1])
      const k = Number(match[2])
      if (index >= length) return undefined
      const part = message(index).parts?.find((p) => p.type === 'tool' && p.tool_call_id === toolCallId)
      if (!part || part.type !== 'tool') return undefined
      return toolOutput(outputSeed(index, k), part.output_bytes ?? 0)
    },
  }
  return source
}

/** A history made beforehand (buildHistory): numbered, each message's JSON made once. */
export function listSource(label: string, list: readonly WireMessage[]): HistorySource {
  const messages = list.map((m, i) => ({ seq: i + 1, ...m }))
  const json: Array<string | undefined> = []
  const sends = new Map<string, number[]>()
  const ids = new Map<string, number>()
  messages.forEach((m, i) => {
    ids.set(m.id, i)
    if (m.client_message_id) sends.set(m.client_message_id, [i])
  })
  messages.forEach((m, i) => {
    const op = m.reply_to === undefined ? undefined : messages[ids.get(m.reply_to) ?? -1]?.client_message_id
    if (op !== undefined) sends.get(op)?.push(i)
  })
  const base = baseSource(label, messages.length, (i) => messages[i] as WireMessage, (i) => (json[i] ??= JSON.stringify(messages[i])))
  return { ...base, sendOf: (id) => sends.get(id) ?? [] }
}

export type SessionOptions = {
  /** Messages in the main flow; the superseded versions come on top. */
  size: number
  /** Every this many exchanges, the reply has two earlier versions (one complete, one failed); the last exchange always has. */
  versionsEvery?: number
  /** Every agent reply holds agent steps (reasoning, tools, usage). */
  steps?: boolean
  seed?: number
}

/**
 * Issue 29's growth session, generated per message from its index: operator questions, replies
 * of prose with a fenced code block each (with steps when asked), two superseded versions every
 * `versionsEvery` exchanges and at the last. The first message holds ORIGIN_MARKER (and no other
 * does), the last reply ends with HISTORY_MARKER. Nothing is kept but the start of each exchange.
 */
export function generatedSession({ size, versionsEvery = 100, steps = false, seed = 29 }: SessionOptions): HistorySource {
  if (size < 2 || size % 2 !== 0) throw new Error('a session is whole exchanges: an even size of at least 2')
  const exchanges = size / 2
  const last = exchanges - 1
  const versioned = (e: number) => e === last || (versionsEvery > 0 && e % versionsEvery === Math.floor(versionsEvery / 2))
  // Where each exchange starts: 2 messages, or 4 with its earlier versions.
  const starts = new Uint32Array(exchanges + 1)
  for (let e = 0; e < exchanges; e++) starts[e + 1] = (starts[e] as number) + (versioned(e) ? 4 : 2)
  const length = starts[exchanges] as number
  const exchangeOf = (i: number) => {
    let lo = 0
    let hi = exchanges - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((starts[mid] as number) <= i) lo = mid
      else hi = mid - 1
    }
    return lo
  }
  const reply = (r: () => number, i: number, at: number, answer: string): Pick<WireMessage, 'content' | 'parts' | 'usage'> => {
    if (!steps) return { content: answer }
    const { parts, usage } = historySteps(r, i, at, answer)
    const content = parts.flatMap((p: WirePart) => (p.type === 'text' ? [p.text] : [])).join('')
    return { content, parts, usage }
  }
  const message = (i: number): WireMessage => {
    if (i < 0 || i >= length) throw new Error(`no message ${i} in a session of ${length}`)
    const e = exchangeOf(i)
    const offset = i - (starts[e] as number)
    const r = rng((Math.imul(seed, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0)
    const at = BASE_TIME + i * 30_000
    const opIndex = starts[e] as number
    const common = { id: `m${i}`, session_id: SESSION_ID, seq: i + 1, created_at: at }
    if (offset === 0) {
      const text = operatorText(r, e + 1)
      return { ...common, role: 'operator', content: e === 0 ? `${text} Remember the word ${ORIGIN_MARKER}.` : text, superseded: false, client_message_id: `c-${e}` }
    }
    const agent = { ...common, role: 'agent' as const, reply_to: `m${opIndex}`, run_id: `r-${i}` }
    const versions = versioned(e)
    if (versions && offset === 1) return { ...agent, ...reply(r, i, at, agentText(r)), superseded: true, status: 'complete' }
    if (versions && offset === 2) {
      return {
        ...agent,
        content: paragraph(r, 1),
        superseded: true,
        status: 'failed',
        error: { code: 'model_unavailable', message: 'The provider is overloaded.' },
        retry: { retryable: true, retry_class: 'overloaded' },
      }
    }
    const answer = `${paragraph(r, 2 + Math.floor(r() * 2))}\n\n${code(r)}\n\n${paragraph(r, 1 + Math.floor(r() * 2))}`
    return { ...agent, ...reply(r, i, at, e === last ? `${answer}\n\nThe end of the history is ${HISTORY_MARKER}` : answer), superseded: false, status: 'complete' }
  }
  const base = baseSource(`${size.toLocaleString('en-US')}-message session${steps ? ' with steps' : ''}`, length, message, (i) => JSON.stringify(message(i)))
  return {
    ...base,
    sendOf(id) {
      const match = /^c-(\d+)$/.exec(id)
      const e = match ? Number(match[1]) : -1
      if (e < 0 || e >= exchanges) return []
      return Array.from({ length: (starts[e + 1] as number) - (starts[e] as number) }, (_, k) => (starts[e] as number) + k)
    },
  }
}
