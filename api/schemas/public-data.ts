// Hacienda's public data as the API shows it: a taxpayer of the register and a day's dollar rate.
import { Type } from 'typebox';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const TaxpayerObject = Type.Object(
  {
    object: Type.Literal('taxpayer'),
    cedula: Type.String({ description: 'The number as asked of Hacienda (digits, no leading zero)' }),
    name: Type.String({ examples: ['SERVICIOS EJEMPLO SOCIEDAD ANONIMA'] }),
    identification_type: Type.String({ description: 'Nota 4: 01 física, 02 jurídica, 03 DIMEX, 04 NITE' }),
    regime: Type.Object({
      code: Type.Union([Type.Integer(), Type.Null()], {
        description: '0 no aplica, 1 tradicional/general, 2 simplificado',
      }),
      description: Nullable(Type.String()),
    }),
    situation: Type.Object({
      moroso: Type.Boolean({ description: 'In arrears with Hacienda' }),
      omiso: Type.Boolean({ description: 'Has not filed a return it owes' }),
      estado: Nullable(Type.String({ examples: ['Inscrito'] })),
      administracion_tributaria: Nullable(Type.String()),
      message: Nullable(Type.String({ description: "Hacienda's text when the taxpayer is not inscribed" })),
    }),
    activities: Type.Array(
      Type.Object({
        code: Type.String(),
        description: Type.String(),
        status: Type.String({ description: 'A activa, I inactiva' }),
        type: Type.String({ description: 'P primaria, S secundaria' }),
      }),
    ),
    fetched_at: Type.String({ format: 'date-time', description: 'When Hacienda gave this answer' }),
  },
  { title: 'Taxpayer', description: "A taxpayer as Hacienda's public register (fe/ae) has it" },
);

export const ExchangeRateObject = Type.Object(
  {
    object: Type.Literal('exchange_rate'),
    currency: Type.Literal('USD'),
    date: Type.String({ format: 'date', description: 'Costa Rica calendar day', examples: ['2026-07-29'] }),
    buy: Type.String({ examples: ['505.67'], description: 'Colones per dollar, compra' }),
    sell: Type.String({
      examples: ['512.07'],
      description: 'Colones per dollar, venta (what invoices take)',
    }),
    source: Type.String({
      examples: ['hacienda_bccr'],
      description: "hacienda_bccr: the BCCR's reference rate as Hacienda publishes it (indicadores/tc/dolar)",
    }),
    fetched_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ExchangeRate', description: "The dollar's reference rate of a day" },
);

export const CedulaParams = Type.Object({
  cedula: Type.String({ maxLength: 30, description: 'Identification number; dashes and spaces are ignored' }),
});

export const ExchangeRateQuery = Type.Object(
  {
    date: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        description: 'YYYY-MM-DD; default today in Costa Rica',
      }),
    ),
  },
  { additionalProperties: false },
);
