import { describe, expect, it } from 'vitest'
import { createI18n } from '../../src/i18n/bundled'
import { describeDuration, formatBytes, formatCount, formatUsd, splitDuration, warmNumberFormats } from '../../src/i18n/number-format'

const en = createI18n({ lng: 'en' }).t
const zh = createI18n({ lng: 'zh' }).t

describe('formatCount', () => {
  it('groups digits in the operator’s format', () => {
    expect(formatCount(1234567, 'en')).toBe('1,234,567')
    expect(formatCount(1234567, 'zh')).toBe('1,234,567')
    expect(formatCount(1234567, 'de')).toBe('1.234.567')
  })

  it('reads anything but a finite number as 0, and survives a malformed language tag', () => {
    expect(formatCount(Number.NaN, 'en')).toBe('0')
    expect(formatCount(12, 'en_US')).toBe('12')
  })
})

describe('formatBytes', () => {
  it('words bytes, kB and MB in steps of 1024', () => {
    expect(formatBytes(512, 'en')).toBe('512 bytes')
    expect(formatBytes(16 * 1024, 'en')).toBe('16 kB')
    expect(formatBytes(1536, 'en')).toBe('1.5 kB')
    expect(formatBytes(1024 * 1024, 'en')).toBe('1 MB')
    expect(formatBytes(200 * 1024 * 1024, 'en')).toBe('200 MB')
    expect(formatBytes(3 * 1024 ** 3, 'en')).toBe('3 GB')
  })

  it('words them in Chinese for the Chinese interface', () => {
    expect(formatBytes(512, 'zh')).toBe('512字节')
    expect(formatBytes(16 * 1024, 'zh')).toBe('16 kB')
  })

  it('reads a negative or non-finite size as 0 bytes', () => {
    expect(formatBytes(-1, 'en')).toBe('0 bytes')
    expect(formatBytes(Number.POSITIVE_INFINITY, 'en')).toBe('0 bytes')
  })
})

describe('formatUsd', () => {
  it('shows cents from half a dollar up, and four places below it', () => {
    expect(formatUsd(1.25, 'en')).toBe('$1.25')
    expect(formatUsd(1.23456, 'en')).toBe('$1.23')
    expect(formatUsd(0.0123, 'en')).toBe('$0.0123')
    expect(formatUsd(0.01234, 'en')).toBe('$0.0123')
    expect(formatUsd(0.5, 'en')).toBe('$0.50')
    expect(formatUsd(0.99, 'en')).toBe('$0.99')
    expect(formatUsd(0.0032, 'en')).toBe('$0.0032')
    expect(formatUsd(0, 'en')).toBe('$0.00')
    expect(formatUsd(1234.5, 'en')).toBe('$1,234.50')
  })

  it('shows costs under half a dollar at one precision, trailing zeros kept', () => {
    expect(formatUsd(0.007, 'en')).toBe('$0.0070')
    expect(formatUsd(0.0149, 'en')).toBe('$0.0149')
    expect(formatUsd(0.25, 'en')).toBe('$0.2500')
  })

  it('says a cost too small for four places was more than nothing', () => {
    expect(formatUsd(0.00001, 'en')).toBe('< $0.0001')
    expect(formatUsd(0.000049, 'en')).toBe('< $0.0001')
    expect(formatUsd(0.00005, 'en')).toBe('$0.0001')
    expect(formatUsd(0.00001, 'zh')).toBe('< US$0.0001')
    expect(formatUsd(0, 'en')).toBe('$0.00')
  })

  it('names the dollar unambiguously in Chinese', () => {
    expect(formatUsd(0.0032, 'zh')).toBe('US$0.0032')
  })
})

describe('durations', () => {
  it('rounds a tool’s time to tenths under 10 s, whole seconds above', () => {
    expect(splitDuration(420, 'tenths')).toEqual({ minutes: 0, seconds: 0.4 })
    expect(splitDuration(9_949, 'tenths')).toEqual({ minutes: 0, seconds: 9.9 })
    expect(splitDuration(9_950, 'tenths')).toEqual({ minutes: 0, seconds: 10 })
    expect(splitDuration(125_400, 'tenths')).toEqual({ minutes: 2, seconds: 5 })
  })

  it('never shows a running clock’s second before it passed', () => {
    expect(splitDuration(1_999, 'floor')).toEqual({ minutes: 0, seconds: 1 })
    expect(splitDuration(59_999, 'floor')).toEqual({ minutes: 0, seconds: 59 })
  })

  it('says a thought took at least a second', () => {
    expect(splitDuration(200, 'whole')).toEqual({ minutes: 0, seconds: 1 })
    expect(splitDuration(4_400, 'whole')).toEqual({ minutes: 0, seconds: 4 })
    expect(splitDuration(-3, 'floor')).toEqual({ minutes: 0, seconds: 0 })
  })

  it('words durations in both languages', () => {
    expect(describeDuration(en, 'en', 4_000, 'whole')).toBe('4 s')
    expect(describeDuration(en, 'en', 420, 'tenths')).toBe('0.4 s')
    expect(describeDuration(en, 'en', 125_000, 'floor')).toBe('2 min 5 s')
    expect(describeDuration(zh, 'zh', 4_000, 'whole')).toBe('4 秒')
    expect(describeDuration(zh, 'zh', 125_000, 'floor')).toBe('2 分 5 秒')
  })
})

describe('warmNumberFormats', () => {
  it('makes every format the steps use ahead of time: formatting afterwards makes none', () => {
    const Original = Intl.NumberFormat
    let made = 0
    const Counting = function (this: unknown, ...args: ConstructorParameters<typeof Intl.NumberFormat>) {
      made += 1
      return new Original(...args)
    } as unknown as typeof Intl.NumberFormat
    Intl.NumberFormat = Counting
    try {
      // A language no other test formats in, so nothing is made already.
      const lng = 'fr'
      warmNumberFormats(lng)
      expect(made).toBeGreaterThan(0)
      made = 0
      for (const n of [0, 7, 1234567]) formatCount(n, lng)
      for (const bytes of [0, 512, 1536, 16 * 1024, 500 * 1024, 1.5 * 1024 ** 2, 40 * 1024 ** 2, 2.5 * 1024 ** 3, 900 * 1024 ** 3]) formatBytes(bytes, lng)
      for (const usd of [0, 0.0032, 0.5, 1.25, 40]) formatUsd(usd, lng)
      for (const ms of [400, 4_000, 125_000]) for (const rounding of ['tenths', 'floor', 'whole'] as const) describeDuration(en, lng, ms, rounding)
      expect(made).toBe(0)
    } finally {
      Intl.NumberFormat = Original
    }
  })
})
