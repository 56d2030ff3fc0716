import { useTranslation } from '../i18n/use-translation'
import { SUPPORTED_LANGUAGES, type Language } from '../i18n/resources'
import { currentLanguage, setLanguage } from '../i18n/setup'

/** English / 简体中文, in the header. The choice is remembered by the language detector. */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation()
  const current = currentLanguage(i18n)
  return (
    <div className="language-switch" role="group" aria-label={t('app.language')}>
      {SUPPORTED_LANGUAGES.map((lng: Language) => (
        <button
          key={lng}
          type="button"
          lang={lng === 'zh' ? 'zh-Hans' : 'en'}
          className="button button--toggle"
          aria-pressed={lng === current}
          onClick={() => void setLanguage(i18n, lng)}
        >
          {t(`app.languages.${lng}`)}
        </button>
      ))}
    </div>
  )
}
