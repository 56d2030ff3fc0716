import type { StorybookConfig } from '@storybook/react-vite'
import { mergeConfig } from 'vite'

/**
 * Storybook for visual review. The builder loads the project's vite.config.ts (React plugin,
 * defines, the mock worker plugin); viteFinal then pins the two build-time constants so every
 * story renders the same way in `storybook dev`, `storybook build` and the story test suite.
 */
const config: StorybookConfig = {
  framework: { name: '@storybook/react-vite', options: {} },
  stories: ['../stories/**/*.stories.tsx'],
  // MSW's worker (mockServiceWorker.js) lives here; msw-storybook-addon registers it from the root.
  staticDirs: ['../mocks/public'],
  // Core only: controls, actions, backgrounds, viewport and the test panel ship in `storybook`
  // itself, and nothing here may reach the network.
  addons: [],
  core: { disableTelemetry: true },
  // No docs pages, so no prop tables to extract: skip docgen and keep the build lean.
  typescript: { reactDocgen: false },
  viteFinal(viteConfig) {
    return mergeConfig(viteConfig, {
      define: {
        // Stories always talk to a mock daemon (msw-storybook-addon), whatever mode Storybook
        // builds in. vite.config.ts would say `false` for `storybook build` (command "build",
        // mode "production") and `true` for `storybook dev` and Vitest, so the App story would
        // differ between the static build, the dev server and the tests without this.
        __MOCK_DAEMON__: JSON.stringify(true),
        // Same origin: the stories' runtime builds its own absolute base (see preview.tsx).
        __API_BASE__: JSON.stringify(''),
      },
    })
  },
}

export default config
