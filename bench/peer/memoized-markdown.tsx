/**
 * Markdown as the AI SDK's cookbook renders it ("Markdown chatbot with memoization"): marked's
 * lexer splits the text into blocks, and each block is its own memoized react-markdown, so a new
 * token re-parses the last block only. remark-gfm adds GitHub's tables, task lists and strikethrough.
 */
import { marked } from 'marked'
import { memo, useMemo } from 'react'
import ReactMarkdown from 'react-markdown'
import remarkGfm from 'remark-gfm'

const plugins = [remarkGfm]

function parseMarkdownIntoBlocks(markdown: string): string[] {
  return marked.lexer(markdown).map((token) => token.raw)
}

const MemoizedMarkdownBlock = memo(
  function MemoizedMarkdownBlock({ content }: { content: string }) {
    return <ReactMarkdown remarkPlugins={plugins}>{content}</ReactMarkdown>
  },
  (prev, next) => prev.content === next.content,
)

/** One message's Markdown, block by block. */
export const MemoizedMarkdown = memo(function MemoizedMarkdown({ content, id }: { content: string; id: string }) {
  const blocks = useMemo(() => parseMarkdownIntoBlocks(content), [content])
  return blocks.map((block, index) => <MemoizedMarkdownBlock content={block} key={`${id}-block_${index}`} />)
})
