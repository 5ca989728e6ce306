// The chart of accounts every company starts with (per mode), and the journal entry an issued
// invoice produces. Amounts are booked in colones: an invoice in another currency is converted
// with its own exchange rate, each account amount rounded to 5 decimals and the receivable taken
// as the sum of the rounded credits, so every entry balances by construction.
import { Decimal } from 'decimal.js';

export const ACCOUNT_ROLES = [
  'cash',
  'receivables',
  'iva_payable',
  'revenue_goods',
  'revenue_services',
] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

export const DEFAULT_CHART: {
  code: string;
  name: string;
  type: 'asset' | 'liability' | 'revenue';
  role: AccountRole;
}[] = [
  { code: '1101', name: 'Caja y bancos', type: 'asset', role: 'cash' },
  { code: '1201', name: 'Cuentas por cobrar a clientes', type: 'asset', role: 'receivables' },
  { code: '2101', name: 'IVA por pagar', type: 'liability', role: 'iva_payable' },
  { code: '4101', name: 'Ingresos por venta de bienes', type: 'revenue', role: 'revenue_goods' },
  { code: '4102', name: 'Ingresos por prestación de servicios', type: 'revenue', role: 'revenue_services' },
];

export interface PostingLine {
  role: AccountRole;
  debit: string;
  credit: string;
}

export interface InvoicePostingInput {
  /** Net sales (SubTotal after discounts) of goods and of services, in the invoice currency. */
  netGoods: string;
  netServices: string;
  totalTax: string;
  /** Other charges and IVA returned change the receivable; they are booked with the revenue. */
  otherCharges?: string;
  exchangeRate: string;
}

const crc = (amount: string, rate: string) =>
  new Decimal(amount).times(rate).toDecimalPlaces(5, Decimal.ROUND_HALF_UP);

/** Debit receivables; credit revenue (goods, services) and IVA payable. */
export function invoicePosting(input: InvoicePostingInput): PostingLine[] {
  const goods = crc(input.netGoods, input.exchangeRate).plus(
    crc(input.otherCharges ?? '0', input.exchangeRate),
  );
  const services = crc(input.netServices, input.exchangeRate);
  const tax = crc(input.totalTax, input.exchangeRate);
  const credits: PostingLine[] = [];
  if (goods.gt(0)) credits.push({ role: 'revenue_goods', debit: '0', credit: goods.toFixed(5) });
  if (services.gt(0)) credits.push({ role: 'revenue_services', debit: '0', credit: services.toFixed(5) });
  if (tax.gt(0)) credits.push({ role: 'iva_payable', debit: '0', credit: tax.toFixed(5) });
  const receivable = goods.plus(services).plus(tax);
  if (receivable.isZero()) return [];
  return [{ role: 'receivables', debit: receivable.toFixed(5), credit: '0' }, ...credits];
}

/** The same lines with debits and credits swapped. */
export function reversal(lines: PostingLine[]): PostingLine[] {
  return lines.map((l) => ({ role: l.role, debit: l.credit, credit: l.debit }));
}

/** The colones amount of an entry (its total debits). */
export function postingTotal(lines: PostingLine[]): string {
  return lines.reduce((s, l) => s.plus(l.debit), new Decimal(0)).toFixed(5);
}

/** The issue entry of an invoice from its computed totals (goods and services by line kind). */
export function invoicePostingFromTotals(
  totals: {
    lines: readonly { kind: string; subTotal: string }[];
    summary: { totalImpuesto: string; totalOtrosCargos?: string | null; totalIVADevuelto?: string | null };
  },
  exchangeRate: string,
): PostingLine[] {
  let goods = new Decimal(0);
  let services = new Decimal(0);
  for (const l of totals.lines) {
    if (l.kind === 'services') services = services.plus(l.subTotal);
    else goods = goods.plus(l.subTotal);
  }
  const s = totals.summary;
  const other = new Decimal(s.totalOtrosCargos ?? 0).minus(s.totalIVADevuelto ?? 0);
  return invoicePosting({
    netGoods: goods.toFixed(5),
    netServices: services.toFixed(5),
    totalTax: s.totalImpuesto,
    otherCharges: other.toFixed(5),
    exchangeRate,
  });
}
