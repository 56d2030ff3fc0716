/**
 * What a coded-error story covers, kept in its parameters so the story suite can check that every
 * code in ERROR_CODES and REFUSAL_CODES has its story (tests/stories/stories.test.tsx).
 */
export type CodeCoverage = { kind: 'error' | 'refusal'; code: string }

/** Story parameters naming the code a story shows. */
export function covers(kind: CodeCoverage['kind'], code: string): { coverage: CodeCoverage } {
  return { coverage: { kind, code } }
}
