/**
 * The floor: the least a page can do with the same stream, as a reference for what the machine
 * and the stream cost before any client renders a reply. It loads the history and shows the end
 * of the last message, sends with Enter, reads the event stream in a worker, and shows one line
 * (the reply's first and last characters, and how many tools it called) once per frame. No Markdown, no framework, no
 * transcript, no styles: what a client measures above the floor is its own; what the floor
 * measures is not (see bench/README.md, "The subjects").
 */
import type { FromReader, ToReader } from './stream-reader.worker'

const API = '/api/v1/sessions/bench'
/** Characters shown of the reply's start and of its end: one line. */
const SHOWN = 40

const byId = <T extends HTMLElement>(id: string) => {
  const el = document.getElementById(id)
  if (!el) throw new Error(`#${id} is missing`)
  return el as T
}
const history = byId<HTMLParagraphElement>('history')
const reply = byId<HTMLPreElement>('reply')
const composer = byId<HTMLTextAreaElement>('composer-input')

const reader = new Worker(new URL('./stream-reader.worker.ts', import.meta.url), { type: 'module' })
let text = ''
let tools = 0
let frame: number | undefined
reader.onmessage = (event: MessageEvent<FromReader>) => {
  text += event.data.text
  tools = event.data.tools
  frame ??= requestAnimationFrame(() => {
    frame = undefined
    const shown = text.length <= 2 * SHOWN ? text : `${text.slice(0, SHOWN)} … ${text.slice(-SHOWN)}`
    reply.textContent = tools ? `${shown} (${tools} tools)` : shown
  })
}

void fetch(`${API}/messages`)
  .then((response) => response.json() as Promise<{ messages: Array<{ content: string }> }>)
  .then(({ messages }) => {
    history.textContent = (messages.at(-1)?.content ?? '').slice(-400)
  })

composer.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || event.shiftKey) return
  event.preventDefault()
  const content = composer.value
  composer.value = ''
  void fetch(`${API}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content, client_message_id: crypto.randomUUID() }),
  })
    .then((response) => response.json() as Promise<{ run_id: string }>)
    .then(({ run_id }) => {
      const message: ToReader = { eventsUrl: `${API}/runs/${run_id}/events` }
      reader.postMessage(message)
    })
})
