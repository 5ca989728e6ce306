// Hacienda's explanation of a document: why it was rejected (each item in the reader's language,
// with how to fix it), its warnings, or why the service could not send it.
import { useTranslation } from 'react-i18next';
import type { Invoice } from './DocumentPicker.tsx';

export function Explanation({ inv }: { inv: Invoice }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'es';
  const r = inv.rejection_reason;
  return (
    <>
      {r ? (
        <section className="status status-error" aria-labelledby="why-h" data-testid="explanation">
          <h2 id="why-h">{t('doc.rejectedWhy')}</h2>
          <p>{r.summary[lang] || r.message}</p>
          <ul>
            {r.items.map((x, i) => (
              <li key={i}>
                {x.readable?.[lang] ?? x.message}
                {x.fix ? <> — {x.fix[lang]}</> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {inv.warnings.length > 0 ? (
        <section className="status status-info" aria-labelledby="warn-h" data-testid="warnings">
          <h2 id="warn-h">{t('doc.warnings')}</h2>
          <ul>
            {inv.warnings.map((w, i) => (
              <li key={i}>
                {w.readable[lang] || w.message} — {w.fix[lang]}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {inv.processing_error ? (
        <p className="status status-error">
          {t('doc.processingError')}: {inv.processing_error.message}
        </p>
      ) : null}
    </>
  );
}
