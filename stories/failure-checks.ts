import { expect } from 'storybook/test'

/**
 * Shared by the failure stories. What a coded-error story covers is kept in its parameters, so the
 * story suite can check that every code in ERROR_CODES and REFUSAL_CODES has its story
 * (tests/stories/stories.test.tsx).
 */
export type CodeCoverage = { kind: 'error' | 'refusal'; code: string }

/** Story parameters naming the code a story shows. */
export function covers(kind: CodeCoverage['kind'], code: string): { coverage: CodeCoverage } {
  return { coverage: { kind, code } }
}

/**
 * The daemon's own words, shown because no table has words for them: on screen as they came, and
 * outside English marked as English (`lang="en"`), so screen readers and fonts treat them as such.
 */
export async function expectVerbatim(shown: HTMLElement, locale: unknown): Promise<void> {
  await expect(shown).toBeInTheDocument()
  if (locale !== 'en') await expect(shown).toHaveAttribute('lang', 'en')
}
