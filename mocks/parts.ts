/**
 * A run's events folded into its agent message: `parts` in the order of their first event,
 * `content` (the text parts joined) and `usage`. The daemon folds each event as it logs it, so
 * history holds exactly what the stream carried, and a client folding the same events gets the
 * same parts.
 */
import { TOOL_OUTPUT_LIMIT, type Message, type Part, type StreamEventName, type ToolPart, type Usage, type WireError } from '../src/wire/types'

const utf8 = new TextEncoder()
const utf8Decoder = new TextDecoder()

/** A tool's output as it travels: at most `TOOL_OUTPUT_LIMIT` UTF-8 bytes of it, cut between characters. */
export function cutOutput(output: string): { output: string; output_bytes: number; output_truncated: boolean } {
  const bytes = utf8.encode(output)
  if (bytes.length <= TOOL_OUTPUT_LIMIT) return { output, output_bytes: bytes.length, output_truncated: false }
  let end = TOOL_OUTPUT_LIMIT
  // A continuation byte (10xxxxxx) at the cut means the cut falls inside a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--
  return { output: utf8Decoder.decode(bytes.subarray(0, end)), output_bytes: bytes.length, output_truncated: true }
}

/** A tool part's fields a `tool_result` event sets. */
type ToolResult = Pick<ToolPart, 'status' | 'output' | 'output_bytes' | 'output_truncated'> & { error?: WireError }

/** The event payloads the fold reads (the wire's, already checked by the daemon that wrote them). */
type Payload = {
  text?: string
  tool_call_id?: string
  name?: string
  effect?: ToolPart['effect']
  delta?: string
} & Partial<ToolResult> &
  Partial<Usage>

/** The message's parts; a message saved before parts existed starts from its text. */
function partsOf(message: Message): Part[] {
  message.parts ??= message.content === '' ? [] : [{ type: 'text', text: message.content }]
  return message.parts
}

function toolOf(parts: Part[], id: string | undefined): ToolPart | undefined {
  return parts.find((p): p is ToolPart => p.type === 'tool' && p.tool_call_id === id)
}

/** Folds one event (its parsed data) into the agent message; `at` is the daemon's clock. */
export function foldEvent(message: Message, event: StreamEventName, data: Payload, at: number): void {
  const parts = partsOf(message)
  const last = parts.at(-1)
  switch (event) {
    case 'delta':
    case 'reasoning': {
      const type = event === 'delta' ? 'text' : 'reasoning'
      const text = data.text ?? ''
      if (last?.type === type) last.text += text
      else parts.push({ type, text })
      if (type === 'text') message.content += text
      return
    }
    case 'tool_call':
      parts.push({
        type: 'tool',
        tool_call_id: data.tool_call_id ?? '',
        name: data.name ?? '',
        effect: data.effect ?? 'read',
        input: '',
        status: 'input',
        started_at: at,
      })
      return
    case 'tool_input': {
      const tool = toolOf(parts, data.tool_call_id)
      if (tool) tool.input += data.delta ?? ''
      return
    }
    case 'tool_approval':
    case 'tool_running': {
      const tool = toolOf(parts, data.tool_call_id)
      if (tool) tool.status = event === 'tool_approval' ? 'awaiting_approval' : 'running'
      return
    }
    case 'tool_result': {
      const tool = toolOf(parts, data.tool_call_id)
      if (!tool || data.status === undefined) return
      tool.status = data.status
      if (data.output !== undefined) tool.output = data.output
      if (data.output_bytes !== undefined) tool.output_bytes = data.output_bytes
      if (data.output_truncated !== undefined) tool.output_truncated = data.output_truncated
      if (data.error) tool.error = { ...data.error }
      tool.ended_at = at
      return
    }
    case 'usage':
      message.usage = {
        input_tokens: data.input_tokens ?? 0,
        output_tokens: data.output_tokens ?? 0,
        ...(data.cost_usd === undefined ? {} : { cost_usd: data.cost_usd }),
      }
      return
    default:
      return
  }
}

/** The tools of a message still open (not ended): a cancel ends them before the run. */
export function openTools(message: Message | undefined): ToolPart[] {
  return (message?.parts ?? []).filter(
    (p): p is ToolPart => p.type === 'tool' && (p.status === 'input' || p.status === 'awaiting_approval' || p.status === 'running'),
  )
}
