// /app/servicios: the company's products and services, with a new one (CABYS search), the price
// and description edited (PATCH /api/v1/services/{id}) and archive / unarchive.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, request, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { useLoad } from '../../ui/data.tsx';
import { formatMoney } from '../../format.ts';
import { ServiceForm } from './ServiceForm.tsx';

type Service = components['schemas']['Service'] & { archived?: boolean };

export function Services() {
  const { t } = useTranslation();
  const session = useSession();
  const [archived, setArchived] = useState(false);
  const [adding, setAdding] = useState(false);
  const list = useLoad(() => {
    const query = { limit: 100, ...(archived ? { include_archived: true } : {}) };
    return unwrap(api.GET('/api/v1/services', { params: { query: query as { limit: number } } }));
  }, [archived, session.mode, session.current?.company.id]);
  const rows = (list.data?.data ?? []) as Service[];
  const write = session.can('write:services');
  return (
    <Page title={t('services.title')} wide>
      <label className="check">
        <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} />{' '}
        {t('catalog.showArchived')}
      </label>
      {write ? (
        <div className="actions">
          <button type="button" onClick={() => setAdding((a) => !a)} aria-expanded={adding}>
            {t('doc.newService')}
          </button>
        </div>
      ) : null}
      {adding ? (
        <div className="card">
          <ServiceForm
            onSaved={() => {
              setAdding(false);
              list.reload();
            }}
          />
        </div>
      ) : null}
      <Status kind="error">{list.error}</Status>
      {!list.loading && rows.length === 0 ? <p>{t('catalog.empty')}</p> : null}
      <ul className="cards">
        {rows.map((s) => (
          <ServiceCard key={s.id} service={s} write={write} onChange={list.reload} />
        ))}
      </ul>
    </Page>
  );
}

function ServiceCard({
  service: s,
  write,
  onChange,
}: {
  service: Service;
  write: boolean;
  onChange(): void;
}) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [description, setDescription] = useState(s.description);
  const [price, setPrice] = useState(s.price);
  const action = useAction();
  const save = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await request('PATCH', `/api/v1/services/${s.id}`, { description, price: price.replace(',', '.') });
      setEditing(false);
      onChange();
    });
  };
  const archive = () =>
    void action.run(async () => {
      await request('POST', `/api/v1/services/${s.id}/${s.archived ? 'unarchive' : 'archive'}`);
      onChange();
    });
  return (
    <li className="card">
      <h2>
        {s.description} {s.archived ? <span className="badge">{t('catalog.archived')}</span> : null}
      </h2>
      <p>
        <span className="mono">{s.cabys}</span> ·{' '}
        {t(`ivaRates.${s.iva_rate_code}`, { defaultValue: s.iva_rate_code })} · {formatMoney(s.price)}
      </p>
      <Status kind="error">{action.error}</Status>
      {editing ? (
        <form onSubmit={save} noValidate>
          <Field
            label={t('services.description')}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            error={action.failure?.forField('description')}
          />
          <Field
            label={t('services.price')}
            value={price}
            inputMode="decimal"
            onChange={(e) => setPrice(e.target.value)}
            error={action.failure?.forField('price')}
          />
          <div className="actions">
            <button type="submit" disabled={action.pending}>
              {t('common.save')}
            </button>
          </div>
        </form>
      ) : null}
      {write ? (
        <div className="actions">
          <button
            type="button"
            className="secondary"
            onClick={() => setEditing((e) => !e)}
            aria-expanded={editing}
          >
            {t('common.edit')}
          </button>
          <button type="button" className="danger" onClick={archive} disabled={action.pending}>
            {s.archived ? t('catalog.unarchive') : t('catalog.archive')}
          </button>
        </div>
      ) : null}
    </li>
  );
}
