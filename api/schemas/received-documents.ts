// Received documents (a supplier's signed comprobante addressed to the company) and the answer
// that goes back to Hacienda as a MensajeReceptor.
import { Type } from 'typebox';
import { Limit, nameSchemas } from './common.ts';
import { HaciendaWarning } from './invoices.ts';

const Amount5 = (description: string, example: string) =>
  Type.String({ pattern: '^\\d{1,13}\\.\\d{5}$', description, examples: [example] });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Result = () =>
  Type.Union([Type.Literal('accepted'), Type.Literal('partially_accepted'), Type.Literal('rejected')], {
    description: 'Mensaje 1 (accepted, tipo 05), 2 (partially_accepted, 06) or 3 (rejected, 07)',
  });
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const CreateReceivedDocumentBody = Type.Object(
  {
    xml_base64: Type.String({
      minLength: 1,
      description:
        "The supplier's signed XML, base64 of its exact bytes (or send the XML itself as application/xml)",
    }),
  },
  {
    additionalProperties: false,
    examples: [
      { xml_base64: 'PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0idXRmLTgiPz4KPEZhY3R1cmFFbGVjdHJvbmljYS4uLg==' },
    ],
  },
);

export const AnswerReceivedDocumentBody = Type.Object(
  {
    result: Result(),
    reason: Type.Optional(
      Type.String({
        maxLength: 160,
        description: 'DetalleMensaje (≤ 160 characters); required unless accepted in full',
      }),
    ),
    iva_credit: Type.Optional(
      Type.String({
        description:
          "MontoTotalImpuestoAcreditar: IVA credited (≤ the document's TotalImpuesto). Default when accepted: all of it; " +
          'required for a partial acceptance of a taxed document; not with rejected',
        examples: ['13000.00'],
      }),
    ),
    expense: Type.Optional(
      Type.String({
        description:
          'MontoTotalDeGastoAplicable: the expense applied. Default: the total less the IVA credited; not with rejected',
        examples: ['100000.00'],
      }),
    ),
    tax_condition: Type.Optional(
      Type.Union(
        ['01', '02', '03', '04', '05'].map((c) => Type.Literal(c)),
        {
          description:
            'CondicionImpuesto: 01 general IVA credit, 02 partial credit, 03 capital goods, 04 current expense ' +
            'without credit, 05 proportionality. Default from iva_credit: all → 01, part → 02, none → 04',
        },
      ),
    ),
    activity_code: Type.Optional(
      Type.String({ description: 'CodigoActividad of the company (6 digits)', examples: ['620100'] }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { result: 'accepted' },
      { result: 'partially_accepted', reason: 'Una línea no fue recibida', iva_credit: '6500.00' },
      { result: 'rejected', reason: 'Mercadería no solicitada' },
    ],
  },
);

const Answer = Type.Object({
  result: Result(),
  status: Type.Union(
    [
      Type.Literal('pendiente'),
      Type.Literal('enviada'),
      Type.Literal('aceptada'),
      Type.Literal('rechazada'),
      Type.Literal('failed'),
    ],
    {
      description:
        "pendiente (recorded, being signed and sent), enviada (received by Hacienda), aceptada / rechazada (Hacienda's " +
        'verdict on the MensajeReceptor), failed (could not be signed or sent: see error)',
    },
  ),
  reason: Nullable(Type.String()),
  tax_condition: Nullable(Type.String()),
  iva_credit: Nullable(Amount5('MontoTotalImpuestoAcreditar', '13000.00000')),
  expense: Nullable(Amount5('MontoTotalDeGastoAplicable', '100000.00000')),
  activity_code: Nullable(Type.String()),
  consecutivo: Nullable(
    Type.String({ description: 'NumeroConsecutivoReceptor (tipo 05/06/07), once signed' }),
  ),
  hacienda_status: Nullable(Type.String()),
  rejection_reason: Type.Union([Type.Object({ es: Type.String(), en: Type.String() }), Type.Null()]),
  warnings: Type.Array(HaciendaWarning, {
    description: 'Observations Hacienda made while accepting the answer ([] when none, or not accepted)',
  }),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  requested_at: Time,
  signed_at: Time,
  submitted_at: Time,
  answered_at: Time,
});

export const ReceivedDocumentObject = Type.Object(
  {
    id: Type.String({ examples: ['rcv_000000000001'] }),
    object: Type.Literal('received_document'),
    livemode: Type.Boolean(),
    clave: Type.String({ examples: ['50625112600310198765400100001010000000042100000042'] }),
    document_type: Type.String({ description: '01 FE, 02 ND, 03 NC, 04 TE', examples: ['01'] }),
    consecutivo: Type.String(),
    issued_at: Type.String({ format: 'date-time' }),
    emisor: Type.Object({
      identification_type: Type.String(),
      cedula: Type.String(),
      name: Type.String(),
    }),
    receptor: Type.Object({ identification_type: Type.String(), cedula: Type.String() }),
    currency: Type.String({ examples: ['CRC'] }),
    total_tax: Amount5('TotalImpuesto', '13000.00000'),
    total: Amount5('TotalComprobante', '113000.00000'),
    answer: Type.Union([Answer, Type.Null()], { description: 'The MensajeReceptor, once asked for' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ReceivedDocument' },
);

export const ListReceivedDocumentsQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    starting_after: Type.Optional(Type.String({ description: 'A rcv_ id: the page after it' })),
    answer_status: Type.Optional(
      Type.Union(
        [
          Type.Literal('unanswered'),
          Type.Literal('pendiente'),
          Type.Literal('enviada'),
          Type.Literal('aceptada'),
          Type.Literal('rechazada'),
          Type.Literal('failed'),
        ],
        { description: 'Only documents whose answer is in this state (unanswered: none asked for yet)' },
      ),
    ),
  },
  { additionalProperties: false },
);

nameSchemas({
  CreateReceivedDocumentRequest: CreateReceivedDocumentBody,
  AnswerReceivedDocumentRequest: AnswerReceivedDocumentBody,
  ReceivedDocument: ReceivedDocumentObject,
});
