// Creating a product or service: a CABYS code found by words (GET /api/v1/cabys?q=), description,
// unit, IVA rate and price (POST /api/v1/services).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { useLoad } from '../../ui/data.tsx';

type Service = components['schemas']['Service'];
type Body = components['schemas']['CreateServiceRequest'];

const UNITS = ['Unid', 'Sp', 'h', 'L', 'Os'] as const;
const RATES = ['08', '04', '03', '02', '01', '10', '11'] as const;

function CabysSearch({
  value,
  onPick,
  error,
}: {
  value: string;
  onPick(code: string): void;
  error?: string | null;
}) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const found = useLoad(
    () =>
      q.trim().length < 3
        ? Promise.resolve(null)
        : unwrap(api.GET('/api/v1/cabys', { params: { query: { q: q.trim(), limit: 8 } } })),
    [q],
  );
  return (
    <div className="picker">
      <Field
        label={t('services.cabysSearch')}
        value={q}
        onChange={(e) => setQ(e.target.value)}
        error={error}
        hint={value ? t('services.cabysChosen', { code: value }) : undefined}
        autoComplete="off"
      />
      <ul className="choices" aria-live="polite">
        {(found.data?.cabys ?? []).map((c) => (
          <li key={c.codigo}>
            <button
              type="button"
              className={c.codigo === value ? '' : 'secondary'}
              aria-pressed={c.codigo === value}
              onClick={() => onPick(c.codigo)}
            >
              {c.codigo} · {c.descripcion} ({c.impuesto_texto})
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ServiceForm({ onSaved }: { onSaved(s: Service): void }) {
  const { t } = useTranslation();
  const [cabys, setCabys] = useState('');
  const [description, setDescription] = useState('');
  const [unit, setUnit] = useState<string>('Unid');
  const [rate, setRate] = useState<string>('08');
  const [price, setPrice] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation(); // inside a dialog of another form: that form is not submitted
    void action.run(async () => {
      const body = { cabys, description, unit, iva_rate_code: rate, price: price.replace(',', '.') } as Body;
      onSaved(await unwrap(api.POST('/api/v1/services', { body })));
    });
  };
  const f = action.failure;
  return (
    <form onSubmit={submit} noValidate>
      <Status kind="error">{action.error}</Status>
      <CabysSearch value={cabys} onPick={setCabys} error={f?.forField('cabys')} />
      <Field
        label={t('services.description')}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        required
        error={f?.forField('description')}
      />
      <div className="field">
        <label htmlFor="svc-unit">{t('services.unit')}</label>
        <select id="svc-unit" value={unit} onChange={(e) => setUnit(e.target.value)}>
          {UNITS.map((u) => (
            <option key={u} value={u}>
              {t(`units.${u}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="svc-rate">{t('services.rate')}</label>
        <select id="svc-rate" value={rate} onChange={(e) => setRate(e.target.value)}>
          {RATES.map((r) => (
            <option key={r} value={r}>
              {t(`ivaRates.${r}`)}
            </option>
          ))}
        </select>
      </div>
      <Field
        label={t('services.price')}
        value={price}
        onChange={(e) => setPrice(e.target.value)}
        inputMode="decimal"
        required
        error={f?.forField('price')}
      />
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}
