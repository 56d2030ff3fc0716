/**
 * Project annotations for every story, in Storybook and in the story test suite
 * (tests/stories/stories.test.tsx hands this module to `setProjectAnnotations`):
 * - the `locale` global and its toolbar (English / 简体中文);
 * - a decorator giving each story what the app's `Providers` give it: its own i18next instance in
 *   that locale, a fresh QueryClient (no retries), and a chat runtime over the mock daemon;
 * - msw-storybook-addon: `initialize` here, `mswLoader` applies each story's `parameters.msw`.
 */
import type { Decorator, Preview } from '@storybook/react-vite'
import { initialize, mswLoader } from 'msw-storybook-addon'
import { StrictMode, useState, type ReactNode } from 'react'
import { createQueryClient, Providers } from '../src/app/providers'
import { loadReplyParts } from '../src/chat/reply/steps/lazy-reply-parts'
import { forgetSteps } from '../src/chat/reply/steps/use-disclosure'
import { loadRetryScheduler } from '../src/retry/lazy-scheduler'
import { createChatRuntime } from '../src/thread/runtime'
import { createI18n } from '../src/i18n/bundled'
import { SUPPORTED_LANGUAGES, toLanguage, type Language } from '../src/i18n/resources'
import { createDaemonClient } from '../src/wire/http'
import '../src/app/styles.css'

// In the browser this registers MSW's worker (served from mocks/public via staticDirs); under
// Node (Vitest) the addon's node build starts `setupServer` instead, so the same loader serves
// both. Requests no story mocks (Storybook's own assets) go to the network untouched.
initialize({ onUnhandledRequest: 'bypass' })

/** The daemon origin the stories' runtime talks to. */
function daemonOrigin(): string {
  // Always absolute. In Storybook this is the iframe's own origin, which MSW's worker answers; in
  // the jsdom suite it is jsdom's page URL (Vitest's default is http://localhost:3000), which
  // `setupServer` answers. Node's fetch has no page to resolve a relative URL against, so the
  // runtime never gets '' here; the fallback covers an opaque origin ("null", e.g. about:blank).
  const { origin } = window.location
  return origin.startsWith('http') ? origin : 'http://localhost'
}

/**
 * A Storage kept in memory, one per story: the outbox and the live-run records must not leak
 * from one story into the next through the iframe's sessionStorage.
 */
function memoryStorage(): Storage {
  const items = new Map<string, string>()
  return {
    get length() {
      return items.size
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  }
}

/** What `src/main.tsx` builds at boot, built once per mounted story (and per locale). */
function StoryProviders({ locale, children }: { locale: Language; children: ReactNode }) {
  const [deps] = useState(() => ({
    i18n: createI18n({ lng: locale }),
    queryClient: createQueryClient(),
    runtime: createChatRuntime(createDaemonClient({ baseUrl: daemonOrigin() }), memoryStorage()),
  }))
  return (
    // StrictMode as in src/main.tsx, so effects that would misbehave in the app misbehave here too.
    <StrictMode>
      <Providers i18n={deps.i18n} queryClient={deps.queryClient} runtime={deps.runtime}>
        {children}
      </Providers>
    </StrictMode>
  )
}

/**
 * Where a story sits in the page. Components render inside the app's landmarks (the transcript
 * and composer in `<main>`, the session list in `<aside>`), so by default a story is wrapped in a
 * `<main>`; a story that renders the whole shell brings its own landmarks and sets `'none'`.
 */
export type StoryLandmark = 'main' | 'none'

const withAppContext: Decorator = (Story, context) => {
  const locale = toLanguage(String(context.globals.locale ?? '')) ?? SUPPORTED_LANGUAGES[0]
  const landmark: StoryLandmark = context.parameters.landmark ?? 'main'
  return (
    // Keyed by locale: switching the toolbar mounts the story afresh in the other language.
    <StoryProviders key={locale} locale={locale}>
      {landmark === 'main' ? (
        <main>
          <Story />
        </main>
      ) : (
        <Story />
      )}
    </StoryProviders>
  )
}

const preview = {
  globalTypes: {
    locale: {
      description: 'Interface language',
      toolbar: {
        title: 'Language',
        icon: 'globe',
        items: [
          { value: 'en', title: 'English', right: 'en' },
          { value: 'zh', title: '简体中文', right: 'zh' },
        ],
        dynamicTitle: true,
      },
    },
  },
  initialGlobals: { locale: 'en' },
  decorators: [withAppContext],
  // A reply's steps and the retry scheduler are lazy chunks: loaded before a story renders, so it
  // shows (and its play function finds) what the app shows once they have arrived.
  loaders: [
    mswLoader,
    async () => {
      await Promise.all([loadReplyParts(), loadRetryScheduler()])
      // What an operator opened in a reply's steps is kept by message id for the page's lifetime;
      // each story is a page of its own, shown as written (its play function opens what it opens).
      forgetSteps()
    },
  ],
  parameters: {
    layout: 'padded',
    controls: { expanded: true },
    // From the smallest piece to the whole app.
    options: { storySort: { order: ['Chat', 'Retry', 'Errors', 'App', 'Connected'] } },
  },
} satisfies Preview

export default preview
