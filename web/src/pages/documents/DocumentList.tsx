// /app/documentos: the company's issued documents with filters (status, type, dates, client) in
// the address, paged 20 at a time (starting_after), each row leading to the document's page.
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type paths } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Status } from '../../ui/forms.tsx';
import { Select } from '../../ui/select.tsx';
import { useLoad } from '../../ui/data.tsx';
import { formatDate, formatMoney } from '../../format.ts';
import { ClientPicker, type PickedClient } from './ClientPicker.tsx';
import { StatusBadge } from './StatusBadge.tsx';

const STATUSES = ['', 'borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada'] as const;
const TYPES = ['', '01', '02', '03', '04', '08', '09', '10'] as const;
type Query = NonNullable<paths['/api/v1/invoices']['get']['parameters']['query']>;

/** dd/mm/yyyy date input value (yyyy-mm-dd) → the start of that day in Costa Rica. */
function crDay(value: string): string {
  return `${value}T00:00:00-06:00`;
}

function useQuery(params: URLSearchParams, cursor: string | undefined): Query {
  const q: Record<string, string | number> = { limit: 20 };
  const map = { estado: 'status', tipo: 'document_type', cliente: 'client', buscar: 'q' } as const;
  for (const [from, to] of Object.entries(map)) {
    const v = params.get(from);
    if (v) q[to] = v;
  }
  if (params.get('desde')) q.created_gte = crDay(params.get('desde')!);
  if (params.get('hasta'))
    q.created_lt = new Date(Date.parse(crDay(params.get('hasta')!)) + 86_400_000).toISOString();
  if (cursor) q.starting_after = cursor;
  return q as Query;
}

export function DocumentList() {
  const { t } = useTranslation();
  const session = useSession();
  const [params, setParams] = useSearchParams();
  const [cursors, setCursors] = useState<string[]>([]);
  const [client, setClient] = useState<PickedClient | null>(null);
  const query = useQuery(params, cursors.at(-1));
  const list = useLoad(
    () => unwrap(api.GET('/api/v1/invoices', { params: { query } })),
    [JSON.stringify(query), session.mode, session.current?.company.id],
  );
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setCursors([]);
    setParams(next);
  };
  const rows = list.data?.data ?? [];
  return (
    <Page title={t('docs.title')} wide>
      {session.can('write:invoices') || session.can('write:drafts') ? (
        <p className="actions">
          <Link className="button" to="/documentos/nuevo?tipo=01">
            {t('docs.new')}
          </Link>
        </p>
      ) : null}
      <form className="filters card" role="search" onSubmit={(e) => e.preventDefault()}>
        <Select
          id="f-status"
          label={t('docs.status')}
          value={params.get('estado') ?? ''}
          onChange={(v) => setFilter('estado', v)}
          options={[...STATUSES]}
          render={(v) => (v ? t(`statuses.${v}`) : t('common.all'))}
        />
        <Select
          id="f-type"
          label={t('doc.type')}
          value={params.get('tipo') ?? ''}
          onChange={(v) => setFilter('tipo', v)}
          options={[...TYPES]}
          render={(v) => (v ? t(`docTypes.${v}`) : t('common.all'))}
        />
        <DateFilter
          id="f-from"
          label={t('docs.from')}
          value={params.get('desde') ?? ''}
          onChange={(v) => setFilter('desde', v)}
        />
        <DateFilter
          id="f-to"
          label={t('docs.to')}
          value={params.get('hasta') ?? ''}
          onChange={(v) => setFilter('hasta', v)}
        />
        <ClientPicker
          value={client}
          onChange={(c) => {
            setClient(c);
            setFilter('cliente', c?.id ?? '');
          }}
        />
      </form>
      <Status kind="error">{list.error}</Status>
      <div className="table-wrap">
        <table>
          <caption className="sr-only">{t('docs.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('doc.type')}</th>
              <th scope="col">{t('docs.number')}</th>
              <th scope="col">{t('docs.date')}</th>
              <th scope="col">{t('docs.status')}</th>
              <th scope="col" className="num">
                {t('doc.total')}
              </th>
            </tr>
          </thead>
          <tbody id="list-body">
            {rows.map((i) => (
              <tr key={i.id} data-id={i.id}>
                <td>{t(`docTypes.${i.document_type}`)}</td>
                <td>
                  <Link to={`/documentos/${i.id}`}>{i.consecutivo ?? i.id}</Link>
                </td>
                <td>{formatDate(i.issue_date ?? i.created_at)}</td>
                <td>
                  <StatusBadge status={i.status} />
                </td>
                <td className="num">{formatMoney(i.total, i.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && rows.length === 0 ? <p>{t('docs.empty')}</p> : null}
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          {t('common.previous')}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={!list.data?.has_more}
          onClick={() => setCursors((c) => [...c, rows.at(-1)!.id])}
        >
          {t('common.next')}
        </button>
      </div>
    </Page>
  );
}

function DateFilter({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange(v: string): void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="date" value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}
