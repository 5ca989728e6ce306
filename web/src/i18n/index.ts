// The application's languages: Spanish (Costa Rica) first and by default, English second. The
// choice is kept in localStorage and mirrored on <html lang>; the signed-in person's own language
// (user.locale) is applied by the session once known.
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import es from './es-CR.json';
import en from './en.json';
import esPages from './pages.es-CR.json';
import enPages from './pages.en.json';

export const LANGUAGES = ['es-CR', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
const STORAGE_KEY = 'factura.language';

export function isLanguage(value: unknown): value is Language {
  return LANGUAGES.includes(value as Language);
}

function storedLanguage(): Language {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return isLanguage(stored) ? stored : 'es-CR';
  } catch {
    return 'es-CR';
  }
}

/** Switches the language of every page, remembers it and sets <html lang>. */
export async function setLanguage(language: Language): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // private mode: the choice lasts this page only
  }
  await i18n.changeLanguage(language);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : 'es-CR';
}

i18n.on('languageChanged', (lng) => {
  document.documentElement.lang = lng;
});

type Strings = { [key: string]: string | Strings };

/** The frame's strings with the pages' (pages.*.json: documents, reports, developers…) laid over. */
function merged(base: Strings, over: Strings): Strings {
  const out: Strings = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = typeof v === 'object' && typeof b === 'object' ? merged(b, v) : v;
  }
  return out;
}

void i18n.use(initReactI18next).init({
  resources: {
    'es-CR': { translation: merged(es as Strings, esPages as Strings) },
    en: { translation: merged(en as Strings, enPages as Strings) },
  },
  lng: storedLanguage(),
  fallbackLng: 'es-CR',
  interpolation: { escapeValue: false },
  returnNull: false,
});
document.documentElement.lang = i18n.language;

export default i18n;
