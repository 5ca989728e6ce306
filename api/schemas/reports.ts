// Report schemas: the month's figures for the IVA return (GET /api/v1/reports/monthly) and the
// month's archive (GET /api/v1/reports/monthly/archive). Every figure is in colones, 2 decimals.
import { Type } from 'typebox';
import { Decimal2, nameSchemas } from './common.ts';

const Month = Type.String({
  pattern: '^\\d{4}-(0[1-9]|1[0-2])$',
  description: 'The month, `YYYY-MM`, in Costa Rica time (America/Costa_Rica, UTC-6)',
  examples: ['2026-03'],
});

export const REPORT_FORMATS = ['json', 'csv', 'xlsx'] as const;

export const MonthlyReportQuery = Type.Object(
  {
    month: Month,
    format: Type.Optional(
      Type.String({
        enum: [...REPORT_FORMATS],
        description:
          'json (default; `Accept: text/csv` also asks for csv), csv (es-CR: `;`, decimal comma, UTF-8 BOM) or xlsx',
      }),
    ),
  },
  { additionalProperties: false },
);

export const MonthlyArchiveQuery = Type.Object({ month: Month }, { additionalProperties: false });

const Effect = Type.String({
  enum: ['suma', 'resta', 'informativo'],
  description: 'How the document type moves the sales: adds, subtracts (credit notes) or listed only',
});
const DocType = Type.String({ pattern: '^\\d{2}$', description: 'Document type code (01 factura, …)' });
const Count = Type.Integer({ minimum: 0 });

export const ReportDocumentsRow = Type.Object({
  document_type: DocType,
  effect: Effect,
  documents: Count,
  total_gravado: Decimal2,
  total_exento: Decimal2,
  total_exonerado: Decimal2,
  total_no_sujeto: Decimal2,
  total_venta: Decimal2,
  total_descuentos: Decimal2,
  total_venta_neta: Decimal2,
  total_impuesto: Decimal2,
  total_iva_devuelto: Decimal2,
  total_otros_cargos: Decimal2,
  total_comprobante: Decimal2,
});

export const ReportSalesRow = Type.Object({
  document_type: DocType,
  effect: Effect,
  category: Type.String({
    description: 'Rate key (13, 4, 2, 1, 0_5, 0) or exentas, exoneradas, no_sujetas, sin_iva',
  }),
  rate_code: Type.Union([Type.String(), Type.Null()], { description: 'CodigoTarifaIVA, null: no IVA' }),
  exonerated: Type.Boolean(),
  lines: Count,
  monto_total: Decimal2,
  discounts: Decimal2,
  sub_total: Decimal2,
  iva: Decimal2,
  iva_exonerated: Decimal2,
  iva_net: Decimal2,
});

export const ReportOtherTaxRow = Type.Object({
  document_type: DocType,
  code: Type.String({ description: 'CodigoImpuesto of the tax beside the IVA' }),
  amount: Decimal2,
});

export const ReportReceivedRow = Type.Object({
  document_type: DocType,
  answer: Type.String({ enum: ['accepted', 'partially_accepted', 'rejected'] }),
  documents: Count,
  total: Decimal2,
  total_tax: Decimal2,
  iva_credit: Decimal2,
});

export const ReportLine = Type.Object({
  key: Type.String({ description: 'ventas_13, iva_13, iva_devengado, iva_acreditable, saldo, …' }),
  label_es: Type.String(),
  label_en: Type.String(),
  amount: Decimal2,
});

export const MonthlyReportObject = Type.Object(
  {
    object: Type.Literal('monthly_report'),
    livemode: Type.Boolean(),
    month: Type.String(),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    currency: Type.Literal('CRC'),
    documents: Type.Array(ReportDocumentsRow),
    sales: Type.Array(ReportSalesRow),
    other_taxes: Type.Array(ReportOtherTaxRow),
    received: Type.Array(ReportReceivedRow),
    d104: Type.Array(ReportLine),
    totals: Type.Object({
      ventas: Decimal2,
      iva_devengado: Decimal2,
      iva_acreditable: Decimal2,
      saldo: Decimal2,
    }),
  },
  {
    examples: [
      {
        object: 'monthly_report',
        livemode: false,
        month: '2026-03',
        from: '2026-03-01T06:00:00.000Z',
        to: '2026-04-01T06:00:00.000Z',
        currency: 'CRC',
        documents: [],
        sales: [],
        other_taxes: [],
        received: [],
        d104: [
          {
            key: 'ventas_13',
            label_es: 'Ventas gravadas al 13 %',
            label_en: 'Taxable sales at 13 %',
            amount: '0.00',
          },
        ],
        totals: { ventas: '0.00', iva_devengado: '0.00', iva_acreditable: '0.00', saldo: '0.00' },
      },
    ],
  },
);

nameSchemas({
  ReportDocumentsRow,
  ReportSalesRow,
  ReportOtherTaxRow,
  ReportReceivedRow,
  ReportLine,
  MonthlyReport: MonthlyReportObject,
});
