// The product or service of a line: filter the company's catalogue (GET /api/v1/services) by its
// description or CABYS code, or create one on the spot with a CABYS search (GET /api/v1/cabys?q=).
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { Field } from '../../ui/forms.tsx';
import { useLoad } from '../../ui/data.tsx';
import { formatMoney } from '../../format.ts';
import { Dialog } from './Dialog.tsx';
import { ServiceForm } from '../catalog/ServiceForm.tsx';

export type Service = components['schemas']['Service'];

/** The company's catalogue, loaded once per page. */
export function useServices() {
  return useLoad(() => unwrap(api.GET('/api/v1/services', { params: { query: { limit: 100 } } })), []);
}

function matches(s: Service, q: string): boolean {
  const words = q.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').split(/\s+/).filter(Boolean);
  const text = `${s.description} ${s.cabys} ${s.commercial_code ?? ''}`
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '');
  return words.every((w) => text.includes(w));
}

export function ServicePicker({
  services,
  label,
  onPick,
  onCreated,
}: {
  services: Service[];
  label: string;
  onPick(s: Service): void;
  onCreated(s: Service): void;
}) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const [creating, setCreating] = useState(false);
  const shown = q.trim() ? services.filter((s) => matches(s, q)).slice(0, 8) : [];
  return (
    <div className="picker">
      <Field label={label} value={q} onChange={(e) => setQ(e.target.value)} autoComplete="off" />
      <ul className="choices" aria-live="polite">
        {shown.map((s) => (
          <li key={s.id}>
            <button type="button" className="secondary" onClick={() => onPick(s)}>
              {s.description} · {formatMoney(s.price)}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="secondary" onClick={() => setCreating(true)}>
        {t('doc.newService')}
      </button>
      <Dialog open={creating} title={t('doc.newService')} onClose={() => setCreating(false)}>
        <ServiceForm
          onSaved={(s) => {
            setCreating(false);
            onCreated(s);
          }}
        />
      </Dialog>
    </div>
  );
}
