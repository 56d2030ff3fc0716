/**
 * The mock daemon's replies: Markdown (CommonMark with GitHub's tables) written as a pure function
 * of the prompt, so a story, a test and a reload all see the same text. Every reply has
 * paragraphs, a list, a fenced code block with its language, a table, inline code, an https link
 * and some bold, so every way a reply can look shows up in the demo. A prompt with any Han
 * character gets the reply in Chinese.
 */

/** FNV-1a: a stable 32-bit seed from the text. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: a tiny seeded generator, enough to pick sentences, languages and delta sizes. */
export function seeded(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Whether the operator wrote Chinese: any Han character in the prompt. */
export function isChinese(prompt: string): boolean {
  return /\p{Script=Han}/u.test(prompt)
}

/** The languages a reply's code block is written in, picked by the prompt's seed. */
export const CODE_LANGUAGES = ['ts', 'python', 'bash', 'json', 'rust', 'go'] as const
export type CodeLanguage = (typeof CODE_LANGUAGES)[number]

type Picker = {
  pick<T>(list: readonly T[]): T
  /** `count` distinct entries of `list`, in a seeded order. */
  some<T>(list: readonly T[], count: number): T[]
  int(min: number, max: number): number
}

function pickerFor(seed: number): Picker {
  const random = seeded(seed)
  const int = (min: number, max: number) => min + (Math.floor(random() * (max - min + 1)) % (max - min + 1))
  return {
    int,
    pick: <T>(list: readonly T[]) => list[int(0, list.length - 1)] as T,
    some<T>(list: readonly T[], count: number) {
      const pool = [...list]
      const out: T[] = []
      while (out.length < count && pool.length > 0) out.push(pool.splice(int(0, pool.length - 1), 1)[0] as T)
      return out
    },
  }
}

/** What a code snippet may vary on, so two prompts rarely show the same block. */
type SnippetInput = { attempts: number; baseMs: number; name: string; comment: (en: string, zh: string) => string }

/**
 * The code blocks: a short one for an ordinary reply, a longer one for `slow` (written line by
 * line over many deltas). The comments follow the reply's language; the code does not.
 */
const SNIPPETS: Record<CodeLanguage, (input: SnippetInput, long: boolean) => string[]> = {
  ts: ({ attempts, baseMs, name, comment }, long) => [
    `// ${comment('Retry a flaky call a few times, waiting longer each time.', '对不稳定的调用重试几次，每次等待更久。')}`,
    `export async function ${name}<T>(call: () => Promise<T>, attempts = ${attempts}): Promise<T> {`,
    '  let last: unknown',
    '  for (let attempt = 1; attempt <= attempts; attempt++) {',
    '    try {',
    '      return await call()',
    '    } catch (error) {',
    '      last = error',
    ...(long
      ? [
          `      // ${comment('Give up at once on errors a retry cannot fix.', '重试也无济于事的错误立即放弃。')}`,
          '      if (!isTransient(error)) throw error',
          `      const wait = Math.min(${baseMs} * 2 ** (attempt - 1), 30_000)`,
          '      console.info(`attempt ${attempt} failed, waiting ${wait} ms`)',
          '      await new Promise((resolve) => setTimeout(resolve, wait))',
        ]
      : [`      await new Promise((resolve) => setTimeout(resolve, ${baseMs} * attempt))`]),
    '    }',
    '  }',
    '  throw last',
    '}',
    ...(long
      ? [
          '',
          'function isTransient(error: unknown): boolean {',
          "  const status = (error as { status?: number }).status ?? 0",
          '  return status === 429 || status >= 500',
          '}',
        ]
      : []),
  ],
  python: ({ attempts, baseMs, name, comment }, long) => [
    'import time',
    '',
    '',
    `def ${name}(call, attempts=${attempts}):`,
    `    """${comment('Retry a flaky call a few times, waiting longer each time.', '对不稳定的调用重试几次，每次等待更久。')}"""`,
    '    for attempt in range(1, attempts + 1):',
    '        try:',
    '            return call()',
    '        except ConnectionError as error:',
    '            if attempt == attempts:',
    '                raise',
    ...(long
      ? [
          `            # ${comment('Double the wait each time, never beyond 30 s.', '每次等待翻倍，最多 30 秒。')}`,
          `            wait = min(${baseMs / 1000} * 2 ** (attempt - 1), 30.0)`,
          '            print(f"attempt {attempt} failed ({error}), waiting {wait:.1f} s")',
          '            time.sleep(wait)',
          '',
          '',
          'if __name__ == "__main__":',
          `    print(${name}(lambda: "ok"))`,
        ]
      : [`            time.sleep(${baseMs / 1000} * attempt)`]),
  ],
  bash: ({ attempts, baseMs, comment }, long) => [
    '#!/usr/bin/env bash',
    `# ${comment('Retry a command a few times, waiting longer each time.', '重试一条命令几次，每次等待更久。')}`,
    'set -euo pipefail',
    '',
    `attempts=${attempts}`,
    `wait_s=${Math.max(1, Math.round(baseMs / 1000))}`,
    'for attempt in $(seq 1 "$attempts"); do',
    '  if "$@"; then',
    '    exit 0',
    '  fi',
    ...(long
      ? [
          `  # ${comment('Say what happened before waiting, so the log tells the story.', '等待前先写下发生了什么，日志才讲得清楚。')}`,
          '  echo "attempt $attempt of $attempts failed; waiting ${wait_s}s" >&2',
          '  sleep "$wait_s"',
          '  wait_s=$(( wait_s * 2 > 30 ? 30 : wait_s * 2 ))',
        ]
      : ['  sleep "$wait_s"']),
    'done',
    'exit 1',
  ],
  json: ({ attempts, baseMs, name }, long) => [
    '{',
    `  "name": "${name}",`,
    '  "retry": {',
    `    "max_attempts": ${attempts},`,
    `    "base_ms": ${baseMs},`,
    ...(long
      ? ['    "cap_ms": 30000,', '    "honour_retry_after": true,', '    "retry_on": [429, 500, 502, 503, 504],']
      : []),
    '    "jitter": true',
    '  },',
    ...(long ? ['  "tier2": {', '    "base_ms": 2000,', '    "cap_ms": 300000,', '    "operator_cancellable": true', '  },'] : []),
    '  "log_level": "info"',
    '}',
  ],
  rust: ({ attempts, baseMs, name, comment }, long) => [
    'use std::{thread, time::Duration};',
    '',
    `/// ${comment('Retry a flaky call a few times, waiting longer each time.', '对不稳定的调用重试几次，每次等待更久。')}`,
    `pub fn ${name}<T, E>(mut call: impl FnMut() -> Result<T, E>) -> Result<T, E> {`,
    `    let attempts = ${attempts};`,
    '    let mut attempt = 1;',
    '    loop {',
    '        match call() {',
    '            Ok(value) => return Ok(value),',
    '            Err(error) if attempt == attempts => return Err(error),',
    '            Err(_) => {',
    ...(long
      ? [
          `                // ${comment('Double the wait each time, never beyond 30 s.', '每次等待翻倍，最多 30 秒。')}`,
          `                let wait = (${baseMs}u64 << (attempt - 1)).min(30_000);`,
          '                eprintln!("attempt {attempt} failed, waiting {wait} ms");',
          '                thread::sleep(Duration::from_millis(wait));',
        ]
      : [`                thread::sleep(Duration::from_millis(${baseMs} * attempt));`]),
    '                attempt += 1;',
    '            }',
    '        }',
    '    }',
    '}',
  ],
  go: ({ attempts, baseMs, name, comment }, long) => [
    'package retry',
    '',
    'import "time"',
    '',
    `// ${name} ${comment('retries a flaky call a few times, waiting longer each time.', '对不稳定的调用重试几次，每次等待更久。')}`,
    `func ${name}(call func() error) error {`,
    '\tvar err error',
    `\tfor attempt := 1; attempt <= ${attempts}; attempt++ {`,
    '\t\tif err = call(); err == nil {',
    '\t\t\treturn nil',
    '\t\t}',
    ...(long
      ? [
          `\t\t// ${comment('Double the wait each time, never beyond 30 s.', '每次等待翻倍，最多 30 秒。')}`,
          `\t\twait := time.Duration(${baseMs}<<(attempt-1)) * time.Millisecond`,
          '\t\tif wait > 30*time.Second {',
          '\t\t\twait = 30 * time.Second',
          '\t\t}',
          '\t\ttime.Sleep(wait)',
        ]
      : [`\t\ttime.Sleep(time.Duration(${baseMs}*attempt) * time.Millisecond)`]),
    '\t}',
    '\treturn err',
    '}',
  ],
}

const NAMES = ['withRetry', 'retryCall', 'callAgain', 'keepTrying']
const SNAKE: Record<string, string> = { withRetry: 'with_retry', retryCall: 'retry_call', callAgain: 'call_again', keepTrying: 'keep_trying' }
const PASCAL: Record<string, string> = { withRetry: 'WithRetry', retryCall: 'RetryCall', callAgain: 'CallAgain', keepTrying: 'KeepTrying' }

function nameIn(language: CodeLanguage, name: string): string {
  if (language === 'python' || language === 'rust' || language === 'json') return SNAKE[name] ?? name
  if (language === 'go') return PASCAL[name] ?? name
  return name
}

const LINKS = [
  { url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After', en: 'the Retry-After header', zh: 'Retry-After 响应头' },
  { url: 'https://html.spec.whatwg.org/multipage/server-sent-events.html', en: 'the server-sent events spec', zh: '服务器发送事件规范' },
  { url: 'https://spec.commonmark.org/0.31.2/', en: 'the CommonMark spec', zh: 'CommonMark 规范' },
  { url: 'https://github.github.com/gfm/', en: 'GitHub Flavored Markdown', zh: 'GitHub 风格的 Markdown' },
]

const EN = {
  openings: ['You asked: “{gist}”.', 'About “{gist}”:', 'Here is my take on “{gist}”.', 'On “{gist}”, briefly.'],
  bold: [
    'The **short answer** is that it depends on the context you gave.',
    'Start with **the smallest change** that could possibly work.',
    '**Measure before and after**, so the difference is visible.',
    'Most of the work is in **the edge cases**, not in the happy path.',
  ],
  sentences: [
    'I read the question twice before answering.',
    'If the first attempt fails, the error usually names the cause.',
    'Keep the old behaviour behind a flag until the new one has proved itself.',
    'Write down the assumption, then test it on one real case.',
    'A second pair of eyes on the plan is cheaper than a rollback.',
    'Nothing here needs a new dependency.',
    'The logs from the last run tell most of the story.',
  ],
  items: [
    'Reproduce it once, on purpose.',
    'Read the error code before the message.',
    'Retry only what is **transient**: `429` and `503`, not `401`.',
    'Cap every wait, and say how long it will be.',
    'Let the operator cancel at any moment.',
    'Keep the idempotency key for every retry of one send.',
    'Log the attempt number with each failure.',
  ],
  table: {
    head: ['Status', 'Meaning', 'Retry?'],
    rows: [
      ['`429`', 'rate limited', 'yes, after `Retry-After`'],
      ['`503`', 'overloaded', 'yes, with backoff'],
      ['`401`', 'bad credentials', 'no'],
      ['`400`', 'rejected request', 'no'],
      ['`402`', 'out of credit', 'no'],
      ['`504`', 'gateway timeout', 'yes, with backoff'],
    ],
  },
  codeIntro: ['A sketch in {lang}:', 'Something like this ({lang}):', 'In {lang} it could look like this:'],
  closing: ['See {link} for the details; the knob to start with is `{knob}`.', 'More in {link}. Try `{knob}` first.'],
  longParagraphs: [
    'Two tiers keep this honest. The daemon retries **fast and quietly** inside a run, but never once the first words have streamed. The client retries **slowly and visibly** after a run has failed, and only when the failure says it is worth it.',
    'When the provider names a time, believe it. A `Retry-After` of fifty minutes is a schedule, not a suggestion: show the time, keep the countdown paused, and let the operator walk away.',
    'Finally, make cancelling cheap. A cancel is a state change, not an error, and a cancelled reply must never arm another retry behind the operator’s back.',
  ],
  count: (words: number) => `Your message has ${words} ${words === 1 ? 'word' : 'words'}.`,
}

const ZH = {
  openings: ['你问的是：“{gist}”。', '关于“{gist}”：', '我对“{gist}”的看法如下。', '简单说说“{gist}”。'],
  bold: [
    '**简短的回答**是：这取决于你给出的上下文。',
    '先从**最小的可行改动**开始。',
    '**改动前后都要测量**，这样差别才看得见。',
    '大部分工作在**边界情况**里，而不在顺利的路径上。',
  ],
  sentences: [
    '回答之前，我把问题读了两遍。',
    '第一次尝试失败时，错误信息通常会指出原因。',
    '在新行为证明自己之前，把旧行为留在开关后面。',
    '先写下假设，再用一个真实的例子去验证。',
    '多一个人看一眼计划，比回滚便宜得多。',
    '这里不需要任何新的依赖。',
    '上一次运行的日志已经说明了大部分情况。',
  ],
  items: [
    '先有意地复现一次。',
    '先看错误码，再看错误信息。',
    '只重试**暂时性**的失败：`429` 和 `503`，而不是 `401`。',
    '每次等待都要有上限，并说明要等多久。',
    '让操作员随时可以取消。',
    '同一次发送的每次重试都沿用同一个幂等键。',
    '每次失败都记录是第几次尝试。',
  ],
  table: {
    head: ['状态码', '含义', '是否重试'],
    rows: [
      ['`429`', '请求过于频繁', '是，等到 `Retry-After` 之后'],
      ['`503`', '服务过载', '是，逐步延长等待'],
      ['`401`', '凭据无效', '否'],
      ['`400`', '请求被拒绝', '否'],
      ['`402`', '余额不足', '否'],
      ['`504`', '网关超时', '是，逐步延长等待'],
    ],
  },
  codeIntro: ['用 {lang} 写个草稿：', '大致如下（{lang}）：', '用 {lang} 可以这样写：'],
  closing: ['详情见{link}；最先要调的是 `{knob}`。', '更多内容见{link}。先试试 `{knob}`。'],
  longParagraphs: [
    '两层重试让一切保持诚实。守护进程在一次运行内部**快速而安静地**重试，但一旦开始输出就不再重试。客户端在运行失败之后**缓慢而可见地**重试，而且只在失败说明值得重试时才这样做。',
    '当服务商给出了时间，就相信它。五十分钟的 `Retry-After` 是一个时间表，而不是建议：显示那个时间，暂停倒计时，让操作员可以先去忙别的。',
    '最后，让取消变得轻松。取消是一种状态变化，而不是错误；被取消的回复绝不能在操作员不知情时再次触发重试。',
  ],
  count: (chars: number) => `你的消息共有 ${chars} 个字。`,
}

const KNOBS = ['max_attempts', 'base_ms', 'cap_ms', 'retry_after']

const LANGUAGE_NAMES: Record<CodeLanguage, string> = {
  ts: 'TypeScript',
  python: 'Python',
  bash: 'Bash',
  json: 'JSON',
  rust: 'Rust',
  go: 'Go',
}

/** The prompt in a few words (ten, or twenty Han characters), as a reply or a tool input quotes it. */
export function gistOf(prompt: string, chinese: boolean): string {
  const text = prompt.trim().replace(/\s+/g, ' ')
  if (chinese) {
    const chars = Array.from(text)
    return chars.length > 20 ? `${chars.slice(0, 20).join('')}…` : text
  }
  const words = text.split(' ')
  const gist = words.slice(0, 10).join(' ')
  return words.length > 10 ? `${gist}…` : gist
}

/** The language the reply to `prompt` writes its code block in. */
export function codeLanguageFor(prompt: string): CodeLanguage {
  return CODE_LANGUAGES[hash(prompt) % CODE_LANGUAGES.length] as CodeLanguage
}

/**
 * The reply to `prompt`, in Markdown: a pure function of it, longer for the `slow` outcome
 * (more paragraphs, a longer list and table, and a longer code block).
 */
export function replyFor(prompt: string, long = false): string {
  const chinese = isChinese(prompt)
  const words = chinese ? ZH : EN
  const p = pickerFor(hash(prompt))
  const language = codeLanguageFor(prompt)
  const name = nameIn(language, p.pick(NAMES))
  const attempts = p.int(2, 5)
  const baseMs = p.pick([250, 500, 1000])
  const link = p.pick(LINKS)
  const size = chinese
    ? Array.from(prompt).filter((c) => !/\s/u.test(c)).length
    : prompt.trim().split(/\s+/).filter(Boolean).length
  const sep = chinese ? '' : ' '

  const opening = [p.pick(words.openings).replace('{gist}', gistOf(prompt, chinese)), p.pick(words.bold)].join(sep)
  const second = [words.count(size), ...p.some(words.sentences, long ? 3 : 1)].join(sep)
  const items = p.some(words.items, long ? 5 : 3)
  const list = long ? items.map((item, i) => `${i + 1}. ${item}`) : items.map((item) => `- ${item}`)
  const rows = p.some(words.table.rows, long ? 5 : 3)
  const table = [
    `| ${words.table.head.join(' | ')} |`,
    `| ${words.table.head.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ]
  const snippet = SNIPPETS[language](
    { attempts, baseMs, name, comment: (en, zh) => (chinese ? zh : en) },
    long,
  )
  const intro = p.pick(words.codeIntro).replace('{lang}', LANGUAGE_NAMES[language])
  const closing = p
    .pick(words.closing)
    .replace('{link}', `[${chinese ? link.zh : link.en}](${link.url})`)
    .replace('{knob}', p.pick(KNOBS))

  const blocks = [opening, second, list.join('\n'), intro, ['```' + language, ...snippet, '```'].join('\n'), table.join('\n')]
  if (long) blocks.push(...words.longParagraphs)
  blocks.push(closing)
  return blocks.join('\n\n')
}

/**
 * Pieces of a reply as a model would stream them: a run of Han characters, or of anything else
 * that is not a space, with the white space before it. Trailing white space is its own piece, so
 * the pieces concatenate back to the exact text.
 */
const PIECES = /\s*(?:\p{Script=Han}{1,3}|[^\s\p{Script=Han}]+)|\s+$/gu

/** How long a delta is, in characters: at least `min`, then up to the piece that passes a seeded target below `max`. */
export type DeltaSize = { min: number; max: number }

/** Ordinary replies: about a dozen deltas (at most about twenty), so half a second at the default pacing. */
export const DELTA_SIZE: DeltaSize = { min: 48, max: 96 }
/** The `slow` reply: 20 to 60 deltas, so at its 300 ms a delta it streams for 6 to 18 s, its code block over many of them. */
export const SLOW_DELTA_SIZE: DeltaSize = { min: 16, max: 64 }

/**
 * Splits a reply into deltas of whole pieces (words, or short runs of Chinese characters) of
 * about `size` characters, keeping every space and newline, so the deltas concatenate back to the
 * exact reply. A code block spans many deltas, cut mid-line as a model would cut it.
 */
export function deltasOf(text: string, size: DeltaSize = DELTA_SIZE): string[] {
  const random = seeded(hash(text) ^ 0x5bd1e995)
  const pieces = text.match(PIECES) ?? []
  const deltas: string[] = []
  let current = ''
  let target = size.min + Math.floor(random() * (size.max - size.min))
  for (const piece of pieces) {
    current += piece
    if (current.length >= target) {
      deltas.push(current)
      current = ''
      target = size.min + Math.floor(random() * (size.max - size.min))
    }
  }
  if (current !== '') deltas.push(current)
  return deltas
}
