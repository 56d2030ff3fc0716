/**
 * The benchmark's peer: a chat page as the AI SDK documents it. `useChat` from @ai-sdk/react with a
 * DefaultChatTransport to the fake daemon's `/api/chat` (the UI message stream protocol), the
 * session's history as initial messages, and the cookbook's memoized Markdown for every text part.
 * `?throttle=50` sets `experimental_throttle: 50`; without it the hook's defaults apply.
 *
 * The log keeps the newest text in view as it streams, as every chat page does and as the AI
 * SDK's own Conversation element does it: use-stick-to-bottom's StickToBottom around the
 * messages. Its scrolling is instant rather than the element's smooth default, the cheaper of
 * the two and the one that does what Rebound does (a spring animation would add frames of its
 * own to the peer's figures).
 */
import { useChat } from '@ai-sdk/react'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { StickToBottom } from 'use-stick-to-bottom'
import { MemoizedMarkdown } from './memoized-markdown'

type WireMessage = { id: string; role: 'operator' | 'agent'; content: string; superseded: boolean }

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
              {message.parts.map((part, i) => (part.type === 'text' ? <MemoizedMarkdown key={`${message.id}-${i}`} id={message.id} content={part.text} /> : null))}
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
    .map((m) => ({ id: m.id, role: m.role === 'operator' ? 'user' : 'assistant', parts: [{ type: 'text', text: m.content }] }))
  createRoot(root).render(<Chat initialMessages={initialMessages} throttle={throttle} />)
}

void boot()
