// The chart of accounts every company starts with (per mode), and the journal entry an issued
// invoice produces. Amounts are booked in colones and in centavos (CRC's minor unit, 2 decimals),
// like every money figure the API shows: an invoice in another currency is converted with its own
// exchange rate. The receivable is the document's total converted and rounded to centavos (for a
// CRC invoice exactly the API's `total`); each credit is rounded to centavos and the rounding
// difference goes to the largest credit, so every entry balances by construction.
import { Decimal } from 'decimal.js';
import { isIvaTaxCode } from './codes.ts';
import { findDocumentType, type DocumentTypeDescriptor } from './document-types/index.ts';

/** How a type's issue entry is shaped (its descriptor's `booking`; a sale's when unknown). */
const bookingOf = (docType: string): DocumentTypeDescriptor['booking'] =>
  findDocumentType(docType)?.booking ?? 'sale';

export const ACCOUNT_ROLES = [
  'cash',
  'receivables',
  'iva_payable',
  'other_taxes_payable',
  'third_party_payable',
  'revenue_goods',
  'revenue_services',
  'iva_credit',
  'payables',
  'purchases',
  'assumed_tax_expense',
] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

export const DEFAULT_CHART: {
  code: string;
  name: string;
  type: 'asset' | 'liability' | 'revenue' | 'expense';
  role: AccountRole;
}[] = [
  { code: '1101', name: 'Caja y bancos', type: 'asset', role: 'cash' },
  { code: '1201', name: 'Cuentas por cobrar a clientes', type: 'asset', role: 'receivables' },
  { code: '2101', name: 'IVA por pagar', type: 'liability', role: 'iva_payable' },
  {
    code: '2102',
    name: 'Cobros por cuenta de terceros',
    type: 'liability',
    role: 'third_party_payable',
  },
  // Taxes beside the IVA (selectivo de consumo, combustibles, bebidas, tabaco, cemento, otros):
  // migration 20261128000000.
  { code: '2103', name: 'Otros impuestos por pagar', type: 'liability', role: 'other_taxes_payable' },
  { code: '4101', name: 'Ingresos por venta de bienes', type: 'revenue', role: 'revenue_goods' },
  { code: '4102', name: 'Ingresos por prestación de servicios', type: 'revenue', role: 'revenue_services' },
  // Purchases (facturas electrónicas de compra, 08): migration 20261127020000.
  { code: '1301', name: 'IVA crédito fiscal', type: 'asset', role: 'iva_credit' },
  { code: '2201', name: 'Cuentas por pagar a proveedores', type: 'liability', role: 'payables' },
  { code: '5101', name: 'Compras y gastos', type: 'expense', role: 'purchases' },
  // Tax the issuer assumes (ImpuestoAsumidoEmisorFabrica without IVACobradoFabrica): migration
  // 20261129000000.
  { code: '5102', name: 'Impuestos asumidos por el emisor', type: 'expense', role: 'assumed_tax_expense' },
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
  /** The IVA owed (net of exonerations; net of assumed tax only when the factory collected it). */
  totalTax: string;
  /** Tax the issuer assumes: owed to the State in `totalTax`/`otherTaxes`, the issuer's expense. */
  assumedTax?: string;
  /** The taxes beside the IVA (Impuesto 02-06, 12, 99) charged: OTHER_TAXES_PAYABLE. */
  otherTaxes?: string;
  /** Other charges of the company's own (and IVA returned, negative): booked with the revenue. */
  otherCharges?: string;
  /** Other charges collected for someone else: a liability (THIRD_PARTY_CHARGES). */
  thirdPartyCharges?: string;
  exchangeRate: string;
}

/**
 * TipoDocumentoOC codes collected on behalf of someone else: contribución parafiscal, timbres
 * (Cruz Roja, Bomberos, colegios profesionales), a third party's charge, the 10 % service charge
 * (the staff's, by law) and guarantee deposits (returned later). Export costs, penalties,
 * late-payment interest and other charges are the company's own revenue.
 */
export const THIRD_PARTY_CHARGES: ReadonlySet<string> = new Set(['01', '02', '03', '04', '06', '07', '08']);

/** CRC's minor unit: the ledger, payments in colones and balances keep 2 decimals. */
export const LEDGER_DECIMALS = 2;

/** Colones in centavos (half-up), as a string with 2 decimals. */
export const toCentavos = (v: Decimal.Value): string =>
  new Decimal(v).toFixed(LEDGER_DECIMALS, Decimal.ROUND_HALF_UP);

const crc = (amount: string, rate: string) => new Decimal(amount).times(rate);

/**
 * Debit receivables (and the tax the issuer assumes, an expense); credit revenue (goods,
 * services), IVA and the other taxes payable.
 */
export function invoicePosting(input: InvoicePostingInput): PostingLine[] {
  const exact = [
    {
      role: 'revenue_goods' as const,
      amount: crc(input.netGoods, input.exchangeRate).plus(
        crc(input.otherCharges ?? '0', input.exchangeRate),
      ),
    },
    { role: 'revenue_services' as const, amount: crc(input.netServices, input.exchangeRate) },
    { role: 'iva_payable' as const, amount: crc(input.totalTax, input.exchangeRate) },
    { role: 'other_taxes_payable' as const, amount: crc(input.otherTaxes ?? '0', input.exchangeRate) },
    {
      role: 'third_party_payable' as const,
      amount: crc(input.thirdPartyCharges ?? '0', input.exchangeRate),
    },
  ].filter((c) => c.amount.gt(0));
  const assumed = new Decimal(toCentavos(crc(input.assumedTax ?? '0', input.exchangeRate)));
  const receivable = new Decimal(
    toCentavos(exact.reduce((a, c) => a.plus(c.amount), new Decimal(0)).minus(assumed)),
  );
  if (receivable.lte(0)) return [];
  const credits = exact.map((c) => ({ role: c.role, amount: new Decimal(toCentavos(c.amount)) }));
  const rest = receivable.plus(assumed).minus(credits.reduce((a, c) => a.plus(c.amount), new Decimal(0)));
  if (!rest.isZero()) {
    const largest = credits.reduce((a, c) => (c.amount.gt(a.amount) ? c : a));
    largest.amount = largest.amount.plus(rest);
  }
  return [
    { role: 'receivables', debit: toCentavos(receivable), credit: '0' },
    ...(assumed.gt(0)
      ? [{ role: 'assumed_tax_expense' as const, debit: toCentavos(assumed), credit: '0' }]
      : []),
    ...credits
      .filter((c) => c.amount.gt(0))
      .map((c) => ({ role: c.role, debit: '0', credit: toCentavos(c.amount) })),
  ];
}

/** The same lines with debits and credits swapped. */
export function reversal(lines: PostingLine[]): PostingLine[] {
  return lines.map((l) => ({ role: l.role, debit: l.credit, credit: l.debit }));
}

/** The colones amount an entry moves on receivables (debited by a sale, credited by its reversal). */
export function receivableAmount(lines: PostingLine[]): string {
  return toCentavos(
    lines
      .filter((l) => l.role === 'receivables')
      .reduce((s, l) => s.plus(l.debit).plus(l.credit), new Decimal(0)),
  );
}

/** The issue entry of an invoice from its computed totals (goods and services by line kind). */
export function invoicePostingFromTotals(
  totals: {
    lines: readonly {
      kind: string;
      subTotal: string;
      impuestoNeto?: string;
      impuestoAsumidoEmisorFabrica?: string;
      ivaCollectedAtFactory?: string | null;
      taxes?: readonly { code: string; amount: string }[];
    }[];
    otherCharges?: readonly { code: string; amount: string }[];
    summary: { totalImpuesto: string; totalOtrosCargos?: string | null; totalIVADevuelto?: string | null };
  },
  exchangeRate: string,
): PostingLine[] {
  let goods = new Decimal(0);
  let services = new Decimal(0);
  // A line's net tax is its IVA and its other taxes; an exoneration lowers the IVA only.
  // ImpuestoAsumidoEmisorFabrica is one of two things: with IVACobradoFabrica, tax the factory
  // already collected (owed by no one here: it comes off the IVA first); without it, tax the
  // issuer assumes: still owed to the State in full, and the issuer's expense.
  let otherTaxes = new Decimal(0);
  let assumedByIssuer = new Decimal(0);
  for (const l of totals.lines) {
    if (l.kind === 'services') services = services.plus(l.subTotal);
    else goods = goods.plus(l.subTotal);
    const others = (l.taxes ?? [])
      .filter((t) => !isIvaTaxCode(t.code))
      .reduce((a, t) => a.plus(t.amount), new Decimal(0));
    const assumed = l.ivaCollectedAtFactory
      ? new Decimal(0)
      : new Decimal(l.impuestoAsumidoEmisorFabrica ?? 0);
    assumedByIssuer = assumedByIssuer.plus(assumed);
    otherTaxes = otherTaxes.plus(Decimal.min(others, new Decimal(l.impuestoNeto ?? others).plus(assumed)));
  }
  // TotalImpuesto is Σ ImpuestoNeto: the tax the issuer assumes is owed on top of it.
  const ivaTax = new Decimal(totals.summary.totalImpuesto).plus(assumedByIssuer).minus(otherTaxes);
  const s = totals.summary;
  const thirdParty = (totals.otherCharges ?? [])
    .filter((c) => THIRD_PARTY_CHARGES.has(c.code))
    .reduce((a, c) => a.plus(c.amount), new Decimal(0));
  const other = new Decimal(s.totalOtrosCargos ?? 0).minus(thirdParty).minus(s.totalIVADevuelto ?? 0);
  return invoicePosting({
    netGoods: goods.toFixed(5),
    netServices: services.toFixed(5),
    totalTax: ivaTax.toFixed(5),
    otherTaxes: otherTaxes.toFixed(5),
    assumedTax: assumedByIssuer.toFixed(5),
    otherCharges: other.toFixed(5),
    thirdPartyCharges: thirdParty.toFixed(5),
    exchangeRate,
  });
}

/** CondicionVenta contado: a purchase paid when it is made. */
export const CASH_CONDITION = '01';

/**
 * The issue entry of a purchase (factura electrónica de compra, 08), the mirror of a sale: debit
 * purchases (the net lines and other charges) and IVA credit, credit the document's total to
 * accounts payable — or, for a purchase paid in cash (CondicionVenta 01, contado), to cash and
 * banks, as a cash sale ends debiting cash. The same rounding as a sale: the credit to the
 * largest debit.
 */
export function purchasePostingFromTotals(
  totals: Parameters<typeof invoicePostingFromTotals>[0],
  exchangeRate: string,
  condicionVenta?: string,
): PostingLine[] {
  const sale = invoicePostingFromTotals(totals, exchangeRate);
  const debits = new Map<AccountRole, Decimal>();
  for (const l of sale) {
    if (l.role === 'receivables') continue;
    const role: AccountRole = l.role === 'iva_payable' ? 'iva_credit' : 'purchases';
    debits.set(role, (debits.get(role) ?? new Decimal(0)).plus(l.credit));
  }
  const payable = sale.find((l) => l.role === 'receivables');
  if (!payable) return [];
  return [
    ...[...debits].map(([role, amount]) => ({ role, debit: toCentavos(amount), credit: '0' })),
    {
      role: condicionVenta === CASH_CONDITION ? ('cash' as const) : ('payables' as const),
      debit: '0',
      credit: payable.debit,
    },
  ];
}

/**
 * The issue entry of a document of any type, as its descriptor's `booking` says: a credit note
 * (03) reverses exactly the lines it carries (debit revenue and IVA payable, credit receivables);
 * invoices, tiquetes, exports and debit notes add them.
 * A credit note `settledAtIssue` (on a tiquete sold to no one, paid when issued) refunds out of
 * cash: it credits cash where another credits receivables, since nobody owes that document.
 * A purchase (08) books its expense against payables (against cash when `condicionVenta` is
 * contado); a recibo electrónico de pago (10) books nothing (its payment has its own entry, and
 * the sale it settles was booked when issued).
 */
export function documentPosting(
  docType: string,
  totals: Parameters<typeof invoicePostingFromTotals>[0],
  exchangeRate: string,
  condicionVenta?: string,
  settledAtIssue = false,
): PostingLine[] {
  const booking = bookingOf(docType);
  if (booking === 'none') return [];
  if (booking === 'purchase') return purchasePostingFromTotals(totals, exchangeRate, condicionVenta);
  const lines = invoicePostingFromTotals(totals, exchangeRate);
  if (booking !== 'credit') return lines;
  const reversed = reversal(lines);
  return settledAtIssue
    ? reversed.map((l) => (l.role === 'receivables' ? { ...l, role: 'cash' as const } : l))
    : reversed;
}

/**
 * What an issue entry changes in the client's balance (colones): a credit note lowers it; a
 * purchase and a receipt change no client's balance.
 */
export function receivableChange(docType: string, lines: PostingLine[]): string {
  const booking = bookingOf(docType);
  if (booking === 'purchase' || booking === 'none') return '0.00';
  const total = receivableAmount(lines);
  return booking === 'credit' ? new Decimal(total).negated().toFixed(LEDGER_DECIMALS) : total;
}
