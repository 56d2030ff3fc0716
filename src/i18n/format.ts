/**
 * Times shown next to a retry. Plain functions of their arguments (no clock read here), so the
 * caller's `now` and fake timers decide what they print.
 */

/**
 * The wall-clock time of `deadline` in the operator's time zone, for "retry after HH:MM".
 *
 * - Same local day as `now`: the time only, 24-hour ("09:05"; zh "09:05").
 * - Another day this year: month and day too (en "Dec 3, 09:05"; zh "12月3日 09:05").
 * - Another year: the year too (en "Dec 3, 2027, 09:05"; zh "2027年12月3日 09:05").
 *
 * Always a 24-hour clock (`hourCycle: 'h23'`): the design shows HH:MM, and a deadline hours away
 * must not hinge on reading AM/PM. `lng` is any BCP 47 tag; one Intl cannot use falls back to
 * the runtime's default locale rather than throwing in the middle of a render. A `deadline` that
 * is no time a Date can hold (not finite, or past ±8.64e15 ms) returns `invalid`: pass the words
 * for "no reset time" (`robust.noResetTime`).
 */
export function formatClockTime(deadline: number, now: number, lng: string, invalid = ''): string {
  // Intl throws a RangeError on a time past the last valid Date (1e20, a quota of 2e11 minutes),
  // and a throw in render blanks the page: such a time reads as `invalid` ("no reset time").
  if (!isFormattableTime(deadline)) return invalid
  const at = new Date(deadline)
  const today = new Date(isFormattableTime(now) ? now : deadline)
  const sameYear = at.getFullYear() === today.getFullYear()
  const sameDay = sameYear && at.getMonth() === today.getMonth() && at.getDate() === today.getDate()
  const options: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
  if (!sameDay) {
    options.month = 'short'
    options.day = 'numeric'
    if (!sameYear) options.year = 'numeric'
  }
  return dateTimeFormat(lng, options).format(at)
}

/**
 * Whole seconds left in a wait of `ms`, rounded up (for "Retrying in {{seconds}} s"); 0 when the
 * wait is over or `ms` is not a finite number.
 */
export function countdownSeconds(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : 0
}

/** The last instant a `Date` can hold, in ms either side of the epoch. */
const MAX_DATE_MS = 8.64e15

/** True for a time `Intl.DateTimeFormat` can format without throwing. Check before formatting any wire time. */
export function isFormattableTime(ms: unknown): ms is number {
  return typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS
}

function dateTimeFormat(lng: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(lng, options)
  } catch {
    // A malformed tag (e.g. "en_US") throws RangeError; a time in the default locale beats none.
    return new Intl.DateTimeFormat(undefined, options)
  }
}
