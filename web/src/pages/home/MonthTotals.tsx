// The month so far (Costa Rica time), as the monthly report computes it: sales, IVA due and
// credited, and the balance.
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { useLoad } from '../../ui/data.tsx';
import { formatMoney } from '../../format.ts';
import { currentMonth } from '../reports/Reports.tsx';

export function MonthTotals() {
  const { t } = useTranslation();
  const session = useSession();
  const month = currentMonth();
  const r = useLoad(
    () => unwrap(api.GET('/api/v1/reports/monthly', { params: { query: { month } } })),
    [session.mode, session.current?.company.id],
  );
  if (!r.data) return null;
  const x = r.data.totals;
  return (
    <section className="card" aria-labelledby="month-h">
      <h2 id="month-h">{t('home.month', { month })}</h2>
      <dl className="facts">
        <dt>{t('reports.sales')}</dt>
        <dd>{formatMoney(x.ventas)}</dd>
        <dt>{t('reports.ivaDue')}</dt>
        <dd>{formatMoney(x.iva_devengado)}</dd>
        <dt>{t('reports.ivaCredit')}</dt>
        <dd>{formatMoney(x.iva_acreditable)}</dd>
      </dl>
    </section>
  );
}
