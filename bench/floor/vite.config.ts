import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/** The floor page: its own root (this folder), served by the fake daemon under /floor/ on Rebound's origin. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/floor/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../.out/floor', import.meta.url)),
    emptyOutDir: true,
  },
})
