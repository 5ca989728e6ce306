// The code catalogues the API's fields take, served at GET /docs/codes.json (public, beside the
// error reference): document types, IVA rate codes, payment methods, sale conditions and
// identification types, each with Hacienda's code, the API's name where it has one and the label.
// Built once at start from domain/, so what a client reads cannot drift from what the API checks.
import type { FastifyInstance } from 'fastify';
import {
  CONDICIONES_VENTA,
  CONDICIONES_VENTA_CREDITO,
  CONDICIONES_VENTA_FE,
  IDENTIFICATION_TYPES,
  IVA_RATES,
  MEDIOS_PAGO,
  type CondicionVenta,
} from '../domain/codes.ts';
import { documentTypes } from '../domain/document-types/index.ts';
import { CONDITION_NAMES, DEFAULT_CREDIT_DAYS, PAYMENT_METHODS } from '../domain/sale-terms.ts';

const CREDIT: readonly string[] = CONDICIONES_VENTA_CREDITO;

const nameOf = (table: Record<string, string>, code: string): string | null =>
  Object.entries(table).find(([, c]) => c === code)?.[0] ?? null;

/** The catalogues, as /docs/codes.json answers them. */
export function codeCatalogues() {
  return {
    object: 'code_catalogues',
    document_types: documentTypes().map((d) => ({
      code: d.code,
      name: d.name,
      request_form: d.request?.form ?? null,
      receptor: d.request?.receptor ?? null,
    })),
    iva_rates: Object.entries(IVA_RATES).map(([code, r]) => ({
      code,
      rate: r.rate,
      label: r.label,
      treatment: r.treatment,
      usage: r.usage,
    })),
    payment_methods: Object.entries(MEDIOS_PAGO).map(([code, label]) => ({
      code,
      name: nameOf(PAYMENT_METHODS, code),
      label,
    })),
    sale_conditions: (Object.keys(CONDICIONES_VENTA) as CondicionVenta[]).map((code) => ({
      code,
      name: nameOf(CONDITION_NAMES, code),
      label: CONDICIONES_VENTA[code],
      in_invoices: (CONDICIONES_VENTA_FE as readonly string[]).includes(code),
      credit_days: CREDIT.includes(code)
        ? { default: DEFAULT_CREDIT_DAYS, as_name: 'credito_<días/days>' }
        : null,
    })),
    identification_types: Object.entries(IDENTIFICATION_TYPES).map(([code, label]) => ({ code, label })),
  };
}

export function registerCodeCatalogues(app: FastifyInstance): void {
  const json = JSON.stringify(codeCatalogues());
  app.get('/docs/codes.json', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(json),
  );
}
