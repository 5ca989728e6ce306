// Payment schemas: the create body (amount, method, paid_at, reference) and the payment object.
import { Type } from 'typebox';
import { PAYMENT_METHOD_NAMES } from '../../domain/payments.ts';
import { Decimal2, Timestamp, nameSchemas } from './common.ts';

export const CreatePaymentBody = Type.Object(
  {
    amount: Type.String({
      pattern: '^\\d{1,13}\\.\\d{2}$',
      description: 'Decimal string with 2 decimals, > 0, in the invoice currency; at most the balance due',
      examples: ['50000.00'],
    }),
    method: Type.String({ enum: PAYMENT_METHOD_NAMES, description: "Hacienda's TipoMedioPago by name" }),
    paid_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When it was paid; not in the future' }),
    ),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    issue_receipt: Type.Optional(
      Type.Boolean({
        description:
          'Also issue a recibo electrónico de pago (10) for this payment of a credit sale (condition ' +
          'credito, servicios_estado_credito or credito_iva_90) Hacienda accepted; it references the ' +
          'invoice and travels the same flow as an invoice (`receipt` on the payment)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { amount: '50000.00', method: 'sinpe_movil', reference: 'SINPE 12345678' },
      { amount: '56500.00', method: 'transferencia', issue_receipt: true },
    ],
  },
);

export const PaymentObject = Type.Object({
  id: Type.String({ examples: ['pay_000000000001'] }),
  object: Type.Literal('payment'),
  invoice_id: Type.String(),
  client_id: Type.Union([Type.String(), Type.Null()]),
  amount: Decimal2,
  currency: Type.String(),
  exchange_rate: Type.String(),
  amount_crc: Type.String({ description: 'Colones booked, in centavos (2 decimals)', examples: ['113.00'] }),
  method: Type.String(),
  method_code: Type.String({ description: 'TipoMedioPago' }),
  paid_at: Timestamp,
  reference: Type.Union([Type.String(), Type.Null()]),
  at_issue: Type.Boolean({
    description:
      'A payment that settled a cash sale (contado) when it was booked, recorded by the service (one per payment method)',
  }),
  receipt: Type.Union(
    [
      Type.Object({
        id: Type.String({ examples: ['inv_000000000043'], description: 'The receipt (document_type 10)' }),
        clave: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ],
    { description: 'The recibo electrónico de pago issued for this payment (issue_receipt), or null' },
  ),
  invoice_balance_due: Decimal2,
  invoice_payment_status: Type.String({ enum: ['unpaid', 'partial', 'paid'] }),
  livemode: Type.Boolean(),
  created_at: Timestamp,
});

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  CreatePaymentRequest: CreatePaymentBody,
  Payment: PaymentObject,
});
