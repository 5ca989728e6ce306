// Credit and debit note bodies: a reason, an optional reference code and, for a partial note,
// the referenced document's lines it corrects (whole, by quantity or by net amount) and the fixed
// other charges it carries.
import { Type } from 'typebox';
import { CreateInvoiceBody } from './invoices.ts';

const NoteLine = Type.Object(
  {
    line: Type.Integer({
      minimum: 1,
      description: "Line number (1-based) of the referenced document's line",
    }),
    qty: Type.Optional(
      Type.Union([Type.Number(), Type.String()], {
        description: "Quantity credited or debited, at most the line's (up to 3 decimals)",
      }),
    ),
    amount: Type.Optional(
      Type.String({
        description: "Net amount before tax (up to 5 decimals), at most the line's subtotal; not with qty",
      }),
    ),
  },
  { additionalProperties: false },
);

const NoteCharge = Type.Object(
  {
    charge: Type.Integer({
      minimum: 1,
      description: "Position (1-based) of one of the referenced document's fixed other charges",
    }),
    amount: Type.Optional(
      Type.String({
        description:
          'Amount of that charge carried (up to 5 decimals); absent: all of it that earlier credit notes left',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreateNoteBody = Type.Object(
  {
    reason: Type.String({ description: 'Razón of the InformacionReferencia, 3-180 characters' }),
    code: Type.Optional(
      Type.String({
        description:
          'Codigo (nota 9). Credit notes: 01 anula (default without lines), 02 corrige (default with lines), ' +
          '04, 06 devolución, 09 financiera, 12, 13 anula por error material, 14. Debit notes: 02 (default), ' +
          '04, 10 financiera, 14. 01 and 13 only without lines',
      }),
    ),
    lines: Type.Optional(
      Type.Array(NoteLine, {
        minItems: 1,
        maxItems: 1000,
        description: 'The lines corrected; omitted: the whole document (a whole credit note annuls it)',
      }),
    ),
    other_charges: Type.Optional(
      Type.Array(NoteCharge, {
        minItems: 1,
        maxItems: 15,
        description:
          "With lines only: the fixed other charges (an amount, e.g. a third party's charge or a stamp) the " +
          'note carries. Proportional ones (a percentage of the net sale, e.g. the 10 % service charge, code ' +
          "06) always follow the lines named, at their percentage of the note's net sale; a note of the whole " +
          'document carries every charge',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { reason: 'Anulación de la factura por error en el cliente' },
      { reason: 'Devolución de una unidad', code: '06', lines: [{ line: 1, qty: 1 }] },
      {
        reason: 'Devolución y su timbre',
        code: '06',
        lines: [{ line: 1, qty: 1 }],
        other_charges: [{ charge: 2 }],
      },
    ],
  },
);

/** A debit note's body: a note's, and on a tiquete sold to no one how its amount is collected. */
export const CreateDebitNoteBody = Type.Object(
  {
    ...CreateNoteBody.properties,
    payment_method: Type.Optional({
      ...CreateInvoiceBody.properties.payment_method,
      description:
        'Only a debit note on a tiquete sold to no one (settled at issue): how its amount is collected, at ' +
        "once (default: the tiquete's method). Refused (not_applicable) on a document with a client",
    }),
    payment_method_other: Type.Optional(CreateInvoiceBody.properties.payment_method_other),
    payments: Type.Optional({
      ...CreateInvoiceBody.properties.payments,
      description:
        'Only a debit note on a tiquete sold to no one: several methods with their amounts (MedioPago ' +
        "1..4), instead of payment_method; collected at once. The amounts add up to the note's total",
    }),
  },
  {
    additionalProperties: false,
    examples: [
      { reason: 'Intereses por pago tardío', code: '10', lines: [{ line: 1, amount: '5000' }] },
      {
        reason: 'Cargo por entrega, cobrado al momento',
        lines: [{ line: 2, amount: '5000' }],
        payments: [{ method: 'efectivo', amount: '2000' }, { method: 'sinpe_movil' }],
      },
    ],
  },
);

const {
  send: _send,
  replaces: _replaces,
  document_type: _documentType,
  supplier: _supplier,
  ...invoiceFields
} = CreateInvoiceBody.properties;

/** A credit note of a document issued before the company used the service. */
export const CreateExternalCreditNoteBody = Type.Object(
  {
    reference: Type.Object(
      {
        clave: Type.String({ description: 'Clave (50 characters) of the document corrected' }),
        document_type: Type.Optional(
          Type.String({ description: 'TipoDocIR: 01 (default) FE, 02 ND, 03 NC, 04 TE, 19 FEE' }),
        ),
        issue_date: Type.String({ format: 'date-time', description: 'Its FechaEmision' }),
      },
      { additionalProperties: false },
    ),
    reason: Type.String({ description: 'Razón, 3-180 characters' }),
    code: Type.Optional(
      Type.String({
        description: 'Codigo (nota 9), default 02; 01/13 annul, 06 devolución, 09 financiera …',
      }),
    ),
    ...invoiceFields,
  },
  {
    additionalProperties: false,
    examples: [
      {
        reference: {
          clave: '50601102600310112345600100001010000000042112345678',
          issue_date: '2026-10-01T10:00:00-06:00',
        },
        reason: 'Devolución de mercadería facturada antes del cambio de sistema',
        code: '06',
        client_id: 'cli_000000000001',
        lines: [{ service_id: 'srv_000000000001', qty: 1, unit_price: '1500.00' }],
      },
    ],
  },
);
