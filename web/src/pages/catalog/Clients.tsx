// /app/clientes: the company's clients, searched by name, each editable (PATCH
// /api/v1/clients/{id}) and archived or brought back (…/archive, …/unarchive); archived ones are
// shown only when asked.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, request, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { MoreButton, useLoad } from '../../ui/data.tsx';
import { formatMoney } from '../../format.ts';

type Client = components['schemas']['Client'] & { archived?: boolean };

export function Clients() {
  const { t } = useTranslation();
  const session = useSession();
  const [name, setName] = useState('');
  const [archived, setArchived] = useState(false);
  const [limit, setLimit] = useState(25);
  const list = useLoad(() => {
    const query = {
      limit: Math.min(limit, 100),
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(archived ? { include_archived: true } : {}),
    };
    return unwrap(api.GET('/api/v1/clients', { params: { query: query as { limit: number } } }));
  }, [name, archived, limit, session.mode, session.current?.company.id]);
  const rows = (list.data?.data ?? []) as Client[];
  const write = session.can('write:clients');
  return (
    <Page title={t('clients.title')} wide>
      <div className="filters card" role="search">
        <Field label={t('clients.search')} value={name} onChange={(e) => setName(e.target.value)} />
        <label className="check">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} />{' '}
          {t('catalog.showArchived')}
        </label>
      </div>
      <Status kind="error">{list.error}</Status>
      {!list.loading && rows.length === 0 ? <p>{t('catalog.empty')}</p> : null}
      <ul className="cards">
        {rows.map((c) => (
          <ClientCard key={c.id} client={c} write={write} onChange={list.reload} />
        ))}
      </ul>
      <MoreButton
        hasMore={Boolean(list.data?.has_more) && limit < 100}
        onMore={() => setLimit((l) => l + 25)}
      />
    </Page>
  );
}

function ClientCard({ client: c, write, onChange }: { client: Client; write: boolean; onChange(): void }) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const archive = () =>
    void action.run(async () => {
      await request('POST', `/api/v1/clients/${c.id}/${c.archived ? 'unarchive' : 'archive'}`);
      onChange();
    });
  return (
    <li className="card">
      <h2>
        {c.name} {c.archived ? <span className="badge">{t('catalog.archived')}</span> : null}
      </h2>
      <p>
        {c.cedula} · {c.email ?? '—'} · {t('clients.balance')}: {formatMoney(c.balance)}
      </p>
      <Status kind="error">{action.error}</Status>
      {editing ? (
        <ClientEdit
          client={c}
          onDone={() => {
            setEditing(false);
            onChange();
          }}
        />
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
            {c.archived ? t('catalog.unarchive') : t('catalog.archive')}
          </button>
        </div>
      ) : null}
    </li>
  );
}

function ClientEdit({ client, onDone }: { client: Client; onDone(): void }) {
  const { t } = useTranslation();
  const [name, setName] = useState(client.name);
  const [email, setEmail] = useState(client.email ?? '');
  const [phone, setPhone] = useState(client.phone ?? '');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await request('PATCH', `/api/v1/clients/${client.id}`, {
        name,
        ...(email ? { email } : {}),
        ...(phone ? { phone } : {}),
      });
      onDone();
    });
  };
  const f = action.failure;
  return (
    <form onSubmit={submit} noValidate>
      <Status kind="error">{action.error}</Status>
      <Field
        label={t('clients.name')}
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
      <Field
        label={t('clients.phone')}
        type="tel"
        value={phone}
        onChange={(e) => setPhone(e.target.value)}
        error={f?.forField('phone')}
      />
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}
