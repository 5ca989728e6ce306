// The company as GET /api/v1/company shows it: emisor data, plan and defaults, never a secret.
import { Type, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const CompanyObject = Type.Object(
  {
    id: Type.String({ examples: ['cmp_000000000001'] }),
    object: Type.Literal('company'),
    name: Type.String(),
    plan: Type.String({ examples: ['business'] }),
    livemode: Type.Boolean({ description: 'The mode of the key that asked (live or sandbox)' }),
    emisor: Type.Object({
      legal_name: Type.String(),
      commercial_name: Nullable(Type.String()),
      identification: Type.Object({
        type: Type.String({ description: 'Nota 4 type', examples: ['02'] }),
        number: Type.String(),
      }),
      activity_code: Nullable(Type.String()),
      location: Type.Object({
        provincia: Nullable(Type.String()),
        canton: Nullable(Type.String()),
        distrito: Nullable(Type.String()),
        barrio: Nullable(Type.String()),
        otras_senas: Nullable(Type.String()),
      }),
      phone: Nullable(Type.Object({ country_code: Type.String(), number: Type.String() })),
      emails: Type.Array(Type.String()),
    }),
    defaults: Type.Object({
      branch: Type.String({ examples: ['001'] }),
      terminal: Type.String({ examples: ['00001'] }),
      currency: Type.String({ examples: ['CRC'] }),
    }),
    rate_limit_per_second: Nullable(
      Type.Integer({ description: 'Requests per second for all its keys together' }),
    ),
    email_delivery: Type.Object({
      enabled: Type.Boolean(),
      reply_to: Nullable(Type.String()),
      bcc: Type.Array(Type.String()),
    }),
    certificate: Nullable(
      Type.Object({
        subject: Nullable(Type.String()),
        not_after: Nullable(Type.String({ format: 'date-time' })),
      }),
    ),
    hacienda_credentials_configured: Type.Boolean(),
    live_enabled: Type.Boolean({
      description: 'The company passed the go-live checklist (POST /api/v1/company/go_live)',
    }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Company', description: 'The company (emisor data, plan, defaults); never its secrets' },
);

const Location = Type.Object(
  {
    provincia: Type.String({ pattern: '^[1-7]$' }),
    canton: Type.String({ pattern: '^\\d{2}$' }),
    distrito: Type.String({ pattern: '^\\d{2}$' }),
    barrio: Type.Optional(Nullable(Type.String())),
    otras_senas: Type.String(),
  },
  { additionalProperties: false },
);

export const UpdateCompanyBody = Type.Object(
  {
    activity_code: Type.Optional(
      Type.String({
        pattern: '^\\d{6}$',
        description: "One of the company's active activities in Hacienda's register (6 digits)",
      }),
    ),
    name: Type.Optional(Type.String({ minLength: 3, maxLength: 100, description: 'Display name' })),
    legal_name: Type.Optional(Type.String({ description: 'Emisor/Nombre, 5 to 100 characters' })),
    commercial_name: Type.Optional(Nullable(Type.String({ description: 'NombreComercial, 3 to 80' }))),
    phone: Type.Optional(
      Nullable(
        Type.Object(
          {
            country_code: Type.Optional(Type.String({ pattern: '^\\d{1,3}$' })),
            number: Type.String({ pattern: '^\\d{1,20}$' }),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    email: Type.Optional(Type.String({ description: 'The emisor email (same as emails: [email])' })),
    emails: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 4 })),
    location: Type.Optional(Location),
    default_branch: Type.Optional(Type.String({ pattern: '^\\d{3}$' })),
    default_terminal: Type.Optional(Type.String({ pattern: '^\\d{5}$' })),
    email_delivery: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          reply_to: Type.Optional(Nullable(Type.String())),
          bcc: Type.Optional(Type.Array(Type.String(), { maxItems: 4 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [
      { activity_code: '620100', commercial_name: 'Servicios del Valle', default_terminal: '00001' },
    ],
  },
);
