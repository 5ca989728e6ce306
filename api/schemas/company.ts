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
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Company', description: 'The company (emisor data, plan, defaults); never its secrets' },
);
