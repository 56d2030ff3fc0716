/**
 * The fast path for the commonest long live block: a code fence still being written. Its text
 * is the code, so it is shown without parsing the whole block as Markdown again on every delta
 * (a 20,000-character file would cost that much per delta). Anything less plain goes the normal way.
 */

/** The code of a fence that is still open, and its language tag. */
export type OpenFence = { tag: string | undefined; code: string }

const OPENING = /^( {0,3})(`{3,}|~{3,})([^\n]*)\n/

/**
 * `block` read as a fenced code block that has not been closed yet, or undefined when it is not
 * exactly that (no fence at its start, a closing fence already there, a backtick in a backtick
 * fence's info string, which CommonMark does not allow).
 */
export function openFence(block: string): OpenFence | undefined {
  const opening = OPENING.exec(block)
  if (opening === null) return undefined
  const [line, indent, fence, info] = opening as unknown as [string, string, string, string]
  if (fence[0] === '`' && info.includes('`')) return undefined
  const body = block.slice(line.length)
  const lines = body.split('\n')
  const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`)
  if (lines.some((text) => closing.test(text))) return undefined
  // CommonMark takes the opening fence's indentation off every line of the code, up to its width.
  const strip = indent.length === 0 ? undefined : new RegExp(`^ {0,${indent.length}}`)
  const code = (strip ? lines.map((text) => text.replace(strip, '')) : lines).join('\n')
  return { tag: info.trim().split(/\s/)[0] || undefined, code: code.replace(/\n$/, '') }
}
