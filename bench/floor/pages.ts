/**
 * The floor for a long session: the least a page can do to open a session of any length at its
 * end and scroll it to the first message and back (page-reader.ts reads and lets go of the
 * pages). No Markdown, no framework: what it holds after a trip is what any page holds that
 * reads and drops pages on this engine.
 */
import { byId, onNextFrame, pagedSession, ROW_PX } from './page-reader'

const log = byId('log')
const space = byId('space')

const schedule = onNextFrame(render)
const session = pagedSession(schedule)

function render(): void {
  const rows = session.inView(log.scrollTop, log.clientHeight).map((message) => {
    const row = document.createElement('article')
    row.style.cssText = `position:absolute;left:0;right:0;top:${(message.seq - 1) * ROW_PX}px;height:${ROW_PX}px;overflow:hidden;white-space:nowrap`
    row.textContent = message.content
    return row
  })
  space.replaceChildren(...rows)
}

void session.open().then((count) => {
  space.style.height = `${count * ROW_PX}px`
  log.scrollTop = log.scrollHeight
  render()
  log.addEventListener('scroll', schedule, { passive: true })
})
