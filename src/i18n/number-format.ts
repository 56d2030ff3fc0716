/**
 * Numbers shown beside an agent's steps (tokens, sizes, costs, durations), in the operator's
 * number format. Plain functions of their arguments: `lng` is the interface language, so a
 * language switch rewords them with everything else.
 */
import type { TFunction } from 'i18next'

const formats = new Map<string, Intl.NumberFormat>()

/** One formatter per language and options: making one costs more than using it, and usage changes while a reply streams. */
function numberFormat(lng: string, name: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  // Named by the caller: a key built from the options (JSON) cost more than the formatting, for every number of every render.
  const key = `${lng}\u0000${name}`
  let format = formats.get(key)
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat(lng, options)
    } catch {
      // A malformed tag (e.g. "en_US") throws RangeError; a number in the default locale beats a blank page.
      format = new Intl.NumberFormat(undefined, options)
    }
    formats.set(key, format)
  }
  return format
}

const secondsFormat = (lng: string) => numberFormat(lng, 'seconds', { maximumFractionDigits: 1 })

/** A count with the language's grouping ("1,234,567"); anything but a finite number reads as 0. */
export function formatCount(n: number, lng: string): string {
  return numberFormat(lng, 'count', { maximumFractionDigits: 0 }).format(Number.isFinite(n) ? n : 0)
}

const KIB = 1024
const BYTE_UNITS = ['kilobyte', 'megabyte', 'gigabyte'] as const

/**
 * A size in bytes as the operator reads it: "512 bytes", "16 kB", "1.5 MB" (zh "512字节",
 * "16 kB", "1.5 MB"). Steps of 1024, as the daemon's limit is (16 KiB reads "16 kB", not "16.4 kB");
 * one decimal below 10 of a unit, none above.
 */
export function formatBytes(bytes: number, lng: string): string {
  const size = Number.isFinite(bytes) && bytes > 0 ? bytes : 0
  if (size < KIB) return numberFormat(lng, 'bytes', { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(Math.round(size))
  let value = size / KIB
  let unit = 0
  while (value >= KIB && unit < BYTE_UNITS.length - 1) {
    value /= KIB
    unit += 1
  }
  const digits = value < 10 ? 1 : 0
  return numberFormat(lng, `${BYTE_UNITS[unit]}.${digits}`, { style: 'unit', unit: BYTE_UNITS[unit], unitDisplay: 'short', maximumFractionDigits: digits }).format(value)
}

/** Below this a cost shows four places, from it cents. */
const CENTS_FROM_USD = 0.5
/** The least cost four places show: anything spent below it reads "< $0.0001", not "$0.0000". */
const LEAST_SHOWN_USD = 0.0001

/**
 * A cost in US dollars, as the daemon reports it: cents from half a dollar up ("$0.50", "$1.25"),
 * four places below it, where most replies and steps cost, so $0.0123 does not read "$0.01" and
 * a fraction of a cent does not read "$0.00". Always four there, so costs shown together read at
 * one precision ("$0.0070" beside "$0.0149", not "$0.007"); nothing spent is "$0.00", and a cost
 * that rounds to no ten-thousandth "< $0.0001" (something was spent). zh "US$0.0032".
 */
export function formatUsd(usd: number, lng: string): string {
  const value = Number.isFinite(usd) && usd > 0 ? usd : 0
  const places = value > 0 && value < CENTS_FROM_USD ? 4 : 2
  if (value > 0 && value < LEAST_SHOWN_USD / 2) return `< ${formatUsd(LEAST_SHOWN_USD, lng)}`
  return numberFormat(lng, `usd.${places}`, { style: 'currency', currency: 'USD', minimumFractionDigits: places, maximumFractionDigits: places }).format(value)
}

/**
 * How a duration is rounded for display:
 * - `tenths`: a tool that took 0.4 s says so; one decimal under 10 s, whole seconds above;
 * - `floor`: a running clock, which must not show a second before it has passed;
 * - `whole`: whole seconds, at least 1 (a thought is never "0 s").
 */
export type DurationRounding = 'tenths' | 'floor' | 'whole'

/** `ms` as minutes and seconds, rounded as `rounding` says; negative or non-finite reads as 0. */
export function splitDuration(ms: number, rounding: DurationRounding): { minutes: number; seconds: number } {
  const value = Number.isFinite(ms) && ms > 0 ? ms : 0
  if (rounding === 'tenths' && value < 9_950) return { minutes: 0, seconds: Math.round(value / 100) / 10 }
  const total = rounding === 'floor' ? Math.floor(value / 1000) : Math.max(rounding === 'whole' ? 1 : 0, Math.round(value / 1000))
  return { minutes: Math.floor(total / 60), seconds: total % 60 }
}

/** A duration in words ("4 s", "0.4 s", "2 min 5 s"; zh "4 秒", "2 分 5 秒"), numbers in the language's format. */
export function describeDuration(t: TFunction, lng: string, ms: number, rounding: DurationRounding): string {
  const { minutes, seconds } = splitDuration(ms, rounding)
  const secondsText = secondsFormat(lng).format(seconds)
  return minutes > 0 ? t('steps.minutes', { minutes: formatCount(minutes, lng), seconds: secondsText }) : t('steps.seconds', { seconds: secondsText })
}

/**
 * Makes every format above for `lng` ahead of use. The first number format of a language loads
 * its number data (about 30 ms of main thread on a two-core machine), which would otherwise land
 * in the first commit of the first reply with steps, under the operator's typing.
 */
export function warmNumberFormats(lng: string): void {
  formatCount(0, lng)
  secondsFormat(lng)
  formatUsd(0.25, lng)
  formatUsd(2, lng)
  formatBytes(1, lng)
  for (let unit = 1; unit <= BYTE_UNITS.length; unit++) {
    formatBytes(KIB ** unit, lng)
    formatBytes(10 * KIB ** unit, lng)
  }
}
