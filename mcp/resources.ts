// The code catalogues as resources, read from the service each time so they say what the running
// service checks: the document types, IVA rate codes, payment methods, sale conditions and
// identification types (GET /docs/codes.json), and the error reference (GET /docs/errors.json),
// whole or one code at a time (factura://errors/{code}).
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from './context.ts';

/** Each catalogue of /docs/codes.json: its resource name, the key it sits under and its titles. */
export const CATALOGUES = [
  ['document-types', 'document_types', 'Tipos de comprobante / Document types'],
  ['iva-rates', 'iva_rates', 'Códigos de tarifa del IVA / IVA rate codes'],
  ['payment-methods', 'payment_methods', 'Medios de pago / Payment methods'],
  ['sale-conditions', 'sale_conditions', 'Condiciones de venta / Sale conditions'],
  ['identification-types', 'identification_types', 'Tipos de identificación / Identification types'],
] as const;

const JSON_TYPE = 'application/json';

async function readJson(ctx: McpContext, path: string): Promise<Record<string, unknown>> {
  const res = await ctx.fetch(`${ctx.baseUrl}${path}`, { headers: { accept: JSON_TYPE } });
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

const contents = (uri: URL, data: unknown) => ({
  contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(data, null, 2) }],
});

export function registerResources(server: McpServer, ctx: McpContext): void {
  for (const [name, key, title] of CATALOGUES)
    server.registerResource(
      name,
      `factura://catalogues/${name}`,
      {
        title,
        description: `${title}: códigos de Hacienda con su nombre en la API / Hacienda's codes with their API names`,
        mimeType: JSON_TYPE,
      },
      async (uri) => contents(uri, (await readJson(ctx, '/docs/codes.json'))[key]),
    );

  server.registerResource(
    'errors',
    'factura://errors',
    {
      title: 'Referencia de errores / Error reference',
      description:
        'Cada código de error del servicio: estado HTTP, qué significa, los campos y cómo corregirlo / ' +
        'Every error code of the service: HTTP status, what it means, the fields and the fix',
      mimeType: JSON_TYPE,
    },
    async (uri) => contents(uri, await readJson(ctx, '/docs/errors.json')),
  );

  server.registerResource(
    'error',
    new ResourceTemplate('factura://errors/{code}', { list: undefined }),
    {
      title: 'Un código de error / One error code',
      description:
        'La entrada de un código en la referencia de errores / One code’s entry in the error reference',
      mimeType: JSON_TYPE,
    },
    async (uri, { code }) => {
      const reference = (await readJson(ctx, '/docs/errors.json')) as { codes: { code: string }[] };
      const entry = reference.codes.find((c) => c.code === String(code));
      if (!entry) throw new Error(`código de error desconocido / unknown error code: ${String(code)}`);
      return contents(uri, entry);
    },
  );
}
