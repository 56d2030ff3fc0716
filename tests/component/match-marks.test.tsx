/**
 * Find's marks: where the matched words are in a row's text, as ranges over its text nodes.
 */
import { render } from '@testing-library/react'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { matchRanges } from '../../src/chat/transcript/match-marks'

const row = (content: ReactNode): HTMLElement => render(<div>{content}</div>).container

describe('matchRanges', () => {
  it('finds every occurrence in every text node, whatever its case', () => {
    const element = row(
      <>
        <p>
          Search the docs. <code>search_docs</code> and SEARCH_DOCS again: search_docs
        </p>
        <span>no hit</span>
      </>,
    )
    const ranges = matchRanges(element, 'search_docs', 'en')
    expect(ranges.map((range) => range.toString())).toEqual(['search_docs', 'SEARCH_DOCS', 'search_docs'])
    expect(ranges[0]?.startContainer.parentElement?.tagName).toBe('CODE')
  })

  it('marks nothing for an empty needle, and not across two nodes', () => {
    const element = row(
      <p>
        search_<strong>docs</strong>
      </p>,
    )
    expect(matchRanges(element, '', 'en')).toEqual([])
    expect(matchRanges(element, 'search_docs', 'en')).toEqual([])
  })

  it('does not overlap: "aa" in "aaaa" is two marks', () => {
    expect(matchRanges(row('aaaa'), 'aa', 'en').map((range) => [range.startOffset, range.endOffset])).toEqual([
      [0, 2],
      [2, 4],
    ])
  })

  it('finds Chinese text', () => {
    expect(matchRanges(row(<p>运行测试，然后运行测试</p>), '运行测试', 'zh').map((range) => range.startOffset)).toEqual([0, 7])
  })
})
