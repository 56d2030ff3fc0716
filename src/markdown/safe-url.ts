/**
 * Which URLs in a reply may become live links. A reply is model output, and a model can be
 * talked into writing `javascript:` links, so only three schemes are ever clickable.
 */

/** The only schemes a reply may link to. */
const LINKABLE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:'])

/**
 * The URL to put in an `href`, or undefined when `url` must not be clickable.
 *
 * The URL is parsed the way the browser would parse the `href` (leading and trailing spaces and
 * control characters dropped, tabs and newlines inside removed, the scheme lower-cased), so
 * `JaVaScRiPt:`, ` javascript:` and `java\tscript:` are all seen as `javascript:` and refused.
 * Markdown has already decoded character references (`&#106;avascript:`) by the time a URL gets
 * here. A relative URL (`/x`, `#x`, `x.html`) has no scheme to check and is refused too: it would
 * point into this app. What is returned is the parser's own serialization, so the link goes
 * exactly where the check looked.
 */
export function safeHref(url: string | null | undefined): string | undefined {
  if (url === null || url === undefined || url === '') return undefined
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  return LINKABLE_PROTOCOLS.has(parsed.protocol) ? parsed.href : undefined
}
