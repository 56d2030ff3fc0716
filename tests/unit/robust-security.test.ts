/**
 * Security rules the build and the lint keep: the production page's Content-Security-Policy
 * (scripts and styles from its own origin, no inline script in the output, connect-src limited to
 * the daemon) and the ESLint rule that keeps daemon text from ever becoming markup.
 */
import { ESLint } from 'eslint'
import { build, type Rollup } from 'vite'
import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy } from '../../vite.config'

const directives = (policy: string) => new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]))

describe('the Content-Security-Policy', () => {
  it("allows scripts and styles from the page's own origin only", () => {
    const policy = directives(contentSecurityPolicy(''))
    expect(policy.get('script-src')).toEqual(["'self'"])
    expect(policy.get('style-src')).toEqual(["'self'"])
    expect(policy.get('object-src')).toEqual(["'none'"])
    expect(policy.get('base-uri')).toEqual(["'none'"])
    expect(policy.get('connect-src')).toEqual(["'self'"])
  })

  it('limits connect-src to the daemon origin a build bakes in', () => {
    expect(directives(contentSecurityPolicy('http://127.0.0.1:8787')).get('connect-src')).toEqual(["'self'", 'http://127.0.0.1:8787'])
  })

  it('is in the built page, which has no inline script and no inline style', async () => {
    const output = (await build({ configFile: 'vite.config.ts', logLevel: 'silent', build: { write: false } })) as Rollup.RollupOutput
    const html = output.output.find((item) => item.fileName === 'index.html')
    expect(html?.type).toBe('asset')
    const text = String((html as Rollup.OutputAsset).source)
    expect(text).toMatch(/<meta http-equiv="Content-Security-Policy" content="[^"]*script-src &#39;self&#39;/)
    const scripts = [...text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc="\//)
      expect(body!.trim()).toBe('')
    }
    expect(text).not.toMatch(/<style\b|\sstyle="/)
    // Nothing in the scripts evaluates strings as code (script-src has no 'unsafe-eval').
    for (const chunk of output.output) {
      if (chunk.type === 'chunk') expect(chunk.code, chunk.fileName).not.toMatch(/\bnew Function\(|\beval\(/)
    }
  }, 120_000)
})

describe('the lint rule', () => {
  const eslint = new ESLint({ cwd: process.cwd() })
  const lint = async (code: string) => (await eslint.lintText(code, { filePath: 'src/probe.tsx' }))[0]!.messages.filter((m) => m.ruleId === 'no-restricted-syntax')

  it.each([
    'export const X = () => <div dangerouslySetInnerHTML={{ __html: "<b>x</b>" }} />',
    'import { createElement } from "react"\nexport const X = () => createElement("div", { dangerouslySetInnerHTML: { __html: "x" } })',
    'export function x(e: HTMLElement, t: string) { e.innerHTML = t }',
    'export function x(e: HTMLElement, t: string) { e.insertAdjacentHTML("beforeend", t) }',
  ])('refuses %s', async (code) => {
    expect((await lint(code)).length).toBeGreaterThan(0)
  })

  it('lets text through', async () => {
    expect(await lint('export const X = ({ t }: { t: string }) => <div>{t}</div>\nexport function y(e: HTMLElement, t: string) { e.textContent = t }')).toEqual([])
  })
})
