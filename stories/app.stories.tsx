import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, waitFor } from 'storybook/test'
import type { StoryLandmark } from '../.storybook/preview'
import { App } from '../src/app/app'
import { handleFor } from '../mocks/handle'
import type { MockDaemon } from '../mocks/model'
import { sample } from './fixtures'
import { mockDaemonStory, type SeedDaemon } from './mock-daemon'

/**
 * The whole shell against a mock daemon: header, language switch, sessions, the session in view
 * and, as in the app's mock mode, the fault simulator bound to this story's daemon.
 */
const meta = {
  title: 'Connected/App',
  component: App,
  parameters: {
    layout: 'fullscreen',
    // The shell has its own header, aside and main.
    landmark: 'none' satisfies StoryLandmark,
  },
} satisfies Meta<typeof App>

export default meta
type Story = StoryObj<typeof meta>

async function seedSessions(d: SeedDaemon, locale: 'en' | 'zh'): Promise<string> {
  const release = d.createSession(sample('releaseSession', locale))
  d.send(release, sample('question', locale))
  await d.settled()
  const deploy = d.createSession(sample('deploySession', locale))
  d.send(deploy, sample('question', locale))
  await d.settled()
  return deploy
}

/** The simulator panel is loaded lazily; the shell is complete once it is there. */
async function simulatorShown(canvasElement: HTMLElement): Promise<void> {
  await waitFor(() => expect(canvasElement.querySelector('details.simulator')).not.toBeNull())
}

/** The simulator panel reads `window.__mockDaemon`, as the in-browser mock daemon sets it. */
function exposeDaemon(daemon: MockDaemon): () => void {
  window.__mockDaemon = handleFor(daemon)
  return () => {
    delete window.__mockDaemon
  }
}

/** Sessions listed, none open yet. */
export const NoSessionOpen: Story = {
  ...mockDaemonStory(
    async (d, locale) => {
      await seedSessions(d, locale)
      return {}
    },
    { beforeEach: (daemon) => exposeDaemon(daemon) },
  ),
  play: async ({ canvasElement }) => {
    await simulatorShown(canvasElement)
  },
}

/**
 * A session open, as after following a link to `/sessions/:id`. The address is set for the
 * story and put back when it is left (Storybook's own query string is kept).
 */
export const SessionOpen: Story = {
  ...mockDaemonStory(async (d, locale) => ({ sessionId: await seedSessions(d, locale) }), {
    beforeEach: (daemon, { sessionId }) => {
      const hide = exposeDaemon(daemon)
      const before = `${window.location.pathname}${window.location.search}${window.location.hash}`
      window.history.replaceState(window.history.state, '', `/sessions/${encodeURIComponent(sessionId ?? '')}${window.location.search}`)
      return () => {
        window.history.replaceState(window.history.state, '', before)
        hide()
      }
    },
  }),
  play: async ({ canvas, canvasElement }) => {
    await expect(await canvas.findByRole('log')).toBeInTheDocument()
    await simulatorShown(canvasElement)
  },
}
