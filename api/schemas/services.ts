// Service (catalogue item) schemas.
import { Type } from 'typebox';
import { IVA_RATE_CODES_FE, IVA_TAX_CODES, UNIDADES_MEDIDA } from '../../domain/codes.ts';
import { Limit, Timestamp, nameSchemas } from './common.ts';
import { OtherTax } from './invoices.ts';

export const CreateServiceBody = Type.Object(
  {
    cabys: Type.String({ pattern: '^\\d{13}$', description: 'CABYS code, 13 digits' }),
    description: Type.String({ minLength: 3, maxLength: 200 }),
    unit: Type.String({
      enum: UNIDADES_MEDIDA.map(([code]) => code),
      description:
        'UnidadMedida code from the v4.4 schema (Unid, Sp, Kg, …); service units make the line a service',
    }),
    tax_code: Type.Optional(
      Type.String({
        enum: [...IVA_TAX_CODES],
        default: '01',
        description:
          "The item's IVA (Impuesto code): 01 IVA; 07 IVA cálculo especial (a line may state its `taxable_base`); 08 IVA régimen de bienes usados (each line states its `iva_factor`). Taxes beside the IVA go in `taxes`",
      }),
    ),
    iva_rate_code: Type.String({
      enum: [...IVA_RATE_CODES_FE],
      description:
        'CodigoTarifaIVA: 01 0%, 02 1%, 03 2%, 04 4%, 08 13%, 09 0.5%, 10 exento, 11 0% sin crédito',
    }),
    price: Type.String({
      pattern: '^\\d{1,13}(\\.\\d{1,5})?$',
      description:
        'Default unit price (decimal string, up to 13 integer digits and 5 decimals, like PrecioUnitario); ' +
        'kept and returned as given, with at least 2 decimals',
    }),
    commercial_code: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    taxes: Type.Optional(
      Type.Array(OtherTax, {
        description:
          'Taxes beside the IVA (Impuesto 02-06, 12, 99) its invoice lines carry unless a line gives its own `taxes`',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        cabys: '8314100000200',
        description: 'Consultoría en sistemas',
        unit: 'Sp',
        iva_rate_code: '08',
        price: '50000.00',
      },
    ],
  },
);

const S = CreateServiceBody.properties;

/**
 * PATCH /api/v1/services/{id}: any of the create's fields; those given replace the service's
 * (`commercial_code: null` clears it, `taxes: []` removes the default taxes), checked like a create.
 * Documents already issued keep the lines they were issued with.
 */
export const UpdateServiceBody = Type.Object(
  {
    cabys: Type.Optional(S.cabys),
    description: Type.Optional(S.description),
    unit: Type.Optional(S.unit),
    tax_code: Type.Optional(Type.String({ enum: [...IVA_TAX_CODES] })),
    iva_rate_code: Type.Optional(S.iva_rate_code),
    price: Type.Optional(S.price),
    commercial_code: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 20 }), Type.Null()])),
    taxes: S.taxes,
  },
  { additionalProperties: false, examples: [{ price: '55000.00' }] },
);

export const ServiceObject = Type.Object({
  id: Type.String({ examples: ['srv_000000000001'] }),
  object: Type.Literal('service'),
  uuid: Type.String({ format: 'uuid' }),
  cabys: Type.String(),
  description: Type.String(),
  unit: Type.String(),
  kind: Type.String({
    enum: ['goods', 'services'],
    description: 'From the unit: goods or services in the summary',
  }),
  tax_code: Type.String(),
  iva_rate_code: Type.String(),
  taxes: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: 'Default taxes beside the IVA, as given (snake_case keys)',
  }),
  price: Type.String({
    description: 'Default unit price as given: up to 5 decimals, at least 2',
    examples: ['50000.00', '1234.56789'],
  }),
  commercial_code: Type.Union([Type.String(), Type.Null()]),
  archived: Type.Boolean({
    description:
      'Archived: left out of lists and searches (unless include_archived=true) and refused for new ' +
      'documents (422 service_archived); the documents already issued keep naming it',
  }),
  livemode: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ListServicesQuery = Type.Object(
  {
    cabys: Type.Optional(Type.String({ pattern: '^\\d{13}$' })),
    limit: Type.Optional(Limit),
    starting_after: Type.Optional(Type.String({ pattern: '^srv_\\d{12}$' })),
    include_archived: Type.Optional(
      Type.Boolean({ default: false, description: 'List archived ones too (left out by default)' }),
    ),
  },
  { additionalProperties: false },
);

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  CreateServiceRequest: CreateServiceBody,
  UpdateServiceRequest: UpdateServiceBody,
  Service: ServiceObject,
});
