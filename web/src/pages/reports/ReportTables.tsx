// The sections of the monthly report as tables: documents by type, sales by IVA rate, other
// taxes and received documents.
import { useTranslation } from 'react-i18next';
import type { components } from '../../../../client/src/schema.ts';
import { formatMoney } from '../../format.ts';

type Report = components['schemas']['MonthlyReport'];

function Table({
  id,
  title,
  head,
  rows,
}: {
  id: string;
  title: string;
  head: string[];
  rows: (string | number)[][];
}) {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{title}</h2>
      {rows.length === 0 ? (
        <p className="hint">{t('reports.none')}</p>
      ) : (
        <div className="table-wrap">
          <table id={id}>
            <thead>
              <tr>
                {head.map((h, i) => (
                  <th key={h} scope="col" className={i > 0 ? 'num' : undefined}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i}>
                  {r.map((c, j) => (
                    <td key={j} className={j > 0 ? 'num' : undefined}>
                      {c}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function ReportTables({ report: r }: { report: Report }) {
  const { t } = useTranslation();
  const m = formatMoney;
  return (
    <>
      <Table
        id="report-documents"
        title={t('reports.documents')}
        head={[t('doc.type'), t('reports.count'), t('reports.net'), t('doc.tax'), t('doc.total')]}
        rows={r.documents.map((d) => [
          t(`docTypes.${d.document_type}`),
          d.documents,
          m(d.total_venta_neta),
          m(d.total_impuesto),
          m(d.total_comprobante),
        ])}
      />
      <Table
        id="report-sales"
        title={t('reports.byRate')}
        head={[t('doc.type'), t('reports.category'), t('services.rate'), t('reports.base'), t('reports.iva')]}
        rows={r.sales.map((s) => [
          t(`docTypes.${s.document_type}`),
          s.category,
          s.rate_code ? t(`ivaRates.${s.rate_code}`, { defaultValue: s.rate_code }) : '—',
          m(s.sub_total),
          m(s.iva_net),
        ])}
      />
      <Table
        id="report-other"
        title={t('reports.otherTaxes')}
        head={[t('doc.type'), t('reports.code'), t('reports.amount')]}
        rows={r.other_taxes.map((o) => [t(`docTypes.${o.document_type}`), o.code, m(o.amount)])}
      />
      <Table
        id="report-received"
        title={t('reports.received')}
        head={[t('doc.type'), t('reports.count'), t('doc.total'), t('reports.ivaCredit')]}
        rows={r.received.map((x) => [
          `${t(`docTypes.${x.document_type}`)} · ${t(`answers.${x.answer}`)}`,
          x.documents,
          m(x.total),
          m(x.iva_credit),
        ])}
      />
    </>
  );
}
