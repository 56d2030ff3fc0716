/**
 * The highlight worker's entry: Shiki tokenizing code blocks for the page (see highlight-client.ts).
 * Started with the first finished code block seen. With no page to keep responsive here, a
 * block is tokenized in one go rather than in slices.
 */
import { serveHighlights, type HighlightPort } from './highlight-protocol'
import { createCodeHighlighter } from './highlighter'

serveHighlights(self as unknown as HighlightPort, createCodeHighlighter(undefined, { sliceMs: Infinity }))
