// The monthly report an accountant copies into the IVA return (D-104, Declaración del IVA). Pure:
// it turns the month's grouped sums (db/queries/reports.ts: exact colón amounts, unrounded) into
// sections and the return's lines, each figure rounded once, half up, to 2 decimals.
//
// What counts:
//   - Issued documents accepted by Hacienda whose FechaEmision falls in the month in Costa Rica
//     time (UTC-6). Sales are facturas (01), tiquetes (04), facturas de exportación (09) and debit
//     notes (02), which add; credit notes (03) subtract. Facturas de compra (08) and recibos de
//     pago (10) are listed by document type but feed no sales line.
//   - Every amount is the stored one (the line's SubTotal, its IVA Monto and MontoExoneracion, the
//     ResumenFactura) times the document's own TipoCambio.
//
// D-104 lines (`d104.lines`), all net of credit notes:
//   - `ventas_13`, `ventas_4`, `ventas_2`, `ventas_1`, `ventas_0_5`, `ventas_0` (and `ventas_8` when
//     a note carries the old transitory rate): ventas gravadas at each rate, Σ line SubTotal (after
//     discounts) of lines taxed at that Tarifa, without exoneration;
//   - `ventas_exentas` (CodigoTarifaIVA 10), `ventas_no_sujetas` (11), `ventas_exoneradas` (lines
//     whose IVA carries an Exoneracion, whatever the share exonerated), `ventas_sin_iva` (lines
//     carrying only taxes beside the IVA);
//   - `iva_13` … `iva_0_5`: IVA devengado per rate, the line's IVA Monto minus its MontoExoneracion
//     (so a partially exonerated line's remaining IVA is declared at its rate);
//   - `iva_devengado`: Σ of those rounded lines (the return adds up as shown);
//   - `notas_credito_base`, `notas_credito_iva`: how much the credit notes took off (information;
//     already netted in the lines above);
//   - `iva_acreditable`: IVA soportado acreditable from received documents whose answer (05 aceptado,
//     06 aceptado parcialmente) Hacienda accepted: the MontoTotalImpuestoAcreditar the company
//     declared in its answer, so a partial acceptance counts only the IVA it declared creditable, a
//     full one the document's whole IVA, a rejection (07) nothing; a supplier's credit note (03)
//     subtracts. Counted in the month of the received document's issue date;
//   - `saldo`: iva_devengado − iva_acreditable (positive: to pay; negative: in the company's favour).
import { Decimal } from 'decimal.js';
import { IVA_RATES, type CodigoTarifaIVA } from './codes.ts';

export interface ReportInput {
  month: string;
  salesLines: readonly {
    docType: string;
    rateCode: string;
    treatment: string;
    exonerated: boolean;
    lines: number;
    subTotal: string;
    montoTotal: string;
    discounts: string;
    iva: string;
    ivaExonerated: string;
  }[];
  documentTotals: readonly ({ docType: string; documents: number } & Record<DocumentFigure, string>)[];
  otherTaxes: readonly { docType: string; code: string; amount: string }[];
  received: readonly {
    docType: string;
    answerResult: string;
    documents: number;
    total: string;
    totalTax: string;
    ivaCredit: string;
  }[];
}

export const DOCUMENT_FIGURES = [
  'totalGravado',
  'totalExento',
  'totalExonerado',
  'totalNoSujeto',
  'totalVenta',
  'totalDescuentos',
  'totalVentaNeta',
  'totalImpuesto',
  'totalIvaDevuelto',
  'totalOtrosCargos',
  'totalComprobante',
] as const;
export type DocumentFigure = (typeof DOCUMENT_FIGURES)[number];

/** How a document type moves the sales: +1 adds, −1 subtracts, 0 listed only. */
export function salesSign(docType: string): 1 | -1 | 0 {
  if (docType === '03') return -1;
  return ['01', '02', '04', '09'].includes(docType) ? 1 : 0;
}

/** A month `YYYY-MM` as UTC instants: Costa Rica midnight of its first day and of the next month's. */
export function crMonthRange(month: string): { from: Date; to: Date } | null {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!m) return null;
  const year = Number(m[1]);
  const index = Number(m[2]) - 1;
  return { from: new Date(Date.UTC(year, index, 1, 6)), to: new Date(Date.UTC(year, index + 1, 1, 6)) };
}

/** An exact amount as the report shows it: 2 decimals, half up. */
export const money = (v: Decimal.Value): string => new Decimal(v).toFixed(2, Decimal.ROUND_HALF_UP);

/** The sales category of a group of lines: a rate key (`13`, `0_5`, …) or exentas, exoneradas, …. */
export function salesCategory(line: { rateCode: string; treatment: string; exonerated: boolean }): string {
  if (line.exonerated) return 'exoneradas';
  if (!line.rateCode) return 'sin_iva';
  if (line.treatment === 'exento') return 'exentas';
  if (line.treatment === 'noSujeto') return 'no_sujetas';
  return rateKey(line.rateCode);
}

/** The percentage of a rate code as a key: `13`, `4`, `0_5`, … */
export function rateKey(rateCode: string): string {
  const info = IVA_RATES[rateCode as CodigoTarifaIVA];
  return info ? info.rate.replace('.', '_') : `codigo_${rateCode}`;
}

export type Effect = 'suma' | 'resta' | 'informativo';
const EFFECT: Record<1 | -1 | 0, Effect> = { 1: 'suma', [-1]: 'resta', 0: 'informativo' };

export interface ReportDocuments extends Record<string, string | number> {
  document_type: string;
  effect: Effect;
  documents: number;
}

export interface ReportSales {
  document_type: string;
  effect: Effect;
  category: string;
  rate_code: string | null;
  exonerated: boolean;
  lines: number;
  monto_total: string;
  discounts: string;
  sub_total: string;
  iva: string;
  iva_exonerated: string;
  iva_net: string;
}

export interface ReportLine {
  key: string;
  label_es: string;
  label_en: string;
  amount: string;
}

export interface MonthlyReport {
  month: string;
  from: string;
  to: string;
  currency: 'CRC';
  documents: ReportDocuments[];
  sales: ReportSales[];
  other_taxes: { document_type: string; code: string; amount: string }[];
  received: {
    document_type: string;
    answer: string;
    documents: number;
    total: string;
    total_tax: string;
    iva_credit: string;
  }[];
  d104: ReportLine[];
  totals: { ventas: string; iva_devengado: string; iva_acreditable: string; saldo: string };
}

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function documentsSection(input: ReportInput): ReportDocuments[] {
  return input.documentTotals.map((d) => {
    const row: ReportDocuments = {
      document_type: d.docType,
      effect: EFFECT[salesSign(d.docType)],
      documents: d.documents,
    };
    for (const f of DOCUMENT_FIGURES) row[snake(f)] = money(d[f]);
    return row;
  });
}

function salesSection(input: ReportInput): ReportSales[] {
  return input.salesLines.map((l) => ({
    document_type: l.docType,
    effect: EFFECT[salesSign(l.docType)],
    category: salesCategory(l),
    rate_code: l.rateCode || null,
    exonerated: l.exonerated,
    lines: l.lines,
    monto_total: money(l.montoTotal),
    discounts: money(l.discounts),
    sub_total: money(l.subTotal),
    iva: money(l.iva),
    iva_exonerated: money(l.ivaExonerated),
    iva_net: money(new Decimal(l.iva).minus(l.ivaExonerated)),
  }));
}

const SALES_LABELS: [key: string, es: string, en: string][] = [
  ['13', 'Ventas gravadas al 13 %', 'Taxable sales at 13 %'],
  ['8', 'Ventas gravadas al 8 % (transitoria)', 'Taxable sales at 8 % (transitory)'],
  ['4', 'Ventas gravadas al 4 %', 'Taxable sales at 4 %'],
  ['2', 'Ventas gravadas al 2 %', 'Taxable sales at 2 %'],
  ['1', 'Ventas gravadas al 1 %', 'Taxable sales at 1 %'],
  ['0_5', 'Ventas gravadas al 0,5 %', 'Taxable sales at 0.5 %'],
  ['0', 'Ventas gravadas al 0 %', 'Taxable sales at 0 %'],
  ['exentas', 'Ventas exentas', 'Exempt sales'],
  ['exoneradas', 'Ventas exoneradas', 'Exonerated sales'],
  ['no_sujetas', 'Ventas no sujetas', 'Non-subject sales'],
  ['sin_iva', 'Ventas sin IVA (solo otros impuestos)', 'Sales without IVA (other taxes only)'],
];
const IVA_KEYS = ['13', '8', '4', '2', '1', '0_5'];

/** Σ sign × value over the sale groups that pass `keep`, exact. */
function net(
  input: ReportInput,
  keep: (l: ReportInput['salesLines'][number]) => boolean,
  value: (l: ReportInput['salesLines'][number]) => Decimal.Value,
) {
  return input.salesLines
    .filter((l) => salesSign(l.docType) !== 0 && keep(l))
    .reduce((acc, l) => acc.plus(new Decimal(value(l)).times(salesSign(l.docType))), new Decimal(0));
}

const ivaNet = (l: ReportInput['salesLines'][number]) => new Decimal(l.iva).minus(l.ivaExonerated);
const rateOf = (l: ReportInput['salesLines'][number]) => (l.rateCode ? rateKey(l.rateCode) : '');

function salesLines(input: ReportInput): ReportLine[] {
  const lines: ReportLine[] = [];
  for (const [key, es, en] of SALES_LABELS) {
    const amount = net(
      input,
      (l) => salesCategory(l) === key,
      (l) => l.subTotal,
    );
    const always = key !== '8' && key !== 'sin_iva';
    if (always || !amount.isZero())
      lines.push({ key: `ventas_${key}`, label_es: es, label_en: en, amount: money(amount) });
  }
  for (const key of IVA_KEYS) {
    const amount = net(input, (l) => rateOf(l) === key, ivaNet);
    if (key === '8' && amount.isZero()) continue;
    const pct = key.replace('_', ',');
    lines.push({
      key: `iva_${key}`,
      label_es: `IVA devengado al ${pct} %`,
      label_en: `IVA charged at ${key.replace('_', '.')} %`,
      amount: money(amount),
    });
  }
  return lines;
}

/** IVA soportado acreditable: what the accepted answers declared, a supplier's credit note subtracting. */
function creditable(input: ReportInput): Decimal {
  return input.received
    .filter((r) => r.answerResult === 'accepted' || r.answerResult === 'partially_accepted')
    .reduce(
      (acc, r) => acc.plus(new Decimal(r.ivaCredit).times(r.docType === '03' ? -1 : 1)),
      new Decimal(0),
    );
}

const sumOf = (lines: ReportLine[], prefix: string) =>
  lines.filter((l) => l.key.startsWith(prefix)).reduce((a, l) => a.plus(l.amount), new Decimal(0));

function d104(input: ReportInput) {
  const lines = salesLines(input);
  const ventas = sumOf(lines, 'ventas_');
  const devengado = sumOf(lines, 'iva_');
  const notes = (l: ReportInput['salesLines'][number]) => l.docType === '03';
  const acreditable = new Decimal(money(creditable(input)));
  const saldo = devengado.minus(acreditable);
  lines.push(
    {
      key: 'iva_devengado',
      label_es: 'Total IVA devengado',
      label_en: 'Total IVA charged',
      amount: money(devengado),
    },
    {
      key: 'notas_credito_base',
      label_es: 'Notas de crédito (base restada)',
      label_en: 'Credit notes (base subtracted)',
      amount: money(net(input, notes, (l) => l.subTotal).neg()),
    },
    {
      key: 'notas_credito_iva',
      label_es: 'Notas de crédito (IVA restado)',
      label_en: 'Credit notes (IVA subtracted)',
      amount: money(net(input, notes, ivaNet).neg()),
    },
    {
      key: 'iva_acreditable',
      label_es: 'IVA soportado acreditable',
      label_en: 'Creditable input IVA',
      amount: money(acreditable),
    },
    {
      key: 'saldo',
      label_es: saldo.isNeg() ? 'Saldo a favor' : 'Impuesto por pagar',
      label_en: saldo.isNeg() ? 'Balance in favour' : 'Tax to pay',
      amount: money(saldo),
    },
  );
  const totals = {
    ventas: money(ventas),
    iva_devengado: money(devengado),
    iva_acreditable: money(acreditable),
    saldo: money(saldo),
  };
  return { lines, totals };
}

/** The month's report from its grouped sums. */
export function buildMonthlyReport(input: ReportInput, range: { from: Date; to: Date }): MonthlyReport {
  const { lines, totals } = d104(input);
  return {
    month: input.month,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    currency: 'CRC',
    documents: documentsSection(input),
    sales: salesSection(input),
    other_taxes: input.otherTaxes.map((t) => ({
      document_type: t.docType,
      code: t.code,
      amount: money(t.amount),
    })),
    received: input.received.map((r) => ({
      document_type: r.docType,
      answer: r.answerResult,
      documents: r.documents,
      total: money(r.total),
      total_tax: money(r.totalTax),
      iva_credit: money(r.ivaCredit),
    })),
    d104: lines,
    totals,
  };
}
