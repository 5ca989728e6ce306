// Client resource schemas (request and response). Lengths follow Hacienda v4.4.
import { Type } from 'typebox';
import { Decimal2, Limit, Timestamp, nameSchemas } from './common.ts';

export const AddressInput = Type.Object(
  {
    provincia: Type.String({ pattern: '^[1-7]$', description: 'Province code (1-7)' }),
    canton: Type.String({ pattern: '^\\d{2}$', description: 'Cantón code, 2 digits' }),
    distrito: Type.String({ pattern: '^\\d{2}$', description: 'Distrito code, 2 digits' }),
    barrio: Type.Optional(Type.String({ minLength: 5, maxLength: 50 })),
    otras_senas: Type.String({ minLength: 5, maxLength: 250 }),
  },
  { additionalProperties: false },
);

export const CreateClientBody = Type.Object(
  {
    cedula: Type.String({
      minLength: 1,
      maxLength: 30,
      description:
        'Identification number; spaces, dots and dashes are ignored. A física written with a leading ' +
        'zero (0104560789, 01-0456-0789) is the física 104560789',
    }),
    identification_type: Type.Optional(
      Type.String({
        enum: ['01', '02', '03', '04', '05', '06'],
        description:
          'Nota 4 type: 01 física (9 digits), 02 jurídica (10 characters), 03 DIMEX (11-12 digits), ' +
          '04 NITE (10 digits), 05 extranjero no domiciliado, 06 no contribuyente. When absent it is ' +
          'read from the number only where one type alone has its shape (9 digits: 01; 10 characters ' +
          'with a letter: 02; 11-12 digits: 03); a 10-digit number may be 02 or 04 and without this ' +
          'field (or lookup: true) is refused (422 ambiguous_identification)',
      }),
    ),
    lookup: Type.Optional(
      Type.Boolean({
        description:
          "Take the identification type, and the name when none is given, from Hacienda's taxpayer " +
          'register (422 taxpayer_not_found if it does not know the number; 503 when it cannot be reached)',
      }),
    ),
    name: Type.Optional(
      Type.String({ minLength: 3, maxLength: 100, description: 'Required unless lookup: true' }),
    ),
    commercial_name: Type.Optional(Type.String({ minLength: 3, maxLength: 80 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 160 })),
    phone: Type.Optional(Type.String({ pattern: '^\\d{8,20}$', description: '8 to 20 digits' })),
    phone_country_code: Type.Optional(Type.String({ pattern: '^\\d{1,3}$', default: '506' })),
    activity_code: Type.Optional(
      Type.String({ pattern: '^\\d{6}$', description: 'Receptor economic activity (6 digits)' }),
    ),
    addresses: Type.Optional(Type.Array(AddressInput, { maxItems: 10 })),
    foreign_address: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 300,
        description: "A foreign receptor's address (OtrasSenasExtranjero), e.g. for a factura de exportación",
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), { maxProperties: 20 }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        cedula: '3-101-123456',
        identification_type: '02',
        name: 'Comercializadora del Valle S.A.',
        email: 'facturas@valle.example',
        addresses: [{ provincia: '1', canton: '01', distrito: '01', otras_senas: 'Avenida 2, calle 5' }],
      },
    ],
  },
);

export const Address = Type.Object({
  provincia: Type.String(),
  canton: Type.String(),
  distrito: Type.String(),
  barrio: Type.Union([Type.String(), Type.Null()]),
  otras_senas: Type.String(),
});

export const ClientObject = Type.Object({
  id: Type.String({ examples: ['cli_000000000001'] }),
  object: Type.Literal('client'),
  uuid: Type.String({ format: 'uuid' }),
  cedula: Type.String(),
  identification_type: Type.String(),
  name: Type.String(),
  commercial_name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  phone_country_code: Type.Union([Type.String(), Type.Null()]),
  activity_code: Type.Union([Type.String(), Type.Null()]),
  addresses: Type.Array(Address),
  foreign_address: Type.Union([Type.String(), Type.Null()]),
  balance: Decimal2,
  metadata: Type.Record(Type.String(), Type.String()),
  livemode: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ListClientsQuery = Type.Object(
  {
    cedula: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    balance_gte: Type.Optional(Type.String({ pattern: '^-?\\d{1,13}(\\.\\d{1,5})?$' })),
    balance_lte: Type.Optional(Type.String({ pattern: '^-?\\d{1,13}(\\.\\d{1,5})?$' })),
    limit: Type.Optional(Limit),
    starting_after: Type.Optional(Type.String({ pattern: '^cli_\\d{12}$' })),
  },
  { additionalProperties: false },
);

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  AddressInput,
  CreateClientRequest: CreateClientBody,
  Address,
  Client: ClientObject,
});
