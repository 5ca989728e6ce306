// Picking an issued document a note or a receipt refers to: by its consecutivo, clave or id
// (GET /api/v1/invoices?q=), or from the latest accepted ones.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { Field } from '../../ui/forms.tsx';
import { useLoad } from '../../ui/data.tsx';
import { formatDate, formatMoney } from '../../format.ts';

export type Invoice = components['schemas']['Invoice'];

export function DocumentPicker({
  value,
  onChange,
  filter,
}: {
  value: Invoice | null;
  onChange(inv: Invoice | null): void;
  filter?(inv: Invoice): boolean;
}) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const found = useLoad(
    () =>
      unwrap(
        api.GET('/api/v1/invoices', {
          params: { query: q.trim() ? { q: q.trim(), limit: 10 } : { status: 'aceptada', limit: 10 } },
        }),
      ),
    [q],
  );
  if (value)
    return (
      <div className="picked">
        <span>
          {t('doc.referenced')}:{' '}
          <strong>
            {t(`docTypes.${value.document_type}`)} {value.consecutivo}
          </strong>{' '}
          · {formatMoney(value.total, value.currency)}
        </span>
        <button type="button" className="secondary" onClick={() => onChange(null)}>
          {t('common.change')}
        </button>
      </div>
    );
  const shown = (found.data?.data ?? []).filter((i) => i.document_type !== '10' && (!filter || filter(i)));
  return (
    <div className="picker">
      <Field
        label={t('doc.findDocument')}
        hint={t('doc.findDocumentHint')}
        value={q}
        onChange={(e) => setQ(e.target.value)}
        autoComplete="off"
      />
      <ul className="choices" aria-live="polite">
        {shown.map((i) => (
          <li key={i.id}>
            <button type="button" className="secondary" onClick={() => onChange(i)}>
              {t(`docTypes.${i.document_type}`)} {i.consecutivo ?? i.id} ·{' '}
              {i.issue_date ? formatDate(i.issue_date) : ''} · {formatMoney(i.total, i.currency)}
            </button>
          </li>
        ))}
      </ul>
      {found.data && shown.length === 0 ? <p className="hint">{t('doc.noDocuments')}</p> : null}
    </div>
  );
}
