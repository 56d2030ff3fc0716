import { describe, expect, it } from 'vitest'
import { countdownSeconds, formatClockTime } from '../../src/i18n/format'

// Local-time constructors: "today" and "another day" mean the same thing in any TZ the suite runs in.
const now = new Date(2026, 10, 30, 14, 0).getTime()
const laterToday = new Date(2026, 10, 30, 9, 5).getTime()
const anotherDay = new Date(2026, 11, 3, 9, 5).getTime()
const anotherYear = new Date(2027, 0, 2, 23, 45).getTime()

describe('formatClockTime', () => {
  it('shows only HH:MM for a deadline today, on a 24-hour clock', () => {
    expect(formatClockTime(laterToday, now, 'en')).toBe('09:05')
    expect(formatClockTime(laterToday, now, 'zh')).toBe('09:05')
    expect(formatClockTime(new Date(2026, 10, 30, 23, 59).getTime(), now, 'en')).toBe('23:59')
  })

  it('adds the month and day for another day this year', () => {
    const en = formatClockTime(anotherDay, now, 'en')
    expect(en).toContain('09:05')
    expect(en).toMatch(/Dec/)
    expect(en).toMatch(/\b3\b/)
    expect(en).not.toContain('2026')
    const zh = formatClockTime(anotherDay, now, 'zh')
    expect(zh).toContain('12月3日')
    expect(zh).toContain('09:05')
    expect(zh).not.toContain('2026')
  })

  it('treats midnight as the start of another day', () => {
    const tomorrowMidnight = new Date(2026, 11, 1, 0, 0).getTime()
    expect(formatClockTime(tomorrowMidnight, now, 'zh')).toContain('12月1日')
  })

  it('adds the year for another year', () => {
    const en = formatClockTime(anotherYear, now, 'en')
    expect(en).toContain('2027')
    expect(en).toMatch(/Jan/)
    expect(en).toContain('23:45')
    const zh = formatClockTime(anotherYear, now, 'zh')
    expect(zh).toContain('2027年1月2日')
    expect(zh).toContain('23:45')
  })

  it('accepts region tags and survives a malformed one', () => {
    expect(formatClockTime(laterToday, now, 'zh-CN')).toBe('09:05')
    expect(formatClockTime(laterToday, now, 'en_US')).toMatch(/09:05/)
  })
})

describe('countdownSeconds', () => {
  it('gives whole seconds left for a worded countdown', () => {
    expect(countdownSeconds(2000)).toBe(2)
    expect(countdownSeconds(1999)).toBe(2)
    expect(countdownSeconds(0)).toBe(0)
    expect(countdownSeconds(-1)).toBe(0)
  })
})
