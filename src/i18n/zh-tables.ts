/**
 * The Chinese word tables, typed against the English ones: a key present in English and missing in
 * Chinese fails `tsc`, and so does a key only Chinese has (assignability both ways means the same
 * keys). A module of its own so the app can fetch it only when Chinese is shown.
 */
import type enApp from '../../locales/en/app.json'
import type enErrors from '../../locales/en/errors.json'
import zhAppJson from '../../locales/zh/app.json'
import zhErrorsJson from '../../locales/zh/errors.json'

// A missing zh key fails here ("Property 'x' is missing in type ...").
const zhApp: typeof enApp = zhAppJson
const zhErrors: typeof enErrors = zhErrorsJson
// A key only zh has fails here: assignability both ways means the same keys, at every depth.
const _zhAppHasNoExtraKeys = (en: typeof enApp): typeof zhAppJson => en
const _zhErrorsHaveNoExtraKeys = (en: typeof enErrors): typeof zhErrorsJson => en

/** The Chinese `translation` namespace: app chrome and errors merged, as for English. */
export const zhTranslation: typeof enApp & typeof enErrors = { ...zhApp, ...zhErrors }
