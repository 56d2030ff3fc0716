/**
 * A session as a file: Markdown for people (operator and agent turns, superseded versions in a
 * collapsed section, failures with their worded reason) and JSON for machines (the wire's records
 * as they are). Pure functions of the records, the word function and the clock reading.
 */
import type { TFunction } from 'i18next'
import { marked, type Token } from 'marked'
import { describeFailure, failureOfWireError } from '../i18n/describe-failure'
import type { Message, Part, Session, ToolPart } from '../wire/types'
import { sessionLabel } from './session-label'
import { buildTranscript } from './transcript-model'
import { isActive } from '../wire/status'

/** A file name from the title and the date: `deploy-log-2026-12-01.md`. Safe on every file system. */
export function exportFileName(title: string, at: number, extension: 'md' | 'json'): string {
  const date = new Date(at)
  const day = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`
  const slug = title
    .normalize('NFKC')
    .toLowerCase()
    // Letters and digits of any script stay (a Chinese title stays Chinese); the rest becomes "-".
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '')
  return `${slug || 'session'}-${day}.${extension}`
}

/** The wire's records as they are, with the session they belong to and when they were exported. */
export function sessionToJson(session: Session, messages: readonly Message[], at: number): string {
  return `${JSON.stringify({ exported_at: at, session, messages }, null, 2)}\n`
}

/** A fence longer than any backtick run in `text`, so a reply's own code fences stay inside it. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  return '`'.repeat(Math.max(3, longest + 1))
}

/** An operator message quoted as it was typed: its line breaks kept, never read as Markdown. */
function quoted(text: string): string {
  const fence = fenceFor(text)
  return `${fence}text\n${text}\n${fence}`
}

/** `<` as text, outside code spans (which are text already). */
function escapeOutsideCodeSpans(text: string): string {
  let out = ''
  let last = 0
  for (const span of text.matchAll(/(`+)[\s\S]*?\1/g)) {
    out += text.slice(last, span.index).replaceAll('<', '&lt;') + span[0]
    last = span.index + span[0].length
  }
  return out + text.slice(last).replaceAll('<', '&lt;')
}

/**
 * A reply as Markdown in the file, with its raw HTML as text: a reader that renders the file must
 * not run a reply's tags, nor let a `</details>` in it close the folded block early. Fenced code
 * blocks and code spans are left as they are. (A fence nested in a list item is escaped with the
 * item: its `<` then reads `&lt;` in the file, which loses nothing.)
 */
function escapeRawHtml(markdown: string): string {
  let tokens: Token[]
  try {
    tokens = marked.lexer(markdown)
  } catch {
    return escapeOutsideCodeSpans(markdown)
  }
  return tokens.map((token) => (token.type === 'code' ? token.raw : escapeOutsideCodeSpans(token.raw))).join('')
}

/** A tool call as a folded block: its name, effect and status on the summary line, its input and output inside. */
function toolBlock(t: TFunction, part: ToolPart): string {
  const summary = `${part.name} · ${t(`steps.effect.${part.effect}`)} · ${t(`steps.status.${part.status}`)}`
  const lines = ['<details>', `<summary>${escapeOutsideCodeSpans(summary)}</summary>`, '', `**${t('steps.input')}**`, '', fenced(part.input, 'json')]
  if (part.output !== undefined) lines.push('', `**${t('steps.output')}**`, '', fenced(part.output, ''))
  if (part.error) {
    const { text, code } = describeFailure(t, failureOfWireError(part.error))
    lines.push('', `> **${t('export.failed')}** ${text}${code ? ` (${t('transcript.supportCode', { code })})` : ''}`)
  }
  lines.push('', '</details>')
  return lines.join('\n')
}

function fenced(text: string, language: string): string {
  const fence = fenceFor(text)
  return `${fence}${language}\n${text}\n${fence}`
}

/** One step of a reply in the file: text as the reply's Markdown, reasoning and tools folded. */
function stepBody(t: TFunction, part: Part): string {
  if (part.type === 'text') return escapeRawHtml(part.text)
  if (part.type === 'reasoning') return ['<details>', `<summary>${t('steps.reasoning')}</summary>`, '', quoted(part.text), '', '</details>'].join('\n')
  return toolBlock(t, part)
}

function agentBody(t: TFunction, message: Message): string {
  const parts: string[] = []
  // A reply with steps is written step by step; one without is its text (`content` is the text parts joined).
  if (message.parts && message.parts.length > 0) parts.push(...message.parts.filter((p) => p.type !== 'text' || p.text).map((p) => stepBody(t, p)))
  else if (message.content) parts.push(escapeRawHtml(message.content))
  if (message.status === 'failed') {
    const { text, code } = describeFailure(t, failureOfWireError(message.error))
    parts.push(`> **${t('export.failed')}** ${text}${code ? ` (${t('transcript.supportCode', { code })})` : ''}`)
  } else if (message.status === 'cancelled') {
    parts.push(`> ${t('status.cancelled')}`)
  } else if (isActive(message.status)) {
    parts.push(`> ${t('export.unfinished')}`)
  }
  return parts.join('\n\n')
}

/**
 * The session as Markdown in the language of `t`. Agent replies are Markdown already and go in as
 * they are; operator messages are quoted verbatim. Versions a regenerate replaced sit under their
 * reply in a `<details>` block, collapsed by default where the Markdown is rendered.
 */
export function sessionToMarkdown(t: TFunction, session: Session, messages: readonly Message[], at: number, lng: string): string {
  const when = new Intl.DateTimeFormat(lng, { dateStyle: 'long', timeStyle: 'short' }).format(at)
  const lines: string[] = [`# ${sessionLabel(t, session)}`, '', `_${t('export.exportedAt', { when })}_`, '']
  for (const item of buildTranscript(messages, [])) {
    if (item.kind === 'operator') {
      lines.push(`## ${t('transcript.operator')}`, '', quoted(item.message.content), '')
    } else if (item.kind === 'agent') {
      lines.push(`## ${t('transcript.agent')}`, '', agentBody(t, item.message), '')
      if (item.earlier.length > 0) {
        lines.push('<details>', `<summary>${t('transcript.earlierVersions', { count: item.earlier.length })}</summary>`, '')
        item.earlier.forEach((earlier, index) => {
          lines.push(`### ${t('transcript.earlierVersion', { n: index + 1 })}`, '', agentBody(t, earlier), '')
          for (const follower of item.followers[earlier.id] ?? []) {
            const author = follower.role === 'operator' ? t('transcript.operator') : t('transcript.agent')
            lines.push(`#### ${author}`, '', follower.role === 'operator' ? quoted(follower.content) : agentBody(t, follower), '')
          }
        })
        lines.push('</details>', '')
      }
    }
  }
  return `${lines.join('\n').trimEnd()}\n`
}

/** Hands a file to the browser's download. */
export function download(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.rel = 'noopener'
  document.body.append(link)
  link.click()
  link.remove()
  // The download has its own copy once started; the object URL can go on the next turn.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}
