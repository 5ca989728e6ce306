// Client resource schemas (request and response). Lengths follow Hacienda v4.4.
import { Type, type TSchema } from 'typebox';
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

const nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const C = CreateClientBody.properties;

/**
 * PATCH /api/v1/clients/{id}: any of the create's fields; those given replace the client's (null
 * clears an optional one; `addresses` replaces them all), the result checked like a create.
 */
export const UpdateClientBody = Type.Object(
  {
    cedula: Type.Optional(C.cedula),
    identification_type: C.identification_type,
    lookup: C.lookup,
    name: C.name,
    commercial_name: nullable(Type.String({ minLength: 3, maxLength: 80 })),
    email: nullable(Type.String({ format: 'email', maxLength: 160 })),
    phone: nullable(Type.String({ pattern: '^\\d{8,20}$', description: '8 to 20 digits' })),
    phone_country_code: Type.Optional(Type.String({ pattern: '^\\d{1,3}$' })),
    activity_code: nullable(Type.String({ pattern: '^\\d{6}$' })),
    addresses: C.addresses,
    foreign_address: nullable(Type.String({ minLength: 5, maxLength: 300 })),
    metadata: C.metadata,
  },
  { additionalProperties: false, examples: [{ email: 'cuentas@valle.example', phone: '22223333' }] },
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
  archived: Type.Boolean({
    description:
      'Archived: left out of lists and searches (unless include_archived=true) and refused for new ' +
      'documents (422 client_archived); the documents already issued keep naming it',
  }),
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
    include_archived: Type.Optional(
      Type.Boolean({ default: false, description: 'List archived ones too (left out by default)' }),
    ),
  },
  { additionalProperties: false },
);

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  AddressInput,
  CreateClientRequest: CreateClientBody,
  UpdateClientRequest: UpdateClientBody,
  Address,
  Client: ClientObject,
});
