// Credit and debit note bodies: a reason, an optional reference code and, for a partial note,
// the referenced document's lines it corrects (whole, by quantity or by net amount).
import { Type } from 'typebox';

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
  },
  {
    additionalProperties: false,
    examples: [
      { reason: 'Anulación de la factura por error en el cliente' },
      { reason: 'Devolución de una unidad', code: '06', lines: [{ line: 1, qty: 1 }] },
    ],
  },
);
