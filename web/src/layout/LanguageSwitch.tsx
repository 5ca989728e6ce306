import { useTranslation } from 'react-i18next';
import { LANGUAGES, currentLanguage, setLanguage, type Language } from '../i18n/index.ts';

const NAMES: Record<Language, string> = { 'es-CR': 'Español', en: 'English' };

/** The language switch: a labelled select, Spanish (Costa Rica) first. */
export function LanguageSwitch() {
  const { t } = useTranslation();
  return (
    <div className="control">
      <label htmlFor="language">{t('layout.language')}</label>
      <select
        id="language"
        value={currentLanguage()}
        onChange={(e) => void setLanguage(e.target.value as Language)}
      >
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
