/**
 * The benchmark's peer: a chat page as the AI SDK documents it. `useChat` from @ai-sdk/react with a
 * DefaultChatTransport to the fake daemon's `/api/chat` (the UI message stream protocol), the
 * session's history as initial messages, and the cookbook's memoized Markdown for every text part.
 * `?throttle=50` sets `experimental_throttle: 50`; without it the hook's defaults apply.
 *
 * Agent steps come as the SDK's own parts (reasoning, and tool calls whose input streams as it is
 * written), shown as its tool-usage guide shows them.
 *
 * The log keeps the newest text in view as it streams, as every chat page does and as the AI
 * SDK's own Conversation element does it: use-stick-to-bottom's StickToBottom around the
 * messages. Its scrolling is instant rather than the element's smooth default, the cheaper of
 * the two and the one that does what Rebound does (a spring animation would add frames of its
 * own to the peer's figures).
 */
import { useChat } from '@ai-sdk/react'
import { DefaultChatTransport, getToolName, isToolUIPart, type UIMessage } from 'ai'
import { memo, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { StickToBottom } from 'use-stick-to-bottom'
import { MemoizedMarkdown } from './memoized-markdown'

type WirePart =
  | { type: 'text' | 'reasoning'; text: string }
  | { type: 'tool'; tool_call_id: string; name: string; input: string; status: string; output?: string }
type WireMessage = { id: string; role: 'operator' | 'agent'; content: string; superseded: boolean; parts?: WirePart[] }
type Part = UIMessage['parts'][number]
type ToolPart = Extract<Part, { toolCallId: string }>

/**
 * A tool call as the AI SDK's tool-usage guide shows one: its name and state, the input as JSON
 * (partial while it streams) and the output once there. Memoized like the Markdown: the SDK
 * copies every part on each update but keeps the input and output of the parts that did not
 * change, so only the tool being written renders again.
 */
const ToolCall = memo(
  function ToolCall({ part }: { part: ToolPart }) {
    return (
      <div className="peer__tool">
        <strong>{getToolName(part)}</strong> <span>{part.state}</span>
        <pre>{JSON.stringify(part.input, null, 2)}</pre>
        {part.state === 'output-available' ? <pre>{typeof part.output === 'string' ? part.output : JSON.stringify(part.output, null, 2)}</pre> : null}
      </div>
    )
  },
  (prev, next) => prev.part.state === next.part.state && prev.part.input === next.part.input && prev.part.output === next.part.output,
)

function PartView({ part, id }: { part: Part; id: string }) {
  if (part.type === 'text') return <MemoizedMarkdown id={id} content={part.text} />
  if (part.type === 'reasoning') return <pre className="peer__reasoning">{part.text}</pre>
  if (isToolUIPart(part)) return <ToolCall part={part} />
  return null
}

/** A history message's steps as the AI SDK's parts: text, reasoning, and each tool done with its output. */
function partsOf(m: WireMessage): Part[] {
  if (!m.parts) return [{ type: 'text', text: m.content }]
  return m.parts.map((p): Part => {
    if (p.type !== 'tool') return { type: p.type, text: p.text }
    let input: unknown
    try {
      input = JSON.parse(p.input)
    } catch {
      input = p.input
    }
    return { type: `tool-${p.name}`, toolCallId: p.tool_call_id, state: 'output-available', input, output: p.output ?? '' }
  })
}

function Chat({ initialMessages, throttle }: { initialMessages: UIMessage[]; throttle: number | undefined }) {
  const { messages, sendMessage } = useChat({
    messages: initialMessages,
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    experimental_throttle: throttle,
  })
  const [input, setInput] = useState('')
  return (
    <div className="peer">
      <StickToBottom id="log" className="peer__log" role="log" initial="instant" resize="instant">
        <StickToBottom.Content className="peer__content">
          {messages.map((message) => (
            <article key={message.id} className={`peer__message peer__message--${message.role}`}>
              {message.parts.map((part, i) => (
                <PartView key={`${message.id}-${i}`} id={`${message.id}-${i}`} part={part} />
              ))}
            </article>
          ))}
        </StickToBottom.Content>
      </StickToBottom>
      <form
        className="peer__form"
        onSubmit={(event) => {
          event.preventDefault()
          if (!input.trim()) return
          void sendMessage({ text: input })
          setInput('')
        }}
      >
        <textarea
          id="composer-input"
          value={input}
          rows={3}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault()
              event.currentTarget.form?.requestSubmit()
            }
          }}
        />
      </form>
    </div>
  )
}

async function boot() {
  const root = document.getElementById('root')
  if (!root) throw new Error('index.html has no #root')
  const throttleParam = new URLSearchParams(window.location.search).get('throttle')
  const throttle = throttleParam ? Number(throttleParam) : undefined
  const response = await fetch('/api/v1/sessions/bench/messages')
  const { messages } = (await response.json()) as { messages: WireMessage[] }
  // The peer has no earlier versions: it shows the main flow, as a plain chat page would.
  const initialMessages: UIMessage[] = messages
    .filter((m) => !m.superseded)
    .map((m) => ({ id: m.id, role: m.role === 'operator' ? 'user' : 'assistant', parts: partsOf(m) }))
  createRoot(root).render(<Chat initialMessages={initialMessages} throttle={throttle} />)
}

void boot()
