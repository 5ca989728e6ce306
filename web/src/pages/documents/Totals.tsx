// The totals of a document as the server computed them (preview or issued invoice): subtotal,
// discounts, each tax by rate, other charges and the total.
import { useTranslation } from 'react-i18next';
import type { components } from '../../../../client/src/schema.ts';
import { formatMoney } from '../../format.ts';

type Amounts = Pick<
  components['schemas']['Invoice'],
  'subtotal' | 'total_discount' | 'total_tax' | 'total' | 'tax_breakdown' | 'currency' | 'totals'
>;

export function Totals({ amounts, pending }: { amounts: Amounts | null; pending?: boolean }) {
  const { t } = useTranslation();
  if (!amounts) return <p className="hint">{t('doc.totalsEmpty')}</p>;
  const c = amounts.currency;
  const other = amounts.totals.total_otros_cargos;
  return (
    <dl className="facts totals" aria-busy={pending || undefined} data-testid="totals">
      <dt>{t('doc.subtotal')}</dt>
      <dd>{formatMoney(amounts.subtotal, c)}</dd>
      <dt>{t('doc.discounts')}</dt>
      <dd>{formatMoney(amounts.total_discount, c)}</dd>
      {amounts.tax_breakdown.map((x, i) => (
        <TaxRow
          key={i}
          label={t('doc.taxRate', { rate: x.rate ?? x.code })}
          amount={formatMoney(x.amount, c)}
        />
      ))}
      <dt>{t('doc.tax')}</dt>
      <dd>{formatMoney(amounts.total_tax, c)}</dd>
      {other && Number(other) !== 0 ? (
        <TaxRow label={t('doc.otherCharges')} amount={formatMoney(other, c)} />
      ) : null}
      <dt className="total">{t('doc.total')}</dt>
      <dd className="total" data-testid="total">
        {formatMoney(amounts.total, c)}
      </dd>
    </dl>
  );
}

function TaxRow({ label, amount }: { label: string; amount: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{amount}</dd>
    </>
  );
}
