import { describe, expect, it } from 'vitest'
import enErrors from '../../locales/en/errors.json'
import zhErrors from '../../locales/zh/errors.json'
import {
  describeFailure,
  describeRetryClass,
  failureFromError,
  failureOfWireError,
  isKnownErrorCode,
  isVerbatimFailure,
  VERBATIM_LIMIT,
} from '../../src/i18n/describe-failure'
import { createI18n } from '../../src/i18n/bundled'
import { toFrame } from '../../src/wire/events'
import { ERROR_CODES, REFUSAL_CODES, RETRY_CLASSES } from '../../src/wire/types'

const en = createI18n({ lng: 'en' }).t
const zh = createI18n({ lng: 'zh' }).t
const languages = [
  { lng: 'en', t: en, table: enErrors },
  { lng: 'zh', t: zh, table: zhErrors },
]
const codes = [...ERROR_CODES, ...REFUSAL_CODES]
const englishSentence = (code: string) => `The daemon's English sentence for ${code}.`
const frame = (code: string, error = englishSentence(code)) => JSON.stringify({ error, code })

/** The data of a stream `error` event, read as the client reads it: the wire's frame, then the reply's error. */
function failureFromFrameData(data: string) {
  const parsed = toFrame({ id: '1', event: 'error', data })
  if (parsed?.type !== 'error') throw new Error('an error event always reads as an error frame')
  return failureOfWireError({ code: parsed.code ?? '', message: parsed.message })
}

/** True when `text` holds a run of three or more English words, i.e. an English sentence. */
const hasEnglishSentence = (text: string) => /[A-Za-z]+[\s,.'’]+[A-Za-z]+[\s,.'’]+[A-Za-z]+/.test(text)

describe.each(languages)('a coded failure in $lng', ({ t, table, lng }) => {
  it.each(codes)('words %s from the table, not the daemon sentence', (code) => {
    const expected = (table.errors as Record<string, string>)[code]
    const result = describeFailure(t, failureFromFrameData(frame(code)))
    expect(result).toEqual({ text: expected, code })
    expect(result.text).not.toContain("daemon's English sentence")
    if (lng === 'zh') expect(hasEnglishSentence(result.text)).toBe(false)
  })

  it.each(codes)('words a refusal-like error with %s the same as a frame with it', (code) => {
    const refusal = Object.assign(new Error(englishSentence(code)), { name: 'RefusalError', status: 409, code })
    expect(describeFailure(t, failureFromError(refusal))).toEqual(describeFailure(t, failureFromFrameData(frame(code))))
  })

  it('words a failed message from history ({ code, message }) the same way', () => {
    const stored = { code: 'model_out_of_credit', message: 'Out of credit.' }
    expect(describeFailure(t, failureFromError(stored)).text).toBe(table.errors.model_out_of_credit)
  })

  it('words the client-side wire codes (transport_failed, payload_invalid)', () => {
    expect(describeFailure(t, failureFromError({ code: 'transport_failed', message: 'Failed to fetch' })).text).toBe(
      table.errors.transport_failed,
    )
    expect(describeFailure(t, { kind: 'coded', code: 'payload_invalid' }).text).toBe(table.errors.payload_invalid)
  })

  it('keeps the daemon sentence for a code it does not know', () => {
    const result = describeFailure(t, failureFromFrameData(frame('model_on_fire', 'The model is on fire.')))
    expect(result).toEqual({ text: 'The model is on fire.', code: 'model_on_fire' })
  })

  it('names an unknown code when the daemon gave no sentence', () => {
    const result = describeFailure(t, failureFromFrameData(frame('model_on_fire', '  ')))
    expect(result).toEqual({ text: t('failure.unknown', { code: 'model_on_fire' }), code: 'model_on_fire' })
    expect(result.text).toContain('model_on_fire')
  })

  it('says something generic when there is nothing to go on', () => {
    const generic = table.failure.generic
    expect(describeFailure(t, failureFromFrameData(''))).toEqual({ text: generic, code: undefined })
    expect(describeFailure(t, failureFromFrameData('  \n '))).toEqual({ text: generic, code: undefined })
    expect(describeFailure(t, { kind: 'none' })).toEqual({ text: generic, code: undefined })
    expect(describeFailure(t, { kind: 'raw', text: '   ' })).toEqual({ text: generic, code: undefined })
    expect(describeFailure(t, { kind: 'coded' })).toEqual({ text: generic, code: undefined })
  })

  it('words retry classes from the table, and an unknown class by name', () => {
    for (const retryClass of RETRY_CLASSES) {
      expect(describeRetryClass(t, retryClass)).toBe((table.retryClass as Record<string, string>)[retryClass])
    }
    expect(describeRetryClass(t, 'solar_flare')).toBe(t('failure.unclassified', { retryClass: 'solar_flare' }))
    expect(describeRetryClass(t, undefined)).toBeUndefined()
  })
})

describe('raw failures', () => {
  it('shows a plain-text frame as it came, trimmed', () => {
    expect(failureFromFrameData('  Provider exploded: <b>500</b>\n')).toEqual({
      kind: 'raw',
      text: 'Provider exploded: <b>500</b>',
    })
    // Same text in every language: it is the daemon's, and it is not HTML to interpret.
    for (const t of [en, zh]) {
      expect(describeFailure(t, failureFromFrameData('  Provider exploded: <b>500</b>\n'))).toEqual({
        text: 'Provider exploded: <b>500</b>',
        code: undefined,
      })
    }
  })

  it('cuts a huge frame at the limit with an ellipsis', () => {
    const huge = 'x'.repeat(VERBATIM_LIMIT * 20)
    const { text } = describeFailure(en, failureFromFrameData(huge))
    expect(text).toBe(`${'x'.repeat(VERBATIM_LIMIT)}…`)
    // Text the wire already cut the same way reads unchanged.
    expect(describeFailure(en, { kind: 'raw', text }).text).toBe(text)
  })

  it('never cuts inside a surrogate pair', () => {
    const text = `${'x'.repeat(VERBATIM_LIMIT - 1)}😀tail`
    expect(describeFailure(en, { kind: 'raw', text }).text).toBe(`${'x'.repeat(VERBATIM_LIMIT - 1)}…`)
  })

  it('treats JSON that is not the { error, code } envelope as raw text', () => {
    for (const data of ['{"message":"nope"}', '{"error":"x"}', '{"error":1,"code":"answer_empty"}', '[1,2]', '"answer_empty"', '42', 'null']) {
      expect(failureFromFrameData(data), data).toEqual({ kind: 'raw', text: data })
      expect(describeFailure(en, failureFromFrameData(data)), data).toEqual({ text: data, code: undefined })
    }
  })

  it('caps an unknown code sentence the same way', () => {
    const long = 'y'.repeat(VERBATIM_LIMIT + 10)
    expect(describeFailure(zh, { kind: 'coded', code: 'new_code', message: long }).text).toBe(`${'y'.repeat(VERBATIM_LIMIT)}…`)
  })
})

describe('failureFromError', () => {
  it('reads a coded failure with message, or error when there is no message', () => {
    expect(failureFromError({ code: 'answer_empty', message: 'Empty.' })).toEqual({ kind: 'coded', code: 'answer_empty', message: 'Empty.' })
    expect(failureFromError({ code: 'answer_empty', error: 'Empty.' })).toEqual({ kind: 'coded', code: 'answer_empty', message: 'Empty.' })
    expect(failureFromError({ code: 'answer_empty' })).toEqual({ kind: 'coded', code: 'answer_empty', message: undefined })
  })

  it('reads a stream failure without a code (an older daemon’s plain text) as raw', () => {
    const streamFailure = Object.assign(new Error('Upstream said no'), { name: 'StreamFailure', code: undefined })
    expect(failureFromError(streamFailure)).toEqual({ kind: 'raw', text: 'Upstream said no' })
    expect(failureFromError({ status: 502, code: '', message: 'HTTP 502 Bad Gateway' })).toEqual({
      kind: 'raw',
      text: 'HTTP 502 Bad Gateway',
    })
  })

  it('does not show a runtime error message that carries no code', () => {
    for (const value of [new TypeError('Failed to fetch'), 'boom', 42, null, undefined, { message: 'no code' }]) {
      expect(failureFromError(value)).toEqual({ kind: 'none' })
    }
    expect(describeFailure(zh, failureFromError(new TypeError('Failed to fetch'))).text).toBe(zhErrors.failure.generic)
  })
})

describe('known codes and verbatim text', () => {
  it('knows only own keys of the English table', () => {
    expect(isKnownErrorCode('answer_empty')).toBe(true)
    expect(isKnownErrorCode('toString')).toBe(false)
    expect(isKnownErrorCode('__proto__')).toBe(false)
    expect(isKnownErrorCode('')).toBe(false)
    expect(describeFailure(en, { kind: 'coded', code: 'constructor', message: 'Daemon words.' }).text).toBe('Daemon words.')
  })

  it('flags the failures shown in the daemon’s own words', () => {
    expect(isVerbatimFailure({ kind: 'coded', code: 'answer_empty', message: 'x' })).toBe(false)
    expect(isVerbatimFailure({ kind: 'coded', code: 'new_code', message: 'Words.' })).toBe(true)
    expect(isVerbatimFailure({ kind: 'coded', code: 'new_code' })).toBe(false)
    expect(isVerbatimFailure({ kind: 'raw', text: 'Words.' })).toBe(true)
    expect(isVerbatimFailure({ kind: 'raw', text: ' ' })).toBe(false)
    expect(isVerbatimFailure({ kind: 'none' })).toBe(false)
  })
})
