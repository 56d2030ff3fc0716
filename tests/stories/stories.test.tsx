/**
 * Every story, in both interface languages, through Storybook's own pipeline (portable stories):
 * loaders (msw-storybook-addon applies the story's `parameters.msw`), the preview decorator,
 * beforeEach, render and play. Each rendering must show something, read in its language, and pass
 * axe. A console.error anywhere fails the test (tests/setup/console.ts).
 *
 * Locale: passed as the `locale` global to `Story.run({ globals })`, exactly what the toolbar sets
 * in Storybook; the preview decorator builds the i18n instance from it.
 *
 * MSW: importing the preview calls msw-storybook-addon's `initialize`, whose Node build starts
 * `setupServer` in this process; `mswLoader` then swaps in each story's handlers, as the worker
 * does in the browser. The runtime's daemon base is jsdom's page origin (absolute, see
 * `daemonOrigin` in .storybook/preview.tsx), because Node's fetch cannot resolve relative URLs.
 * Any request no handler answers fails the test that made it.
 */
import { composeStories, composeStory, setProjectAnnotations } from '@storybook/react-vite'
import { waitFor } from '@testing-library/react'
import axe from 'axe-core'
import { getWorker } from 'msw-storybook-addon'
import type { SetupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import preview from '../../.storybook/preview'
import { resources } from '../../src/i18n/bundled'
import { ERROR_CODES, REFUSAL_CODES } from '../../src/wire/types'
import type { CodeCoverage } from '../../stories/failure-checks'

const annotations = setProjectAnnotations([preview])
beforeAll(async () => {
  // The React renderer's own set-up (act-aware testing-library configuration for play functions).
  await annotations.beforeAll?.()
})

type StoryModule = Parameters<typeof composeStories>[0]
type ComposedStory = ReturnType<typeof composeStory>
const modules = import.meta.glob<StoryModule>('../../stories/*.stories.tsx', { eager: true })

const LOCALES = ['en', 'zh'] as const
type Locale = (typeof LOCALES)[number]

const stories = Object.entries(modules).flatMap(([path, module]) => {
  const title = String((module.default as { title?: string } | undefined)?.title ?? path)
  // composeStories types its result from the module's own exports; a glob only knows it is a module.
  const composed = composeStories(module) as Record<string, ComposedStory>
  return Object.values(composed).map((Story) => ({ title, Story }))
})
type StoryCase = (typeof stories)[number]

const isConnected = ({ Story }: StoryCase) => Story.parameters.msw !== undefined

// In Node the addon's `getWorker` returns the `setupServer` instance its `initialize` started.
const server = getWorker() as unknown as SetupServer
let unhandled: string[] = []
server.events.on('request:unhandled', ({ request }) => {
  unhandled.push(`${request.method} ${request.url}`)
})
let inFlight = 0
server.events.on('request:start', () => {
  inFlight += 1
})
server.events.on('request:end', () => {
  inFlight -= 1
})
afterAll(() => server.close())

// Storybook keeps a story mounted until the next story is loaded or run (its cleanups are module
// state of the preview API). Loading an empty story after each test unmounts the one the test
// mounted, ending its streams and running its beforeEach cleanups, inside that same test.
const Unmount = composeStory({ render: () => <></> }, { title: 'Story suite/Unmount' })
let canvasElement: HTMLElement
beforeEach(() => {
  unhandled = []
  canvasElement = document.body.appendChild(document.createElement('div'))
})
afterEach(async () => {
  await Unmount.load()
  canvasElement.remove()
})

/** Milliseconds without a DOM change after which a connected story counts as settled. */
const QUIET_MS = 400

/**
 * Waits until a connected story has settled: no request in flight, nothing marked busy, and no
 * DOM change for QUIET_MS. Testing Library's waitFor turns React's act environment off while it
 * waits, so the updates that stream in meanwhile are not act() warnings.
 */
async function settle(container: HTMLElement): Promise<void> {
  let lastChange = performance.now()
  const observer = new MutationObserver(() => {
    lastChange = performance.now()
  })
  observer.observe(container, { subtree: true, childList: true, characterData: true, attributes: true })
  try {
    await waitFor(
      () => {
        if (inFlight > 0) throw new Error(`${inFlight} request(s) in flight`)
        if (container.querySelector('[aria-busy="true"]')) throw new Error('still busy')
        if (performance.now() - lastChange < QUIET_MS) throw new Error('still changing')
      },
      { timeout: 10_000, interval: 50 },
    )
  } finally {
    observer.disconnect()
  }
}

/** Every string of a word table, depth first. */
function tableStrings(table: unknown): string[] {
  if (typeof table === 'string') return [table]
  return typeof table === 'object' && table !== null ? Object.values(table).flatMap(tableStrings) : []
}

/**
 * Distinctive pieces of the English table that the Chinese table does not share: the longest
 * literal run of each entry (between `{{…}}` placeholders), when it is long enough to mean
 * something. Seeing one in a Chinese rendering means English words reached a Chinese screen.
 */
const ENGLISH_ONLY_PHRASES = (() => {
  const shared = new Set(tableStrings(resources.zh.translation))
  const phrases = tableStrings(resources.en.translation)
    .filter((entry) => !shared.has(entry))
    .map((entry) => entry.split(/\{\{[^}]*\}\}/).map((part) => part.trim()).sort((a, b) => b.length - a.length)[0] ?? '')
    .filter((phrase) => phrase.length >= 8)
  return [...new Set(phrases)]
})()

const HAN = /\p{Script=Han}/u
const LATIN_WORD = /[A-Za-z]{2,}/

/** Text of the story, leaving out parts marked as Chinese (the language switch's own name). */
function textOutsideChinese(container: HTMLElement): string {
  const copy = container.cloneNode(true) as HTMLElement
  for (const element of copy.querySelectorAll('[lang^="zh"]')) element.remove()
  return copy.textContent ?? ''
}

function describeViolations(violations: axe.Result[]): string[] {
  return violations.map((v) => {
    const nodes = v.nodes.map((n) => `    at ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`).join('\n')
    return `${v.id} (${v.impact ?? 'n/a'}): ${v.help}\n    ${v.helpUrl}\n${nodes}`
  })
}

/** Markup with React's `useId` values blanked: they count up across renders, whatever the clock. */
function withoutReactIds(html: string): string {
  return html.replace(/_r_[0-9a-z]+_/g, '_r_id_')
}

async function renderStory({ Story }: StoryCase, locale: Locale): Promise<void> {
  await Story.run({ globals: { locale }, canvasElement })
}

describe.each(LOCALES)('stories in %s', (locale) => {
  test.each(stories.map((s) => [`${s.title} › ${s.Story.storyName}`, s] as const))('%s', async (_name, story) => {
    await renderStory(story, locale)
    if (isConnected(story)) await settle(canvasElement)

    const text = canvasElement.textContent?.trim() ?? ''
    expect(text, 'the story renders nothing').not.toBe('')
    if (locale === 'zh') {
      // Every story shows interface words (labels, statuses, the marker on daemon text).
      expect(text, 'the Chinese rendering has no Chinese in it').toMatch(HAN)
      expect(
        ENGLISH_ONLY_PHRASES.filter((phrase) => text.includes(phrase)),
        'English interface words in the Chinese rendering',
      ).toEqual([])
    } else {
      expect(text).toMatch(LATIN_WORD)
      expect(textOutsideChinese(canvasElement), 'the English rendering shows Chinese').not.toMatch(HAN)
    }

    const result = await axe.run(canvasElement, { rules: { 'color-contrast': { enabled: false } } })
    expect(describeViolations(result.violations)).toEqual([])
    expect(unhandled, 'requests no handler answered').toEqual([])
  })
})

describe('story catalogue', () => {
  const covered = stories.map(({ Story }) => Story.parameters.coverage as CodeCoverage | undefined).filter((c) => c !== undefined)

  test('every ERROR_CODES entry has a failed-reply story', () => {
    const codes = new Set(covered.filter((c) => c.kind === 'error').map((c) => c.code))
    expect(ERROR_CODES.filter((code) => !codes.has(code))).toEqual([])
  })

  test('every REFUSAL_CODES entry has a refusal story', () => {
    const codes = new Set(covered.filter((c) => c.kind === 'refusal').map((c) => c.code))
    expect(REFUSAL_CODES.filter((code) => !codes.has(code))).toEqual([])
  })

  test('story names are unique within each title', () => {
    const seen = new Set<string>()
    const duplicates = stories.map((s) => `${s.title} › ${s.Story.storyName}`).filter((name) => seen.size === seen.add(name).size)
    expect(duplicates).toEqual([])
  })

  // Stories pass fixed times to the components; one that read the real clock would change here.
  test.each(stories.filter((s) => !isConnected(s)).map((s) => [`${s.title} › ${s.Story.storyName}`, s] as const))(
    'reads the same at another real time: %s',
    async (_name, story) => {
      await renderStory(story, 'en')
      const atRealTime = canvasElement.innerHTML
      await Unmount.load()
      vi.useFakeTimers({ toFake: ['Date'], now: new Date(2031, 0, 15, 3, 30, 0) })
      try {
        await renderStory(story, 'en')
      } finally {
        vi.useRealTimers()
      }
      expect(withoutReactIds(canvasElement.innerHTML)).toBe(withoutReactIds(atRealTime))
    },
  )
})
