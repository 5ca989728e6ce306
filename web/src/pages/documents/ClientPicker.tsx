// The client of a document: search by name (GET /api/v1/clients?name=), pick one, or create one on
// the spot in a dialog (POST /api/v1/clients, filled from Hacienda's register when asked).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { useLoad } from '../../ui/data.tsx';
import { Dialog } from './Dialog.tsx';

export interface PickedClient {
  id: string;
  name: string;
  cedula: string;
}

export function ClientPicker({
  value,
  onChange,
  error,
}: {
  value: PickedClient | null;
  onChange(c: PickedClient | null): void;
  error?: string | null;
}) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const [creating, setCreating] = useState(false);
  const found = useLoad(
    () =>
      q.trim().length < 2
        ? Promise.resolve(null)
        : unwrap(api.GET('/api/v1/clients', { params: { query: { name: q.trim(), limit: 8 } } })),
    [q],
  );
  if (value)
    return (
      <div className="picked">
        <span>
          {t('doc.client')}: <strong>{value.name}</strong> ({value.cedula})
        </span>
        <button type="button" className="secondary" onClick={() => onChange(null)}>
          {t('common.change')}
        </button>
      </div>
    );
  return (
    <div className="picker">
      <Field
        label={t('doc.clientSearch')}
        value={q}
        onChange={(e) => setQ(e.target.value)}
        error={error}
        autoComplete="off"
      />
      <ul className="choices" aria-live="polite">
        {(found.data?.data ?? []).map((c) => (
          <li key={c.id}>
            <button
              type="button"
              className="secondary"
              onClick={() => onChange({ id: c.id, name: c.name, cedula: c.cedula })}
            >
              {c.name} · {c.cedula}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="secondary" onClick={() => setCreating(true)}>
        {t('doc.newClient')}
      </button>
      <Dialog open={creating} title={t('doc.newClient')} onClose={() => setCreating(false)}>
        <NewClientForm
          onCreated={(c) => {
            setCreating(false);
            onChange(c);
          }}
        />
      </Dialog>
    </div>
  );
}

function NewClientForm({ onCreated }: { onCreated(c: PickedClient): void }) {
  const { t } = useTranslation();
  const [cedula, setCedula] = useState('');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation(); // inside a dialog of another form: that form is not submitted
    void action.run(async () => {
      const body = { cedula, ...(name ? { name } : { lookup: true }), ...(email ? { email } : {}) };
      const c = await unwrap(api.POST('/api/v1/clients', { body }));
      onCreated({ id: c.id, name: c.name, cedula: c.cedula });
    });
  };
  const f = action.failure;
  return (
    <form onSubmit={submit} noValidate>
      <Status kind="error">{action.error}</Status>
      <Field
        label={t('clients.cedula')}
        value={cedula}
        onChange={(e) => setCedula(e.target.value)}
        required
        inputMode="numeric"
        error={f?.forField('cedula')}
      />
      <Field
        label={t('clients.name')}
        hint={t('clients.nameHint')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={f?.forField('name')}
      />
      <Field
        label={t('clients.email')}
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={f?.forField('email')}
      />
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {t('common.create')}
        </button>
      </div>
    </form>
  );
}
