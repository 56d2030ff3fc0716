import { defineConfig, mergeConfig } from 'vitest/config'
import viteConfig from './vite.config.ts'

export default defineConfig((env) =>
  mergeConfig(viteConfig(env), {
    test: {
      // Component tests fake timers and stream through MSW; keep the two cores for two workers.
      maxWorkers: 2,
      testTimeout: 20_000,
      restoreMocks: true,
      projects: [
        {
          extends: true,
          test: {
            name: 'node',
            environment: 'node',
            include: ['tests/unit/**/*.test.ts'],
            setupFiles: ['tests/setup/console.ts', 'tests/setup/lazy-chunks.ts'],
          },
        },
        {
          extends: true,
          test: {
            name: 'dom',
            environment: 'jsdom',
            include: ['tests/component/**/*.test.tsx', 'tests/stories/**/*.test.tsx'],
            setupFiles: ['tests/setup/console.ts', 'tests/setup/dom.ts', 'tests/setup/lazy-chunks.ts'],
          },
        },
      ],
    },
  }),
)
