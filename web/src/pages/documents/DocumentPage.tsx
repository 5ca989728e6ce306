// /app/documentos/:id — one document: its status followed until Hacienda's answer (polled every
// 2 s while pendiente or enviada), Hacienda's explanation and warnings in the reader's language,
// lines and totals, the timeline, XML/PDF downloads, email resend, send (drafts), retry (where
// allowed) and the notes or receipt that can follow it.
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Status, useAction } from '../../ui/forms.tsx';
import { downloadFile, useLoad } from '../../ui/data.tsx';
import { formatDateTime, formatMoney } from '../../format.ts';
import type { Invoice } from './DocumentPicker.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import { Totals } from './Totals.tsx';
import { Explanation } from './Explanation.tsx';
import { Timeline } from './Timeline.tsx';

const MOVING = new Set(['pendiente', 'enviada']);

export function DocumentPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const doc = useLoad(() => unwrap(api.GET('/api/v1/invoices/{id}', { params: { path: { id } } })), [id]);
  const inv = doc.data;
  const moving = inv ? MOVING.has(inv.status) && !inv.processing_error?.permanent : false;
  useEffect(() => {
    if (!moving) return;
    const timer = setTimeout(doc.reload, 2000);
    return () => clearTimeout(timer);
  }, [moving, inv?.updated_at, doc.reload, doc.data]);
  if (!inv && doc.error && !doc.loading) return <Gone error={doc.error} />;
  if (!inv) return <p className="loading">{t('app.loading')}</p>;
  const title = `${t(`docTypes.${inv.document_type}`)} ${inv.consecutivo ?? ''}`.trim();
  return (
    <Page title={title} wide>
      <p className="doc-status" aria-live="polite">
        {t('docs.status')}: <StatusBadge status={inv.status} />{' '}
        {moving ? <span className="hint">{t('doc.waiting')}</span> : null}
      </p>
      <Explanation inv={inv} />
      <Facts inv={inv} />
      <Actions inv={inv} onChange={doc.reload} />
      <section className="card" aria-labelledby="lines-h">
        <h2 id="lines-h">{t('doc.lines')}</h2>
        <Lines inv={inv} />
        <Totals amounts={inv} />
      </section>
      <Timeline id={inv.id} version={inv.updated_at} />
    </Page>
  );
}

/** Another company's document, or none at all: the API answers 404, the page says "no encontrado". */
function Gone({ error }: { error: string }) {
  const { t } = useTranslation();
  return (
    <Page title={t('doc.notFound')}>
      <p>{error}</p>
    </Page>
  );
}

function Facts({ inv }: { inv: Invoice }) {
  const { t } = useTranslation();
  return (
    <dl className="facts card">
      <dt>{t('doc.clave')}</dt>
      <dd className="mono">{inv.clave ?? '—'}</dd>
      <dt>{t('docs.date')}</dt>
      <dd>{formatDateTime(inv.issue_date)}</dd>
      <dt>{t('doc.total')}</dt>
      <dd>{formatMoney(inv.total, inv.currency)}</dd>
      {inv.reference ? (
        <>
          <dt>{t('doc.referenced')}</dt>
          <dd>
            {inv.reference.document_id ? (
              <Link to={`/documentos/${inv.reference.document_id}`}>{inv.reference.clave}</Link>
            ) : (
              inv.reference.clave
            )}{' '}
            · {inv.reference.reason}
          </dd>
        </>
      ) : null}
      {inv.payment_status !== 'not_applicable' ? (
        <>
          <dt>{t('doc.balanceDueLabel')}</dt>
          <dd>{formatMoney(inv.balance_due, inv.currency)}</dd>
        </>
      ) : null}
      <dt>{t('doc.emailStatus')}</dt>
      <dd>{inv.email.status ? t(`emailStatuses.${inv.email.status}`) : '—'}</dd>
    </dl>
  );
}

function Lines({ inv }: { inv: Invoice }) {
  const { t } = useTranslation();
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t('services.description')}</th>
            <th scope="col" className="num">
              {t('doc.qty')}
            </th>
            <th scope="col" className="num">
              {t('doc.price')}
            </th>
            <th scope="col" className="num">
              {t('doc.total')}
            </th>
          </tr>
        </thead>
        <tbody>
          {inv.lines.map((l) => (
            <tr key={l.line_number}>
              <td>{l.line_number}</td>
              <td>{l.description}</td>
              <td className="num">{l.qty}</td>
              <td className="num">{formatMoney(l.unit_price, inv.currency)}</td>
              <td className="num">{formatMoney(l.total, inv.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Actions({ inv, onChange }: { inv: Invoice; onChange(): void }) {
  const { t } = useTranslation();
  const session = useSession();
  const action = useAction();
  const name = inv.consecutivo ?? inv.id;
  const write = session.can('write:invoices');
  const issued = inv.status === 'aceptada';
  const [done, setDone] = useState<string | null>(null);
  const run = (work: () => Promise<unknown>, message?: string) =>
    void action.run(async () => {
      setDone(null);
      await work();
      if (message) setDone(message);
      onChange();
    });
  const path = { params: { path: { id: inv.id } } };
  return (
    <section className="card" aria-labelledby="actions-h">
      <h2 id="actions-h">{t('doc.actions')}</h2>
      <Status kind="error">{action.error}</Status>
      <Status kind="success">{done}</Status>
      <div className="actions">
        {inv.clave ? (
          <>
            <button
              type="button"
              className="secondary"
              onClick={() => run(() => downloadFile(`/api/v1/invoices/${inv.id}/xml`, `${name}.xml`))}
            >
              {t('doc.downloadXml')}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => run(() => downloadFile(`/api/v1/invoices/${inv.id}/pdf`, `${name}.pdf`))}
            >
              {t('doc.downloadPdf')}
            </button>
          </>
        ) : null}
        {inv.status === 'aceptada' || inv.status === 'rechazada' ? (
          <button
            type="button"
            className="secondary"
            onClick={() =>
              run(() => downloadFile(`/api/v1/invoices/${inv.id}/response`, `${name}-respuesta.xml`))
            }
          >
            {t('doc.downloadResponse')}
          </button>
        ) : null}
        {write && issued ? (
          <button
            type="button"
            className="secondary"
            onClick={() =>
              run(
                () => unwrap(api.POST('/api/v1/invoices/{id}/email', { ...path, body: {} })),
                t('doc.emailQueued'),
              )
            }
          >
            {t('doc.resendEmail')}
          </button>
        ) : null}
        {write && inv.status === 'borrador' ? (
          <button
            type="button"
            onClick={() => run(() => unwrap(api.POST('/api/v1/invoices/{id}/send', path)))}
          >
            {t('doc.sendDraft')}
          </button>
        ) : null}
        {write && inv.status === 'pendiente' && inv.processing_error?.permanent ? (
          <button
            type="button"
            onClick={() => run(() => unwrap(api.POST('/api/v1/invoices/{id}/retry', path)))}
          >
            {t('doc.retry')}
          </button>
        ) : null}
        {write && issued && ['01', '04', '09', '08'].includes(inv.document_type) ? (
          <>
            <Link className="button secondary" to={`/documentos/nuevo?tipo=03&de=${inv.id}`}>
              {t('doc.makeCredit')}
            </Link>
            <Link className="button secondary" to={`/documentos/nuevo?tipo=02&de=${inv.id}`}>
              {t('doc.makeDebit')}
            </Link>
          </>
        ) : null}
      </div>
    </section>
  );
}
