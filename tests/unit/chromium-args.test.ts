import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CHROMIUM_ARGS, PLAYWRIGHT_DISABLED_FEATURES } from '../setup/chromium'

/** The features the installed Playwright turns off, read from its launcher's source. */
function playwrightDisabledFeatures(): string[] {
  const require = createRequire(import.meta.url)
  const root = dirname(require.resolve('playwright-core/package.json'))
  const source = readFileSync(join(root, 'lib', 'coreBundle.js'), 'utf8')
  const list = /disabledFeatures = \[([\s\S]*?)\]/.exec(source)?.[1]
  if (list === undefined) throw new Error('the installed Playwright no longer names its disabled features where this test looks')
  return [...list.replace(/\/\/.*$/gm, '').matchAll(/"([A-Za-z0-9]+)"/g)].map((m) => m[1]!)
}

describe('the arguments Chromium is launched with', () => {
  it('repeat every feature Playwright turns off, since Chromium reads only the last --disable-features', () => {
    const installed = playwrightDisabledFeatures()
    expect(installed.length).toBeGreaterThan(5)
    expect([...PLAYWRIGHT_DISABLED_FEATURES].sort()).toEqual([...installed].sort())
  })

  it('pass one --disable-features, with the address bar’s WebUI popup off', () => {
    const lists = CHROMIUM_ARGS.filter((a) => a.startsWith('--disable-features='))
    expect(lists).toHaveLength(1)
    const features = lists[0]!.slice('--disable-features='.length).split(',')
    expect(features).toEqual(expect.arrayContaining([...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']))
  })
})
