/**
 * Types `t()` from the English tables, so `t('errors.model_rate_limited')` type-checks and a key
 * that does not exist fails `tsc`. The runtime merge of the two files is in resources.ts.
 */
import 'i18next'
import type enApp from '../../locales/en/app.json'
import type enErrors from '../../locales/en/errors.json'

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation'
    resources: { translation: typeof enApp & typeof enErrors }
  }
}
