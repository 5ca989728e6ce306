// /app/reportes: a month, its figures as the report answers them (documents, sales by IVA rate,
// other taxes, received documents, the D-104 lines and the totals) and downloads of the same
// report in CSV or XLSX and of the month's archive (ZIP of XMLs, answers and PDFs).
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Status, useAction } from '../../ui/forms.tsx';
import { downloadFile, useLoad } from '../../ui/data.tsx';
import { formatMoney } from '../../format.ts';
import { ReportTables } from './ReportTables.tsx';

/** This month in Costa Rica (UTC-6), YYYY-MM. */
export function currentMonth(): string {
  return new Date(Date.now() - 6 * 3600_000).toISOString().slice(0, 7);
}

export function Reports() {
  const { t, i18n } = useTranslation();
  const session = useSession();
  const [month, setMonth] = useState(currentMonth());
  const valid = /^\d{4}-\d{2}$/.test(month);
  const report = useLoad(
    () =>
      valid
        ? unwrap(api.GET('/api/v1/reports/monthly', { params: { query: { month } } }))
        : Promise.resolve(null),
    [month, session.mode, session.current?.company.id],
  );
  const action = useAction();
  const file = (name: string, path: string, query: Record<string, string>) =>
    void action.run(() => downloadFile(path, name, { month, ...query }));
  const r = report.data;
  const en = i18n.language === 'en';
  return (
    <Page title={t('reports.title')} wide>
      <div className="field">
        <label htmlFor="report-month">{t('reports.month')}</label>
        <input id="report-month" type="month" value={month} onChange={(e) => setMonth(e.target.value)} />
      </div>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => file(`reporte-${month}.csv`, '/api/v1/reports/monthly', { format: 'csv' })}
        >
          {t('reports.csv')}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => file(`reporte-${month}.xlsx`, '/api/v1/reports/monthly', { format: 'xlsx' })}
        >
          {t('reports.xlsx')}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => file(`comprobantes-${month}.zip`, '/api/v1/reports/monthly/archive', {})}
        >
          {t('reports.zip')}
        </button>
      </div>
      <Status kind="error">{action.error ?? report.error}</Status>
      {r ? (
        <>
          <dl className="facts card" data-testid="report-totals">
            <dt>{t('reports.sales')}</dt>
            <dd>{formatMoney(r.totals.ventas)}</dd>
            <dt>{t('reports.ivaDue')}</dt>
            <dd>{formatMoney(r.totals.iva_devengado)}</dd>
            <dt>{t('reports.ivaCredit')}</dt>
            <dd>{formatMoney(r.totals.iva_acreditable)}</dd>
            <dt>{t('reports.balance')}</dt>
            <dd>{formatMoney(r.totals.saldo)}</dd>
          </dl>
          <ReportTables report={r} />
          <section className="card" aria-labelledby="d104-h">
            <h2 id="d104-h">{t('reports.d104')}</h2>
            <dl className="facts">
              {r.d104.map((l) => (
                <Row key={l.key} label={en ? l.label_en : l.label_es} value={formatMoney(l.amount)} />
              ))}
            </dl>
          </section>
        </>
      ) : null}
    </Page>
  );
}

function Row({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </>
  );
}
