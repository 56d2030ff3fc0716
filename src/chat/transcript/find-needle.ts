/**
 * What find-in-session looked for, given to the row it went to (transcript.tsx), so a step folded
 * in that row that holds the words opens while the match stands, as a browser's find opens what it
 * finds hidden: the words it counted are then on screen and marked (match-marks.ts). A step the
 * operator opened or folded themselves keeps their choice.
 */
import { createContext, useContext } from 'react'

/** The needle (lower case in the interface's language) in the matched row; undefined in every other row. */
export const FindNeedle = createContext<string | undefined>(undefined)

/** What find looked for, in the row it went to; undefined in every other row (nothing to compare while a reply streams). */
export const useFindNeedle = (): string | undefined => useContext(FindNeedle)

/** Whether any of `texts` holds `needle` (lower case in `language`). */
export function holdsNeedle(needle: string | undefined, language: string, ...texts: string[]): boolean {
  return needle !== undefined && needle !== '' && texts.some((text) => text.toLocaleLowerCase(language).includes(needle))
}
