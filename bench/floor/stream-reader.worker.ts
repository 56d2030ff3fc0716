/**
 * The floor's stream reader, off the page's main thread as Rebound's is: opens the run's event
 * stream, parses it with the same SSE parser, reads every event's data (agent steps included: the
 * least any client does with them), and hands the text and the count of tool calls over at most
 * once per 16 ms.
 */
import { createParser } from 'eventsource-parser'

export type ToReader = { eventsUrl: string }
/** The reply's text that arrived since the last message, and the tool calls it has made so far. */
export type FromReader = { text: string; tools: number }

const BATCH_MS = 16

const scope = self as unknown as { postMessage(message: FromReader): void; onmessage: ((event: MessageEvent<ToReader>) => void) | null }

scope.onmessage = (event) => {
  void read(event.data.eventsUrl)
}

async function read(url: string) {
  let pending = ''
  let tools = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const post = () => {
    clearTimeout(timer)
    timer = undefined
    scope.postMessage({ text: pending, tools })
    pending = ''
  }
  const parser = createParser({
    onEvent(message) {
      const data = JSON.parse(message.data) as { text?: string }
      if (message.event === 'tool_call') tools++
      else if (message.event === 'delta') pending += data.text ?? ''
      else return
      timer ??= setTimeout(post, BATCH_MS)
    },
  })
  const response = await fetch(url, { headers: { accept: 'text/event-stream' } })
  if (!response.body) throw new Error(`no event stream at ${url}`)
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    parser.feed(value)
  }
  post()
}
