/**
 * The floor for a long session, drawn by React: the bare floor's reading and rows
 * (page-reader.ts), each row a keyed component React renders and commits. Nothing else: no
 * Markdown, no measuring, no windowing library. What it holds after a trip beyond the bare
 * floor is what React itself keeps once its code has run hot (compiled code, fibers of the rows
 * it drew), the share of a React page's heap an app built on it starts from.
 */
import { createElement as h, memo } from 'react'
import { createRoot } from 'react-dom/client'
import { byId, onNextFrame, pagedSession, ROW_PX, type Message } from './page-reader'

const log = byId('log')
const space = byId('space')
const root = createRoot(space)

const Row = memo(function Row({ message }: { message: Message }) {
  return h(
    'article',
    { style: { position: 'absolute', left: 0, right: 0, top: (message.seq - 1) * ROW_PX, height: ROW_PX, overflow: 'hidden', whiteSpace: 'nowrap' } },
    message.content,
  )
})

function Rows({ rows }: { rows: Message[] }) {
  return rows.map((message) => h(Row, { key: message.seq, message }))
}

const schedule = onNextFrame(render)
const session = pagedSession(schedule)

function render(): void {
  root.render(h(Rows, { rows: session.inView(log.scrollTop, log.clientHeight) }))
}

void session.open().then((count) => {
  space.style.height = `${count * ROW_PX}px`
  log.scrollTop = log.scrollHeight
  render()
  log.addEventListener('scroll', schedule, { passive: true })
})
