/**
 * How an open looks while it settles, frame by frame: when the session's last message first
 * shows, when every reply in the transcript is Markdown (none left as the plain text drawn before
 * the renderer's chunk is here), how many were plain at most, and how far the last message moved
 * on screen after it first showed. Fresh pages of one build, the 1,000-message session of the
 * growth scenarios, served by the bench's fake daemon; not a bench figure, a diagnosis.
 *
 *   npx tsx bench/markdown-open.ts [opens=6] [app dir=bench/.out/app]   (after a bench run built it)
 */
import { launchBrowser } from './browser'
import { HISTORY_MARKER } from './content'
import { startFakeDaemon } from './fake-daemon'
import { generatedSession } from './history-source'
import { NO_REPLY } from './scenarios'

type Settling = { shown?: number; markdown?: number; plainMost: number; movedPx: number }

/** Watches every frame of the page's first 5 s (a string: it runs in the page as written). */
const WATCH = `(() => {
  const marker = ${JSON.stringify(HISTORY_MARKER)}
  const seen = (window.__settling = { plainMost: 0, movedPx: 0 })
  let lastTop
  const frame = (t) => {
    const log = document.querySelector('[role="log"]')
    if (log) {
      const plain = log.querySelectorAll('.md-reply--plain').length
      if (seen.shown === undefined && (log.textContent || '').includes(marker)) seen.shown = t
      if (seen.shown !== undefined) {
        seen.plainMost = Math.max(seen.plainMost, plain)
        if (seen.markdown === undefined && plain === 0 && log.querySelector('.md-reply')) seen.markdown = t
        const rows = log.querySelectorAll('[data-index]')
        const last = rows[rows.length - 1]
        if (last) {
          const top = last.getBoundingClientRect().top
          if (lastTop !== undefined) seen.movedPx += Math.abs(top - lastTop)
          lastTop = top
        }
      }
    }
    if (t < 5000) requestAnimationFrame(frame)
  }
  requestAnimationFrame(frame)
})()`

const opens = Number(process.argv[2] ?? 6)
const appDir = process.argv[3] ?? 'bench/.out/app'
const daemon = await startFakeDaemon({ appDir, peerDir: 'bench/.out/peer', floorDir: 'bench/.out/floor' })
const browser = await launchBrowser()
const runs: Settling[] = []
try {
  for (let i = 0; i < opens; i++) {
    daemon.reset({ history: generatedSession({ size: 1000 }), events: NO_REPLY, rate: 1000, firstTokenMs: 0 })
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    await page.addInitScript(WATCH)
    await page.goto(`${daemon.reboundUrl}/sessions/bench`, { waitUntil: 'load' })
    await page.waitForTimeout(2500)
    runs.push((await page.evaluate('window.__settling')) as Settling)
    await context.close()
  }
} finally {
  await browser.close()
  await daemon.close()
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const row = (label: string, values: number[]) => console.log(`${label.padEnd(44)} median ${median(values)}   each ${values.join(' ')}`)
row('last message first shown (ms from navigation)', runs.map((r) => Math.round(r.shown ?? NaN)))
row('every reply Markdown (ms)', runs.map((r) => Math.round(r.markdown ?? NaN)))
row('replies drawn plain at most', runs.map((r) => r.plainMost))
row('last message moved after it showed (px)', runs.map((r) => Math.round(r.movedPx)))
