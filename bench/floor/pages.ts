/**
 * The floor for a long session: the least a page can do to open a session of any length at its
 * end and scroll it to the first message and back. It reads the newest page, then the pages the
 * view reaches (`?before=S&limit=N`, daemon-wire.md "History in pages"), shows each message in
 * view as one line of plain text in a row of fixed height (so nothing is measured and nothing
 * moves when a page lands), and lets go of pages far from the view. No Markdown, no framework:
 * what it holds after a trip is what any page holds that reads and drops pages on this engine.
 */
type Message = { seq: number; content: string }

const API = '/api/v1/sessions/bench/messages'
/** Messages a read asks for. */
const PAGE = 50
/** Every row's height. */
const ROW_PX = 24
/** Pages kept either side of those in view; any further are let go. */
const KEEP = 2

const byId = (id: string) => {
  const el = document.getElementById(id)
  if (!el) throw new Error(`#${id} is missing`)
  return el
}
const log = byId('log')
const space = byId('space')

let count = 0
const pages = new Map<number, Message[]>()
const reading = new Set<number>()
const pageOf = (seq: number) => Math.floor((seq - 1) / PAGE)

async function messages(query: string): Promise<Message[]> {
  const response = await fetch(`${API}?${query}`)
  return ((await response.json()) as { messages: Message[] }).messages
}

/** Page `index` holds seq index·PAGE + 1 … (index + 1)·PAGE (the last one fewer). */
function read(index: number): void {
  if (pages.has(index) || reading.has(index)) return
  reading.add(index)
  const first = index * PAGE + 1
  const size = Math.min(PAGE, count - first + 1)
  void messages(`before=${first + size}&limit=${size}`)
    .then((page) => pages.set(index, page))
    .finally(() => {
      reading.delete(index)
      schedule()
    })
}

let frame: number | undefined
function schedule(): void {
  frame ??= requestAnimationFrame(() => {
    frame = undefined
    render()
  })
}

function render(): void {
  const first = Math.max(1, Math.floor(log.scrollTop / ROW_PX) + 1)
  const last = Math.min(count, Math.ceil((log.scrollTop + log.clientHeight) / ROW_PX))
  const [from, to] = [pageOf(first), pageOf(last)]
  for (let index = from; index <= to; index++) read(index)
  for (const index of pages.keys()) if (index < from - KEEP || index > to + KEEP) pages.delete(index)
  const rows: HTMLElement[] = []
  for (let seq = first; seq <= last; seq++) {
    const index = pageOf(seq)
    const message = pages.get(index)?.[seq - 1 - index * PAGE]
    if (!message) continue
    const row = document.createElement('article')
    row.style.cssText = `position:absolute;left:0;right:0;top:${(seq - 1) * ROW_PX}px;height:${ROW_PX}px;overflow:hidden;white-space:nowrap`
    row.textContent = message.content
    rows.push(row)
  }
  space.replaceChildren(...rows)
}

void messages(`limit=${PAGE}`).then((newest) => {
  count = newest.at(-1)?.seq ?? 0
  const last = pageOf(count)
  pages.set(
    last,
    newest.filter((message) => pageOf(message.seq) === last),
  )
  space.style.height = `${count * ROW_PX}px`
  log.scrollTop = log.scrollHeight
  render()
  log.addEventListener('scroll', schedule, { passive: true })
})
