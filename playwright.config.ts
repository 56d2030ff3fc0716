import { defineConfig } from '@playwright/test'
import { CHROMIUM, CHROMIUM_ARGS } from './tests/setup/chromium'

const port = Number(process.env.REBOUND_PORT) || 5173

/**
 * End-to-end tests in Debian's Chromium against `npm start` (the dev server with the in-browser
 * mock daemon). Playwright's own browser download is not reachable here, hence `executablePath`.
 * Every test gets a fresh browser context, so a fresh localStorage, so a fresh mock daemon.
 */
export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  // Two cores, shared with the dev server: one browser at a time keeps the timings honest.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: 'list',
  timeout: 60_000,
  expect: {
    timeout: 10_000,
    toHaveScreenshot: { maxDiffPixelRatio: 0.01, animations: 'disabled', caret: 'hide' },
  },
  // Baselines live with the specs, one set for every platform (the browser and fonts are pinned by .ci/run).
  snapshotPathTemplate: '{testDir}/__screenshots__/{testFilePath}/{arg}{ext}',
  outputDir: 'test-results',
  use: {
    baseURL: `http://localhost:${port}`,
    viewport: { width: 1200, height: 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
    // Tracing costs a lot on two shared cores; use `--trace on` when a failure needs one.
    trace: 'off',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: CHROMIUM,
          args: CHROMIUM_ARGS,
        },
      },
    },
  ],
  webServer: {
    command: 'npm start',
    url: `http://localhost:${port}`,
    reuseExistingServer: !process.env.CI,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
})
