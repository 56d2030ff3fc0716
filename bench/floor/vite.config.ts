import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/** The floor pages: their own root (this folder), served by the fake daemon under /floor/ on Rebound's origin. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/floor/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../.out/floor', import.meta.url)),
    emptyOutDir: true,
    // Chromium has module preloading; the polyfill would be a chunk of its own, shared by both pages.
    modulePreload: { polyfill: false },
    // Three pages: the stream read (index.html), a long session read in pages (pages.html), and the same drawn by React (react-pages.html).
    rolldownOptions: {
      input: {
        stream: fileURLToPath(new URL('./index.html', import.meta.url)),
        pages: fileURLToPath(new URL('./pages.html', import.meta.url)),
        reactPages: fileURLToPath(new URL('./react-pages.html', import.meta.url)),
      },
    },
  },
})
