/**
 * How the floor pages read a long session (daemon-wire.md, "History in pages"): the newest page
 * first, then the pages the view reaches (`?before=S&limit=N`), each message in view one row of
 * fixed height (so nothing is measured and nothing moves when a page lands), and pages far from
 * the view let go. The bare floor (pages.ts) and the React floor (react-pages.ts) draw the same
 * rows from it, so what they hold after a trip differs only by how they draw.
 */
export type Message = { seq: number; content: string }

const API = '/api/v1/sessions/bench/messages'
/** Messages a read asks for. */
const PAGE = 50
/** Every row's height. */
export const ROW_PX = 24
/** Pages kept either side of those in view; any further are let go. */
const KEEP = 2

export const byId = (id: string) => {
  const el = document.getElementById(id)
  if (!el) throw new Error(`#${id} is missing`)
  return el
}

const pageOf = (seq: number) => Math.floor((seq - 1) / PAGE)

async function messages(query: string): Promise<Message[]> {
  const response = await fetch(`${API}?${query}`)
  return ((await response.json()) as { messages: Message[] }).messages
}

/**
 * A session read in pages. `changed` is called when a page lands; `open` reads the newest page
 * and resolves with the session's length; `inView` reads what the view reaches, lets go of what
 * is far from it, and returns the messages already read among those in view.
 */
export function pagedSession(changed: () => void) {
  let count = 0
  const pages = new Map<number, Message[]>()
  const reading = new Set<number>()

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
        changed()
      })
  }

  return {
    async open(): Promise<number> {
      const newest = await messages(`limit=${PAGE}`)
      count = newest.at(-1)?.seq ?? 0
      const last = pageOf(count)
      pages.set(
        last,
        newest.filter((message) => pageOf(message.seq) === last),
      )
      return count
    },
    inView(scrollTop: number, height: number): Message[] {
      const first = Math.max(1, Math.floor(scrollTop / ROW_PX) + 1)
      const last = Math.min(count, Math.ceil((scrollTop + height) / ROW_PX))
      const [from, to] = [pageOf(first), pageOf(last)]
      for (let index = from; index <= to; index++) read(index)
      for (const index of pages.keys()) if (index < from - KEEP || index > to + KEEP) pages.delete(index)
      const shown: Message[] = []
      for (let seq = first; seq <= last; seq++) {
        const index = pageOf(seq)
        const message = pages.get(index)?.[seq - 1 - index * PAGE]
        if (message) shown.push(message)
      }
      return shown
    },
  }
}

/** Calls `draw` at the next animation frame, once however often it is asked before then. */
export function onNextFrame(draw: () => void): () => void {
  let frame: number | undefined
  return () => {
    frame ??= requestAnimationFrame(() => {
      frame = undefined
      draw()
    })
  }
}
