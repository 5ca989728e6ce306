// The monthly report (domain/monthly-report.ts) as the API shows it: the JSON object, and the same
// sections as tables for the CSV (es-CR: `;` separator, decimal comma, UTF-8 BOM, Spanish headers)
// and the XLSX (a sheet per section, amounts as numeric cells in the colón format).
import type { Static } from 'typebox';
import { documentTypeName } from '../../domain/document-types/index.ts';
import type { MonthlyReport } from '../../domain/monthly-report.ts';
import type { MonthlyReportObject } from '../schemas/reports.ts';

export function monthlyReportObject(
  report: MonthlyReport,
  livemode: boolean,
): Static<typeof MonthlyReportObject> {
  return { object: 'monthly_report', livemode, ...report } as Static<typeof MonthlyReportObject>;
}

/** A cell: text, a whole number, or an amount (a 2-decimal string, shown in colones). */
export type Cell = { text: string } | { count: number } | { amount: string };

export interface ReportTable {
  /** The sheet's name and the CSV section's title. */
  title: string;
  headers: string[];
  rows: Cell[][];
}

const t = (text: string): Cell => ({ text });
const n = (count: number): Cell => ({ count });
const a = (amount: string): Cell => ({ amount });
const typeCell = (code: string) => t(`${code} ${documentTypeName(code)}`);
const EFFECT_ES: Record<string, string> = { suma: 'Suma', resta: 'Resta', informativo: 'Informativo' };
const ANSWER_ES: Record<string, string> = {
  accepted: 'Aceptado',
  partially_accepted: 'Aceptado parcialmente',
  rejected: 'Rechazado',
};

function d104Table(r: MonthlyReport): ReportTable {
  return {
    title: 'D-104',
    headers: ['Clave', 'Concepto', 'Monto (₡)'],
    rows: r.d104.map((l) => [t(l.key), t(l.label_es), a(l.amount)]),
  };
}

function documentsTable(r: MonthlyReport): ReportTable {
  return {
    title: 'Documentos',
    headers: [
      'Tipo de documento',
      'Efecto',
      'Documentos',
      'Total gravado',
      'Total exento',
      'Total exonerado',
      'Total no sujeto',
      'Total venta',
      'Total descuentos',
      'Total venta neta',
      'Total impuesto',
      'Total IVA devuelto',
      'Total otros cargos',
      'Total comprobante',
    ],
    rows: r.documents.map((d) => [
      typeCell(d.document_type),
      t(EFFECT_ES[d.effect]!),
      n(d.documents),
      ...(
        [
          'total_gravado',
          'total_exento',
          'total_exonerado',
          'total_no_sujeto',
          'total_venta',
          'total_descuentos',
          'total_venta_neta',
          'total_impuesto',
          'total_iva_devuelto',
          'total_otros_cargos',
          'total_comprobante',
        ] as const
      ).map((k) => a(String(d[k]))),
    ]),
  };
}

function salesTable(r: MonthlyReport): ReportTable {
  return {
    title: 'Ventas por tarifa',
    headers: [
      'Tipo de documento',
      'Efecto',
      'Categoría',
      'Código de tarifa',
      'Exonerado',
      'Líneas',
      'Monto total',
      'Descuentos',
      'Subtotal',
      'IVA',
      'IVA exonerado',
      'IVA neto',
    ],
    rows: r.sales.map((s) => [
      typeCell(s.document_type),
      t(EFFECT_ES[s.effect]!),
      t(s.category),
      t(s.rate_code ?? ''),
      t(s.exonerated ? 'Sí' : 'No'),
      n(s.lines),
      a(s.monto_total),
      a(s.discounts),
      a(s.sub_total),
      a(s.iva),
      a(s.iva_exonerated),
      a(s.iva_net),
    ]),
  };
}

function otherTaxesTable(r: MonthlyReport): ReportTable {
  return {
    title: 'Otros impuestos',
    headers: ['Tipo de documento', 'Código de impuesto', 'Monto'],
    rows: r.other_taxes.map((o) => [typeCell(o.document_type), t(o.code), a(o.amount)]),
  };
}

function receivedTable(r: MonthlyReport): ReportTable {
  return {
    title: 'Documentos recibidos',
    headers: ['Tipo de documento', 'Respuesta', 'Documentos', 'Total', 'Impuesto', 'IVA acreditable'],
    rows: r.received.map((x) => [
      typeCell(x.document_type),
      t(ANSWER_ES[x.answer] ?? x.answer),
      n(x.documents),
      a(x.total),
      a(x.total_tax),
      a(x.iva_credit),
    ]),
  };
}

/** The report's sections, in the order the CSV and the workbook show them. */
export function reportTables(r: MonthlyReport): ReportTable[] {
  return [d104Table(r), documentsTable(r), salesTable(r), otherTaxesTable(r), receivedTable(r)];
}

function csvField(c: Cell): string {
  const text = 'amount' in c ? c.amount.replace('.', ',') : 'count' in c ? String(c.count) : c.text;
  return /[;"\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV: a title line per section, its headers and rows, a blank line between sections. */
export function monthlyReportCsv(r: MonthlyReport): string {
  const lines = [`Reporte mensual;${r.month}`, 'Moneda;CRC', ''];
  for (const table of reportTables(r)) {
    lines.push(table.title, table.headers.map((h) => csvField(t(h))).join(';'));
    for (const row of table.rows) lines.push(row.map(csvField).join(';'));
    lines.push('');
  }
  return `\uFEFF${lines.join('\r\n')}`;
}

export const COLON_FORMAT = '"₡"#,##0.00;-"₡"#,##0.00';

/** The workbook: a sheet per section, headers in bold, amounts numeric in colones. */
export async function monthlyReportXlsx(r: MonthlyReport): Promise<Buffer> {
  // Loaded on the first spreadsheet asked for: exceljs is a third of the modules an API loads.
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  book.creator = 'factura-cr';
  for (const table of reportTables(r)) {
    const sheet = book.addWorksheet(table.title);
    sheet.addRow(table.headers).font = { bold: true };
    for (const row of table.rows) {
      const added = sheet.addRow(
        row.map((c) => ('amount' in c ? Number(c.amount) : 'count' in c ? c.count : c.text)),
      );
      row.forEach((c, i) => {
        if ('amount' in c) added.getCell(i + 1).numFmt = COLON_FORMAT;
      });
    }
    sheet.columns.forEach((col) => (col.width = 18));
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}
