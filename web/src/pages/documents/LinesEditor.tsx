// The lines of a document being written: each names a product or service of the catalogue, with
// quantity, unit price and discount (percent). The taxes are the service's; the amounts each line
// comes to are the server's (the preview), shown beside it.
import { useTranslation } from 'react-i18next';
import type { components } from '../../../../client/src/schema.ts';
import { formatMoney } from '../../format.ts';
import { ServicePicker, type Service } from './ServicePicker.tsx';

export interface DraftLine {
  key: number;
  service: Service;
  qty: string;
  price: string;
  discount: string;
}

type PreviewLine = components['schemas']['InvoiceLine'];

let nextKey = 1;
export function lineFor(service: Service): DraftLine {
  return { key: nextKey++, service, qty: '1', price: service.price.replace('.', ','), discount: '' };
}

/** The body's lines (decimal comma accepted as typed). */
export function linesBody(lines: DraftLine[]) {
  return lines.map((l) => ({
    service_id: l.service.id,
    qty: l.qty.replace(',', '.'),
    unit_price: l.price.replace(',', '.'),
    ...(l.discount.trim() ? { discount: { percent: l.discount.replace(',', '.') } } : {}),
  }));
}

interface Props {
  lines: DraftLine[];
  onChange(lines: DraftLine[]): void;
  services: Service[];
  onServiceCreated(s: Service): void;
  preview: PreviewLine[] | null;
  currency: string;
  fieldError(path: string): string | null;
}

export function LinesEditor({
  lines,
  onChange,
  services,
  onServiceCreated,
  preview,
  currency,
  fieldError,
}: Props) {
  const { t } = useTranslation();
  const set = (key: number, patch: Partial<DraftLine>) =>
    onChange(lines.map((l) => (l.key === key ? { ...l, ...patch } : l)));
  return (
    <fieldset className="card">
      <legend>{t('doc.lines')}</legend>
      <ol className="lines">
        {lines.map((l, i) => (
          <li key={l.key} className="line">
            <p className="line-title">
              <strong>{l.service.description}</strong> <span className="mono">{l.service.cabys}</span>
            </p>
            <div className="line-fields">
              <LineInput
                label={t('doc.qty')}
                value={l.qty}
                onChange={(v) => set(l.key, { qty: v })}
                error={fieldError(`lines/${i}/qty`)}
              />
              <LineInput
                label={t('doc.price')}
                value={l.price}
                onChange={(v) => set(l.key, { price: v })}
                error={fieldError(`lines/${i}/unit_price`)}
              />
              <LineInput
                label={t('doc.discount')}
                value={l.discount}
                onChange={(v) => set(l.key, { discount: v })}
                error={fieldError(`lines/${i}/discount/percent`)}
              />
            </div>
            <p className="line-total" aria-live="polite">
              {preview?.[i]
                ? t('doc.lineTotals', {
                    tax:
                      preview[i].taxes
                        .map((x) => `${x.rate ?? ''} % ${formatMoney(x.amount, currency)}`)
                        .join(' + ') || '—',
                    total: formatMoney(preview[i].total, currency),
                  })
                : null}
            </p>
            <button
              type="button"
              className="danger"
              onClick={() => onChange(lines.filter((x) => x.key !== l.key))}
            >
              {t('doc.removeLine', { n: i + 1 })}
            </button>
          </li>
        ))}
      </ol>
      {fieldError('lines') ? <p className="field-error">{fieldError('lines')}</p> : null}
      <ServicePicker
        services={services}
        label={t('doc.addLine')}
        onPick={(s) => onChange([...lines, lineFor(s)])}
        onCreated={(s) => {
          onServiceCreated(s);
          onChange([...lines, lineFor(s)]);
        }}
      />
    </fieldset>
  );
}

function LineInput({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: string;
  onChange(v: string): void;
  error: string | null;
}) {
  return (
    <label className="line-input">
      <span>{label}</span>
      <input
        value={value}
        inputMode="decimal"
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
      />
      {error ? <span className="field-error">{error}</span> : null}
    </label>
  );
}
