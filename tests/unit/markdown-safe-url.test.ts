import { describe, expect, it } from 'vitest'
import { safeHref } from '../../src/markdown/safe-url'

describe('safeHref', () => {
  it.each([
    ['https://example.com/a?b=c#d', 'https://example.com/a?b=c#d'],
    ['http://example.com', 'http://example.com/'],
    ['HTTPS://Example.COM/Path', 'https://example.com/Path'],
    ['mailto:ops@example.com', 'mailto:ops@example.com'],
    ['  https://example.com/padded  ', 'https://example.com/padded'],
  ])('lets %s through as %s', (url, expected) => {
    expect(safeHref(url)).toBe(expected)
  })

  const hostile = [
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    '\tjavascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'java\rscript:alert(1)',
    '\u0000javascript:alert(1)',
    '\u001fjavascript:alert(1)',
    'javascript&colon;alert(1)',
    'javascript%3Aalert(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'DATA:text/html,<script>alert(1)</script>',
    'DaTa:image/svg+xml,<svg onload=alert(1)>',
    'vbscript:msgbox(1)',
    'VBScript:msgbox(1)',
    'vBsCrIpT:msgbox(1)',
    'file:///etc/passwd',
    'blob:https://example.com/uuid',
    'ftp://example.com/file',
    'tel:+123',
    'streamdown:incomplete-link',
    // Relative URLs would point into this app.
    '/sessions/abc',
    '#fragment',
    'relative/path.html',
    '//evil.example/protocol-relative',
    '',
  ]
  it.each(hostile)('refuses %j', (url) => {
    expect(safeHref(url)).toBeUndefined()
  })

  it('refuses a missing URL', () => {
    expect(safeHref(undefined)).toBeUndefined()
    expect(safeHref(null)).toBeUndefined()
  })
})
