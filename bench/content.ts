/**
 * Deterministic content for the benchmark: the streamed reply (Markdown prose with headings,
 * lists, tables and fenced code, cut into token-sized deltas) and session histories of any size,
 * some replies with superseded earlier versions. The same seed gives the same bytes on every
 * machine, so two runs (or two branches) measure the same work.
 */

/** Starts the first delta; plain letters so it reads the same in plain text and in rendered Markdown. */
export const FIRST_MARKER = 'Zephyrquill'
/** The whole last delta: when it is on screen, the final text is. */
export const LAST_MARKER = 'Omegaterminus'
/** Ends the last message of every history: when it is on screen, the history is. */
export const HISTORY_MARKER = 'Historyfinis'

export const SESSION_ID = 'bench'
export const BASE_TIME = Date.UTC(2026, 0, 5, 9, 0, 0)

/** Only the first message of a growth session holds it: the word find-in-session looks for. */
export const ORIGIN_MARKER = 'Originquokka'

/** A step of an agent's run on the wire (daemon-wire.md, "Records"). */
export type WirePart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | {
      type: 'tool'
      tool_call_id: string
      name: string
      effect: 'read' | 'write'
      input: string
      status: 'input' | 'awaiting_approval' | 'running' | 'done' | 'failed' | 'denied' | 'cancelled'
      output?: string
      output_bytes?: number
      output_truncated?: boolean
      started_at: number
      ended_at?: number
    }

export type WireUsage = { input_tokens: number; output_tokens: number; cost_usd?: number }

/** The wire's message record (shared/design/daemon-wire.md), as the fake daemon sends it. */
export type WireMessage = {
  /** The message's place in its session; the fake daemon's history sources number every message. */
  seq?: number
  parts?: WirePart[]
  usage?: WireUsage
  id: string
  session_id: string
  role: 'operator' | 'agent'
  content: string
  created_at: number
  superseded: boolean
  client_message_id?: string
  reply_to?: string
  run_id?: string
  status?: 'queued' | 'streaming' | 'complete' | 'failed' | 'cancelled'
  error?: { code: string; message: string }
  retry?: { retryable: boolean; retry_class: string; retry_after_until?: number }
}

/** mulberry32: small, fast and the same everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const WORDS = (
  'the daemon streams each reply as a sequence of deltas while the client keeps the transcript ' +
  'readable and the operator decides whether to wait retry or stop a run that has gone wrong ' +
  'every provider fails sometimes with rate limits overloads and quotas so a careful scheduler ' +
  'waits longer after each attempt and never fires before the time the provider named latency ' +
  'matters because a long answer arrives over many seconds and each frame must stay short enough ' +
  'for typing to feel immediate history grows into thousands of messages over weeks of work'
).split(' ')
const TITLES = ['Overview', 'Failure modes', 'Retry policy', 'Streaming', 'Rendering', 'History', 'Measurements', 'Next steps', 'Trade-offs', 'Edge cases']
const LANGS = ['ts', 'python', 'bash', 'json']

export function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)] as T
}

export function sentence(r: () => number): string {
  const n = 8 + Math.floor(r() * 12)
  const words: string[] = []
  for (let i = 0; i < n; i++) {
    let w = pick(r, WORDS)
    const roll = r()
    if (roll < 0.03) w = `**${w}**`
    else if (roll < 0.05) w = `\`${w}()\``
    else if (roll < 0.06) w = `_${w}_`
    else if (roll < 0.065) w = `[${w}](https://example.com/docs/${w})`
    words.push(w)
  }
  const first = words[0] ?? 'the'
  words[0] = first.charAt(0).toUpperCase() + first.slice(1)
  return `${words.join(' ')}.`
}

export function paragraph(r: () => number, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(r)).join(' ')
}

function list(r: () => number): string {
  const n = 3 + Math.floor(r() * 4)
  const kind = r()
  return Array.from({ length: n }, (_, i) => {
    const text = sentence(r).replace(/\.$/, '')
    if (kind < 0.4) return `- ${text}`
    if (kind < 0.7) return `${i + 1}. ${text}`
    return `- [${r() < 0.5 ? 'x' : ' '}] ${text}`
  }).join('\n')
}

export function code(r: () => number): string {
  const lang = pick(r, LANGS)
  const n = 5 + Math.floor(r() * 10)
  const lines = Array.from({ length: n }, (_, i) => {
    const a = pick(r, WORDS)
    const b = pick(r, WORDS)
    switch (lang) {
      case 'ts':
        return `${'  '.repeat(i % 3)}const ${a}${i} = await ${b}(${i * 7}, '${a}')`
      case 'python':
        return `${'    '.repeat(i % 2)}${a}_${i} = ${b}(${i}, "${a}")`
      case 'bash':
        return `${a} --${b} ${i} | grep -c ${a}`
      default:
        return `  "${a}${i}": ${i * 13},`
    }
  })
  return `\`\`\`${lang}\n${lines.join('\n')}\n\`\`\``
}

function table(r: () => number): string {
  const rows = Array.from({ length: 4 }, (_, i) => `| ${pick(r, WORDS)} | ${Math.floor(r() * 1000)} ms | ${i % 2 ? 'yes' : 'no'} |`)
  return ['| step | time | retried |', '| --- | ---: | :---: |', ...rows].join('\n')
}

/** Markdown prose of about `chars` characters: sections with paragraphs, lists, code and tables. */
export function markdownProse(seed: number, chars: number): string {
  const r = rng(seed)
  const blocks: string[] = []
  let length = 0
  let section = 0
  while (length < chars) {
    const block =
      length === 0 || r() < 0.45
        ? paragraph(r, 2 + Math.floor(r() * 4))
        : r() < 0.2
          ? `## ${++section}. ${pick(r, TITLES)}`
          : r() < 0.45
            ? list(r)
            : r() < 0.75
              ? code(r)
              : table(r)
    blocks.push(block)
    length += block.length + 2
  }
  return blocks.join('\n\n')
}

/**
 * The streamed reply: exactly `count` deltas (at least 3). The first is FIRST_MARKER and a space,
 * the last is LAST_MARKER alone, ending the final paragraph; the ones between average five
 * characters and cut words and Markdown syntax anywhere, as a model's tokens do.
 */
export function replyDeltas(count: number, seed = 7): string[] {
  if (count < 3) throw new Error('a reply needs at least 3 deltas')
  const cuts = count - 2
  const tail = '\n\nThat is the whole report, and the last word of it is '
  const middle = `opens this report. ${markdownProse(seed, Math.max(0, cuts * 5 - tail.length - 20))}${tail}`
  return [`${FIRST_MARKER} `, ...cutText(middle, cuts, rng(seed + 1)), LAST_MARKER]
}

/**
 * `text` cut into exactly `pieces` non-empty pieces of about equal length, each cut moved by up
 * to two characters either way so the pieces vary in size; cuts fall anywhere (inside words,
 * Markdown syntax, JSON escapes), as a model's tokens do.
 */
export function cutText(text: string, pieces: number, r: () => number): string[] {
  if (pieces < 1 || text.length < pieces) throw new Error(`cannot cut ${text.length} characters into ${pieces} pieces`)
  const out: string[] = []
  let from = 0
  for (let k = 1; k <= pieces; k++) {
    const ideal = Math.round((k * text.length) / pieces)
    const jittered = k === pieces ? text.length : ideal + Math.floor(r() * 5) - 2
    const to = Math.min(text.length - (pieces - k), Math.max(from + 1, jittered))
    out.push(text.slice(from, to))
    from = to
  }
  return out
}

export function operatorText(r: () => number, i: number): string {
  return `Question ${i}: ${sentence(r)}`
}

export function agentText(r: () => number): string {
  const parts = [paragraph(r, 2 + Math.floor(r() * 2))]
  const roll = r()
  if (roll < 0.3) parts.push(list(r))
  else if (roll < 0.45) parts.push(code(r))
  parts.push(paragraph(r, 1 + Math.floor(r() * 2)))
  return parts.join('\n\n')
}

export type HistoryOptions = {
  /** Messages in the main flow (operator and agent alternating, operator first); superseded ones come on top. */
  size: number
  /** Every this many exchanges, the reply has two earlier (superseded) versions; the last exchange always has. */
  versionsEvery?: number
  seed?: number
}

/**
 * A session's history, oldest first, as `GET …/messages` returns it. The main flow holds exactly
 * `size` messages and ends with an agent reply containing HISTORY_MARKER; some replies carry two
 * superseded earlier versions (one complete, one failed) before them.
 */
export function buildHistory({ size, versionsEvery = 100, seed = 11 }: HistoryOptions): WireMessage[] {
  if (size < 2 || size % 2 !== 0) throw new Error('a history is whole exchanges: an even size of at least 2')
  const r = rng(seed)
  const messages: WireMessage[] = []
  const exchanges = size / 2
  let n = 0
  const at = () => BASE_TIME + n * 30_000
  for (let e = 0; e < exchanges; e++) {
    const opId = `m${n}`
    messages.push({
      id: opId,
      session_id: SESSION_ID,
      role: 'operator',
      content: operatorText(r, e + 1),
      created_at: at(),
      superseded: false,
      client_message_id: `c-${e}`,
    })
    n++
    const last = e === exchanges - 1
    if (last || (versionsEvery > 0 && e % versionsEvery === versionsEvery / 2)) {
      messages.push({
        id: `m${n}`,
        session_id: SESSION_ID,
        role: 'agent',
        content: agentText(r),
        created_at: at(),
        superseded: true,
        reply_to: opId,
        run_id: `r-${n}`,
        status: 'complete',
      })
      n++
      messages.push({
        id: `m${n}`,
        session_id: SESSION_ID,
        role: 'agent',
        content: paragraph(r, 1),
        created_at: at(),
        superseded: true,
        reply_to: opId,
        run_id: `r-${n}`,
        status: 'failed',
        error: { code: 'model_unavailable', message: 'The provider is overloaded.' },
        retry: { retryable: true, retry_class: 'overloaded' },
      })
      n++
    }
    messages.push({
      id: `m${n}`,
      session_id: SESSION_ID,
      role: 'agent',
      content: last ? `${agentText(r)}\n\nThe end of the history is ${HISTORY_MARKER}` : agentText(r),
      created_at: at(),
      superseded: false,
      reply_to: opId,
      run_id: `r-${n}`,
      status: 'complete',
    })
    n++
  }
  return messages
}
